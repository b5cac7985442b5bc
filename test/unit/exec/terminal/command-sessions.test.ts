import {expect} from 'chai'
import {mkdtemp, rm, writeFile} from 'node:fs/promises'
import {existsSync} from 'node:fs'
import {tmpdir} from 'node:os'
import path from 'node:path'
import {setTimeout as delay} from 'node:timers/promises'

import {LimitReachedError, NotFoundError} from '../../../../src/errors.js'
import type {CommandAnswer} from '../../../../src/exec/terminal/answer.js'
import type {CommandSession} from '../../../../src/exec/terminal/command-session.js'
import {CommandSessions, type CommandSessionsOptions, type WaitOptions} from '../../../../src/exec/terminal/command-sessions.js'
import {isProcessAlive} from '../../../../src/exec/terminal/process-tree.js'

const OWNER = 'connection-a'

function waitOptions(yieldTimeMs: number, signal = new AbortController().signal): WaitOptions {
  return {yieldTimeMs, maxOutputTokens: 7000, callStartedAt: performance.now(), signal}
}

async function run(sessions: CommandSessions, command: string, yieldTimeMs = 10_000, by: {owner: string | undefined} = {owner: OWNER}) {
  const session = await sessions.start(command, tmpdir(), by.owner)
  return {session, answer: await sessions.wait(session, waitOptions(yieldTimeMs))}
}

/** Polls until the command ends, collecting its text. */
async function finish(sessions: CommandSessions, id: string, first: CommandAnswer): Promise<CommandAnswer> {
  let answer = first
  let text = first.text
  while (answer.exit_code === 'running') {
    answer = await sessions.wait(sessions.find(id, OWNER), waitOptions(1000))
    text += answer.text
  }
  return {...answer, text}
}

/** Waits on a running command until its output so far satisfies `isComplete`; returns that output. */
async function readUntil(sessions: CommandSessions, session: CommandSession, first: CommandAnswer, isComplete: (text: string) => boolean) {
  let text = first.text
  while (!isComplete(text)) text += (await sessions.wait(session, waitOptions(1000))).text
  return text
}

function expectThrows(action: () => unknown, type: new (...args: never[]) => Error): Error {
  try {
    action()
  } catch (error) {
    expect(error).to.be.instanceOf(type)
    return error as Error
  }
  expect.fail('expected an error')
}

describe('CommandSessions', () => {
  let sessions: CommandSessions

  let home: string
  /** Sessions whose login shells read an empty home, not the machine user's profile. */
  const create = (options: CommandSessionsOptions = {}) =>
    new CommandSessions({killGraceMs: 500, env: {...process.env, HOME: home}, ...options})

  before(async () => {
    home = await mkdtemp(path.join(tmpdir(), 'ak-sessions-home-'))
  })

  after(async () => {
    await rm(home, {recursive: true, force: true})
  })

  beforeEach(() => {
    sessions = create()
  })

  afterEach(async () => {
    await sessions.close()
  })

  it('decodes a multibyte character split across two writes as one character', async () => {
    const script = `process.stdout.write(Buffer.from([0xe2, 0x82])); setTimeout(() => process.stdout.write(Buffer.from([0xac, 0x0a])), 100)`
    const {answer} = await run(sessions, `'${process.execPath}' -e '${script}'`)
    expect(answer).to.include({exit_code: 0, text: '€\n'})
  })

  it('knows the output pipe of every command, even one whose shell exits at once, so it can stop what the command left behind', async function () {
    if (process.platform !== 'linux') this.skip()
    for (let round = 0; round < 20; round++) {
      const {session, answer} = await run(sessions, 'true')
      expect(answer).to.include({exit_code: 0})
      expect(session.outputPipe, `round ${round}`).to.match(/^(?:pipe|socket):\[\d+\]$/)
    }
  })

  it('replaces invalid UTF-8 with U+FFFD rather than failing', async () => {
    const {answer} = await run(sessions, `printf 'a\\377b'`)
    expect(answer.text).to.equal('a\uFFFDb')
  })

  it('finds a session by its id given as a number or with spaces, and only for its owner', async () => {
    const {session} = await run(sessions, 'sleep 30', 250)
    expect(sessions.find(` ${session.id} `, OWNER)).to.equal(session)
    expectThrows(() => sessions.find(session.id, 'connection-b'), NotFoundError)
    expectThrows(() => sessions.find(session.id, undefined), NotFoundError)
    expectThrows(() => sessions.find(12345, OWNER), NotFoundError)
  })

  it('lets any stateless request drive a stateless session by its id', async () => {
    const {session} = await run(sessions, 'sleep 30', 250, {owner: undefined})
    expect(sessions.find(session.id, undefined)).to.equal(session)
    expectThrows(() => sessions.find(session.id, OWNER), NotFoundError)
  })

  it('refuses a start beyond the limit with the running commands listed, and stops none', async () => {
    sessions = create({maxRunning: 2})
    const first = await run(sessions, 'sleep 30 # first', 250)
    await run(sessions, 'sleep 30 # second', 250, {owner: 'connection-b'})
    const error = await sessions.start('echo third', tmpdir(), OWNER).then(
      () => expect.fail('started'),
      (error: Error) => error,
    )
    expect(error).to.be.instanceOf(LimitReachedError)
    expect(error.message).to.contain(first.session.id).and.contain('sleep 30 # first').and.contain('2 are running')
    expect(error.message).to.contain('1 more started by other connections').and.not.contain('# second')
    expect(sessions.openCount).to.equal(2)
    expect(isProcessAlive(first.session.pid)).to.equal(true)
  })

  it('refuses a stateless start beyond the limit with counts and ages only, never an id or a command', async () => {
    sessions = create({maxRunning: 3})
    const stateless = [await run(sessions, 'sleep 30 # one', 250, {owner: undefined}), await run(sessions, 'sleep 30 # two', 250, {owner: undefined})]
    await run(sessions, 'sleep 30 # connected', 250)
    const error = await sessions.start('echo fourth', tmpdir(), undefined).then(
      () => expect.fail('started'),
      (error: Error) => error,
    )
    expect(error).to.be.instanceOf(LimitReachedError)
    expect(error.message).to.contain('3 are running').and.match(/2 running commands were started by stateless requests, running for \d+s to \d+s;/)
    expect(error.message).to.contain('(and 1 more started by other connections)')
    for (const {session} of stateless) expect(error.message).not.to.contain(session.id)
    expect(error.message).not.to.contain('sleep 30')
  })

  it('keeps less output of a command nobody polls, and all of it again once a call waits on it', async function () {
    this.timeout(30_000)
    sessions = create({bufferChars: 1000, unpolledBufferChars: 100, unpolledAfterMs: 100})
    const dir = await mkdtemp(path.join(tmpdir(), 'ak-unpolled-'))
    try {
      const waitFor = (name: string) => `while [ ! -e ${name} ]; do sleep 0.05; done`
      const print = (letter: string) => `head -c 2000 /dev/zero | tr '\\0' ${letter}`
      const command = `${waitFor('go1')}; ${print('x')}; : > printed1; ${waitFor('go2')}; ${print('y')}`
      const session = await sessions.start(command, dir, OWNER)
      expect((await sessions.wait(session, waitOptions(250))).exit_code).to.equal('running')
      await delay(300) // past unpolledAfterMs with no call waiting
      await writeFile(path.join(dir, 'go1'), '')
      while (!existsSync(path.join(dir, 'printed1'))) await delay(20)
      await delay(100) // the server reads what was printed
      const unpolled = await sessions.wait(session, waitOptions(250))
      expect(unpolled.text).to.match(/^x{50}\n\[\.\.\. 1900 characters \(0 line breaks\) cut from the middle of 2000;/)
      const polled = sessions.wait(session, waitOptions(10_000))
      await writeFile(path.join(dir, 'go2'), '')
      const answer = await polled
      expect(answer.exit_code).to.equal(0)
      expect(answer.text).to.match(/^y{500}\n\[\.\.\. 1000 characters \(0 line breaks\) cut from the middle of 2000;/)
    } finally {
      await rm(dir, {recursive: true, force: true})
    }
  })

  it('counts only running commands against the limit, keeping an ended command\'s output until it is read', async () => {
    sessions = create({maxRunning: 2})
    const ended = await sessions.start('echo kept; exit 4', tmpdir(), OWNER)
    await ended.ended
    const running = await run(sessions, 'sleep 30', 250)
    const third = await run(sessions, 'echo third', 10_000)
    expect(third.answer).to.include({exit_code: 0, text: 'third\n'})
    expect(sessions.runningCount).to.equal(1)
    const late = await sessions.wait(sessions.find(ended.id, OWNER), waitOptions(1000))
    expect(late).to.include({exit_code: 4, text: 'kept\n', session_id: 'none'})
    expect(isProcessAlive(running.session.pid)).to.equal(true)
  })

  it('drops the longest-waiting unread ended command past the unread limit, and its id tells its exit code', async () => {
    sessions = create({maxUnreadEnded: 2})
    const started: CommandSession[] = []
    for (const code of [5, 6, 7]) {
      const session = await sessions.start(`echo out${code}; exit ${code}`, tmpdir(), OWNER)
      await session.ended
      started.push(session)
    }
    const error = expectThrows(() => sessions.find(started[0]!.id, OWNER), NotFoundError)
    expect(error.message).to.contain('exit code 5').and.contain('discarded unread')
    for (const [index, code] of [[1, 6], [2, 7]] as const) {
      const answer = await sessions.wait(sessions.find(started[index]!.id, OWNER), waitOptions(1000))
      expect(answer).to.include({exit_code: code, text: `out${code}\n`})
    }
  })

  it('stops a command nobody waited on for the idle limit, and says so when it is polled', async () => {
    sessions = create({idleLimitMs: 300})
    const {session} = await run(sessions, 'sleep 30', 250)
    await session.ended
    expect(session.isRetired).to.equal(true)
    expect(isProcessAlive(session.pid)).to.equal(false)
    const error = expectThrows(() => sessions.find(session.id, OWNER), NotFoundError)
    expect(error.message).to.contain('idle limit')
  })

  it('does not stop a command while a call waits on it', async () => {
    sessions = create({idleLimitMs: 300})
    const {session} = await run(sessions, 'sleep 1; echo done', 250)
    const answer = await sessions.wait(session, waitOptions(10_000))
    expect(answer).to.include({exit_code: 0, text: 'done\n'})
  })

  it('keeps the output for the next call when a call is cancelled', async () => {
    const {session} = await run(sessions, 'cat', 250)
    const cancel = new AbortController()
    const waiting = sessions.wait(session, waitOptions(10_000, cancel.signal), (until) => session.write('hello\n', until))
    await delay(300)
    cancel.abort()
    await waiting.then(() => expect.fail('answered'), () => undefined)
    const answer = await sessions.wait(session, waitOptions(5000), async () => session.closeStdin())
    expect(answer).to.include({exit_code: 0, text: 'hello\n'})
  })

  it('stops a running command and what it started, including a setsid child, when its owner closes', async () => {
    const {session, answer} = await run(sessions, 'setsid sleep 300 & echo $!; sleep 300', 500)
    const child = Number(await readUntil(sessions, session, answer, (text) => text.endsWith('\n')))
    expect(isProcessAlive(child)).to.equal(true)
    await sessions.closeOwner(OWNER)
    expect(isProcessAlive(session.pid)).to.equal(false)
    expect(isProcessAlive(child)).to.equal(false)
  })

  it('stops background processes of an ended command when its owner closes', async () => {
    const {answer} = await run(sessions, 'setsid sleep 300 >/dev/null 2>&1 & echo $!')
    expect(answer.exit_code).to.equal(0)
    const child = Number(answer.text.trim())
    expect(isProcessAlive(child)).to.equal(true)
    await sessions.closeOwner(OWNER)
    expect(isProcessAlive(child)).to.equal(false)
  })

  it('leaves other owners running when one owner closes', async () => {
    const other = await run(sessions, 'sleep 300', 250, {owner: 'connection-b'})
    await run(sessions, 'sleep 300', 250)
    await sessions.closeOwner(OWNER)
    expect(isProcessAlive(other.session.pid)).to.equal(true)
  })

  it('SIGKILLs a command that ignores SIGTERM after the grace', async () => {
    const {session, answer} = await run(sessions, `trap '' TERM; echo ready; while true; do sleep 0.1; done`, 500)
    await readUntil(sessions, session, answer, (text) => text.includes('ready'))
    await sessions.stop(session)
    await session.ended
    expect(session.exitCode).to.equal(137)
  })

  it('polls a running command to its end, the last answer retiring the id', async () => {
    const first = await run(sessions, 'echo one; sleep 1; echo two', 250)
    expect(first.answer.exit_code).to.equal('running')
    const last = await finish(sessions, first.session.id, first.answer)
    expect(last).to.include({exit_code: 0, session_id: 'none', text: 'one\ntwo\n'})
    expectThrows(() => sessions.find(first.session.id, OWNER), NotFoundError)
  })

  it('keeps no count of waiting calls for a command whose end an answer reported (a long-lived server would gather one per command)', async () => {
    for (let round = 0; round < 3; round++) expect((await run(sessions, 'true')).answer.exit_code).to.equal(0)
    const first = await run(sessions, 'sleep 0.3', 50)
    await finish(sessions, first.session.id, first.answer)
    // The count is private: this reads it, since nothing a client sees shows it until memory runs out.
    expect((sessions as unknown as {busy: Map<string, number>}).busy.size).to.equal(0)
  })

  it('answers two concurrent calls on one session in turn', async () => {
    const {session} = await run(sessions, 'sleep 0.5; echo end', 250)
    const [a, b] = await Promise.allSettled([
      sessions.wait(session, waitOptions(5000)),
      sessions.wait(session, waitOptions(5000)),
    ])
    expect(a.status === 'fulfilled' && a.value.text).to.equal('end\n')
    expect(b.status === 'rejected' && b.reason).to.be.instanceOf(NotFoundError)
  })

  it('stops everything on close and refuses new commands', async () => {
    const {session} = await run(sessions, 'sleep 300', 250)
    await sessions.close()
    expect(isProcessAlive(session.pid)).to.equal(false)
    await sessions.start('echo x', tmpdir(), OWNER).then(
      () => expect.fail('started'),
      (error) => expect(error).to.be.instanceOf(LimitReachedError),
    )
    await delay(0)
  })
})
