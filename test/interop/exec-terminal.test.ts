import {expect} from 'chai'
import {mkdir, mkdtemp, readFile, realpath, rm, writeFile} from 'node:fs/promises'
import {readFileSync} from 'node:fs'
import {tmpdir} from 'node:os'
import path from 'node:path'
import {setTimeout as sleep} from 'node:timers/promises'

import {MAX_PENDING_STDIN_BYTES} from '../../src/exec/terminal/limits.js'
import {CLIENT_LINES, type TestClient, type ToolCallAnswer, connectStdio} from '../helpers/clients.js'
import {isAlive, startSleep, waitUntilGone} from '../helpers/processes.js'

/** Peak resident memory of a process in kB (`VmHWM` in /proc/<pid>/status). */
function peakMemoryKb(pid: number): number {
  const match = /^VmHWM:\s+(\d+) kB/m.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))
  return Number(match![1])
}

/** The counts of the note a write_stdin answer starts with when not all of chars was written. */
function unwritten(text: string): {written: number; total: number} | undefined {
  const match = /^\[Note: (\d+) of the (\d+) characters of chars were written/.exec(text)
  return match ? {written: Number(match[1]), total: Number(match[2])} : undefined
}

/** The four fields the text of a successful answer carries, parsed back. */
function parseAnswerText(text: string): Record<string, unknown> {
  const match = /^exit_code: (.*)\nseconds: (\d+\.\d{3})\nsession_id: (.*)\ntext:\n([\s\S]*)$/.exec(text)
  expect(match, `answer text: ${JSON.stringify(text)}`).to.not.equal(null)
  const [, exitCode, seconds, sessionId, output] = match!
  return {
    exit_code: exitCode === 'running' ? 'running' : Number(exitCode),
    seconds: Number(seconds),
    session_id: sessionId,
    text: output,
  }
}

async function call(client: TestClient, tool: string, args: Record<string, unknown>): Promise<Record<string, unknown>> {
  const answer: ToolCallAnswer = await client.call(tool, args)
  expect(answer.isError, answer.text).to.equal(false)
  expect(answer.structured).to.deep.equal(parseAnswerText(answer.text))
  return answer.structured!
}

/** Polls a session until its command ends; returns the last answer with all the text. */
async function pollToEnd(client: TestClient, sessionId: string): Promise<Record<string, unknown>> {
  let text = ''
  for (;;) {
    const answer = await call(client, 'write_stdin', {session_id: sessionId})
    text += answer.text as string
    if (answer.exit_code !== 'running') return {...answer, text}
  }
}

function terminal(workspace: string): string[] {
  return ['exec', 'serve', '--workspace', workspace, '--level', 'terminal']
}

/**
 * A home folder for the server whose login profile only sets a marker and counts its runs in
 * `profile-runs`: commands then prove they got what the profile sets up, without the machine
 * user's own profile.
 */
async function testHome(): Promise<string> {
  const home = await mkdtemp(path.join(tmpdir(), 'ak-terminal-home-'))
  await writeFile(path.join(home, '.profile'), 'export AK_TEST_PROFILE=loaded\necho run >> "$HOME/profile-runs"\n')
  return home
}

for (const line of CLIENT_LINES) {
  describe(`exec_command and write_stdin, client ${line}`, () => {
    let workspace: string
    let home: string
    let client: TestClient

    before(async () => {
      workspace = await realpath(await mkdtemp(path.join(tmpdir(), 'ak-terminal-')))
      home = await testHome()
      await mkdir(path.join(workspace, 'sub'))
      await writeFile(path.join(workspace, 'note.txt'), 'a file\n')
      client = await connectStdio(line, terminal(workspace), {env: {HOME: home}})
    })

    after(async () => {
      await client?.close()
      await rm(workspace, {recursive: true, force: true})
      await rm(home, {recursive: true, force: true})
    })

    it('offers all six tools at the terminal level, the terminal ones with an output schema', async () => {
      const tools = await client.listTools()
      const names = tools.map((tool) => tool.name)
      expect(names).to.deep.equal(['read', 'list', 'search', 'edit', 'exec_command', 'write_stdin'])
      for (const name of ['exec_command', 'write_stdin']) {
        const tool = tools.find((candidate) => candidate.name === name)!
        expect(tool.outputSchema).to.deep.include({type: 'object', required: ['exit_code', 'seconds', 'session_id', 'text']})
        expect(tool.annotations).to.include({readOnlyHint: false, destructiveHint: true})
      }
    })

    it('runs echo in the workspace and answers with the four fields, as text and structured content', async () => {
      const answer = await call(client, 'exec_command', {cmd: 'echo hello; pwd'})
      expect(answer).to.include({exit_code: 0, session_id: 'none', text: `hello\n${workspace}\n`})
      expect(Object.keys(answer)).to.deep.equal(['exit_code', 'seconds', 'session_id', 'text'])
    })

    it('merges stdout and stderr in the order they were written', async () => {
      const answer = await call(client, 'exec_command', {cmd: 'echo 1; echo 2 >&2; echo 3; echo 4 >&2'})
      expect(answer.text).to.equal('1\n2\n3\n4\n')
    })

    it('reports a non-zero exit code as a normal answer, not a tool error', async () => {
      const answer = await call(client, 'exec_command', {cmd: 'echo failing; exit 3'})
      expect(answer).to.include({exit_code: 3, text: 'failing\n'})
    })

    it('reports a command killed by a signal as 128 + its number', async () => {
      expect(await call(client, 'exec_command', {cmd: 'kill -TERM $$'})).to.include({exit_code: 143})
    })

    it('gives the command what the login profile sets, and plain, non-interactive settings', async () => {
      const answer = await call(client, 'exec_command', {
        cmd: 'echo "$AK_TEST_PROFILE $NO_COLOR $TERM $PAGER $GIT_PAGER $GH_PAGER $LANG $LC_CTYPE $LC_ALL [${COLORTERM-unset}]"',
      })
      expect(answer.text).to.equal('loaded 1 dumb cat cat cat C.UTF-8 C.UTF-8 C.UTF-8 []\n')
    })

    it('reads the login profile once into a shell snapshot, which later commands load instead', async () => {
      const profileRuns = () => readFileSync(path.join(home, 'profile-runs'), 'utf8').split('\n').filter(Boolean).length
      let withoutProfile = 0
      // Commands run in a login shell until the snapshot, taken in the background, is ready.
      for (let attempt = 0; attempt < 40 && withoutProfile === 0; attempt++) {
        const before = profileRuns()
        expect((await call(client, 'exec_command', {cmd: 'echo "$AK_TEST_PROFILE"'})).text).to.equal('loaded\n')
        if (profileRuns() === before) withoutProfile++
        else await new Promise((resolve) => setTimeout(resolve, 250))
      }
      expect(withoutProfile, 'a command that did not run the profile').to.equal(1)
      const before = profileRuns()
      for (let index = 0; index < 3; index++) {
        expect((await call(client, 'exec_command', {cmd: 'echo "$AK_TEST_PROFILE"'})).text).to.equal('loaded\n')
      }
      expect(profileRuns()).to.equal(before)
    })

    it('runs in workdir inside the workspace and refuses one outside it', async () => {
      expect((await call(client, 'exec_command', {cmd: 'pwd', workdir: 'sub'})).text).to.equal(`${workspace}/sub\n`)
      for (const workdir of ['..', '/tmp', `${workspace}-evil`]) {
        const refused = await client.call('exec_command', {cmd: 'pwd', workdir})
        expect(refused.isError, workdir).to.equal(true)
        expect(refused.text).to.contain('outside the workspace')
      }
      const file = await client.call('exec_command', {cmd: 'pwd', workdir: 'note.txt'})
      expect(file).to.include({isError: true})
      expect(file.text).to.contain('is a file, not a folder')
    })

    it('answers as soon as the shell ends even when a background child keeps the output open', async () => {
      const answer = await call(client, 'exec_command', {cmd: 'sleep 100 & echo started', yield_time_ms: 5000})
      expect(answer).to.include({exit_code: 0, session_id: 'none', text: 'started\n'})
    })

    it('answers "running" after a short yield and reports the end to a later poll, which retires the id', async () => {
      const first = await call(client, 'exec_command', {cmd: 'echo begin; sleep 2; echo end', yield_time_ms: 250})
      expect(first.exit_code).to.equal('running')
      const id = first.session_id as string
      expect(id).to.match(/^[a-z][a-z2-9]{19}$/)
      const last = await pollToEnd(client, id)
      expect(last).to.include({exit_code: 0, session_id: 'none'})
      expect(first.text + (last.text as string)).to.equal('begin\nend\n')
      const retired = await client.call('write_stdin', {session_id: id})
      expect(retired.isError).to.equal(true)
      expect(retired.text).to.contain('Unknown session_id')
    })

    it('types into cat and ends its input with \\u0004', async () => {
      const started = await call(client, 'exec_command', {cmd: 'cat', yield_time_ms: 250})
      const id = started.session_id as string
      const echoed = await call(client, 'write_stdin', {session_id: id, chars: 'first line\n', yield_time_ms: 1000})
      expect(echoed.exit_code).to.equal('running')
      let ended = await call(client, 'write_stdin', {session_id: id, chars: 'last\n\u0004', yield_time_ms: 5000})
      let text = `${started.text}${echoed.text}${ended.text}`
      if (ended.exit_code === 'running') {
        ended = await pollToEnd(client, id)
        text += ended.text
      }
      expect(ended).to.include({exit_code: 0, session_id: 'none'})
      expect(text).to.equal('first line\nlast\n')
    })

    it('refuses text after \\u0004 in the same call, before writing anything', async () => {
      const started = await call(client, 'exec_command', {cmd: 'cat', yield_time_ms: 250})
      const refused = await client.call('write_stdin', {session_id: started.session_id, chars: 'a\u0004b'})
      expect(refused.isError).to.equal(true)
      expect(refused.text).to.contain('text after "\\u0004"').and.contain('nothing was written and the input stays open').and.not.contain('is closed')
      const ended = await call(client, 'write_stdin', {session_id: started.session_id, chars: 'c\n\u0004', yield_time_ms: 5000})
      expect(ended).to.include({exit_code: 0, text: 'c\n'})
    })

    it('interrupts a long sleep with \\u0003', async () => {
      // Interrupt once the command runs, not while the login shell still reads its profile.
      const started = await call(client, 'exec_command', {cmd: 'echo ready; sleep 300', yield_time_ms: 250})
      let text = started.text as string
      while (!text.includes('ready')) text += (await call(client, 'write_stdin', {session_id: started.session_id})).text
      const answer = await call(client, 'write_stdin', {session_id: started.session_id, chars: '\u0003', yield_time_ms: 5000})
      expect(answer).to.include({exit_code: 130, session_id: 'none'})
    })

    it('puts out a multibyte character written in two parts 100 ms apart whole', async () => {
      const script = `process.stdout.write(Buffer.from([0xe2, 0x82])); setTimeout(() => process.stdout.write(Buffer.from([0xac])), 100)`
      const answer = await call(client, 'exec_command', {cmd: `'${process.execPath}' -e '${script}'`})
      expect(answer).to.include({exit_code: 0, text: '€'})
    })

    it('cuts long output in the middle past max_output_tokens × 4 characters with a marker', async () => {
      const answer = await call(client, 'exec_command', {cmd: 'seq 1 10000', max_output_tokens: 100})
      const text = answer.text as string
      expect(text.startsWith('1\n2\n3\n')).to.equal(true)
      expect(text.endsWith('9999\n10000\n')).to.equal(true)
      const match = /\n\[\.\.\. (\d+) characters \((\d+) line breaks\) cut from the middle of 48894;/.exec(text)!
      expect(Number(match[1])).to.equal(48894 - 400)
    })

    it('stops the command when its exec_command call is cancelled (nobody learned its id)', async () => {
      const pidFile = path.join(workspace, `cancelled-${line.slice(0, 2)}.pid`)
      const controller = new AbortController()
      const cancelled = client
        .call('exec_command', {cmd: `echo $$ > ${pidFile}; exec sleep 300`, yield_time_ms: 30_000}, {signal: controller.signal})
        .then(
          () => 'answered',
          () => 'rejected',
        )
      let pid = 0
      for (let waits = 0; waits < 200 && !(pid > 0); waits++) {
        await sleep(50)
        pid = Number(await readFile(pidFile, 'utf8').catch(() => ''))
      }
      expect(pid, 'the command never started').to.be.above(0)
      controller.abort()
      expect(await cancelled).to.equal('rejected')
      expect(await waitUntilGone(pid), `sleep ${pid} still runs after the call was cancelled`).to.equal(true)
      for (let waits = 0; waits < 100 && !client.stderr().includes('was cancelled'); waits++) await sleep(20)
      expect(client.stderr()).to.contain('The call was cancelled, so its command was stopped').and.not.contain('keeps running')
    })

    it('leaves the command running when a write_stdin poll is cancelled; a later poll reads it', async () => {
      const sleeping = await startSleep(client)
      const controller = new AbortController()
      const poll = client
        .call('write_stdin', {session_id: sleeping.sessionId, yield_time_ms: 30_000}, {signal: controller.signal})
        .then(
          () => 'answered',
          () => 'rejected',
        )
      await sleep(300)
      controller.abort()
      expect(await poll).to.equal('rejected')
      expect(isAlive(sleeping.pid)).to.equal(true)
      const later = await call(client, 'write_stdin', {session_id: sleeping.sessionId, chars: '\u0003', yield_time_ms: 5000})
      expect(later).to.include({exit_code: 130, session_id: 'none'})
      expect(await waitUntilGone(sleeping.pid)).to.equal(true)
    })

    it('counts characters in code points, so 20000 emoji and a newline are 20001 characters', async () => {
      const script = `process.stdout.write("\\u{1F600}".repeat(20000) + "\\n")`
      const whole = await call(client, 'exec_command', {cmd: `'${process.execPath}' -e '${script}'`})
      expect(whole.text).to.equal(`${'\u{1F600}'.repeat(20_000)}\n`)
      const cut = await call(client, 'exec_command', {cmd: `'${process.execPath}' -e '${script}'`, max_output_tokens: 100})
      const text = cut.text as string
      expect(text).to.contain('\n[... 19601 characters (0 line breaks) cut from the middle of 20001;')
      expect([...text.replace(/\n\[\.\.\..*\.\.\.\]\n/, '')]).to.have.length(400)
    })

    it('accepts a session_id sent as a number and answers a clear error for an unknown one', async () => {
      const answer = await client.call('write_stdin', {session_id: 52328, chars: 'x'})
      expect(answer.isError).to.equal(true)
      expect(answer.text).to.contain('Unknown session_id "52328"')
    })
  })
}

describe('terminal limits and cleanup through the real server', () => {
  const line = CLIENT_LINES[0]
  let workspace: string
  let home: string

  before(async () => {
    workspace = await realpath(await mkdtemp(path.join(tmpdir(), 'ak-terminal-')))
    home = await testHome()
  })

  after(async () => {
    await rm(workspace, {recursive: true, force: true})
    await rm(home, {recursive: true, force: true})
  })

  for (const each of CLIENT_LINES) {
    it(`leaves no process alive after the client closes (client ${each})`, async () => {
      const client = await connectStdio(each, terminal(workspace), {env: {HOME: home}})
      const pids: number[] = []
      try {
        // An ended command whose setsid child outlives its shell, with its output elsewhere.
        const detached = await call(client, 'exec_command', {cmd: 'setsid sleep 300 >/dev/null 2>&1 & echo $!'})
        expect(detached.exit_code).to.equal(0)
        pids.push(Number(detached.text))
        // A running command: its shell, a bash with a background and a foreground sleep, and a setsid sleep.
        const running = await call(client, 'exec_command', {
          cmd: `echo $$; bash -c 'sleep 300 & echo $!; sleep 300' & echo $!; setsid sleep 300 & echo $!; wait`,
          yield_time_ms: 1000,
        })
        let text = running.text as string
        while (text.trim().split('\n').length < 4) {
          text += (await call(client, 'write_stdin', {session_id: running.session_id, yield_time_ms: 5000})).text
        }
        pids.push(...text.trim().split('\n').map(Number))
        expect(pids).to.have.length(5)
        for (const pid of pids) expect(isAlive(pid), `pid ${pid} before close`).to.equal(true)
      } finally {
        await client.close()
      }
      for (const pid of pids) expect(isAlive(pid), `pid ${pid} after close`).to.equal(false)
    })
  }

  it(`holds at most ${MAX_PENDING_STDIN_BYTES} bytes of unread input per command: of 40 × 8 MiB into sleep, it takes no more`, async function () {
    this.timeout(300_000)
    const client = await connectStdio(line, terminal(workspace), {env: {HOME: home}})
    try {
      const sleeping = await call(client, 'exec_command', {cmd: 'exec sleep 300', yield_time_ms: 250})
      const chars = 'x'.repeat(8 * 1024 * 1024)
      // What the server's size does meanwhile is the exec-stdin bench case's figure, not this
      // test's: a server that keeps nothing may still grow its heap by hundreds of MiB at once
      // (590 MiB, seen here), more than keeping every message would add (240 MiB).
      let written = 0
      for (let index = 0; index < 40; index++) {
        const answer = await call(client, 'write_stdin', {session_id: sleeping.session_id, chars})
        expect(answer.exit_code).to.equal('running')
        const note = unwritten(answer.text as string)
        expect(note, answer.text as string).to.not.equal(undefined)
        expect(note!.total).to.equal(chars.length)
        written += note!.written
      }
      // What the pipe holds (64 KiB on Linux) comes on top of what the server holds.
      expect(written).to.be.at.most(MAX_PENDING_STDIN_BYTES + 1024 * 1024)
    } finally {
      await client.close()
    }
  })

  it('says how many characters a full stdin took; the rest sent later arrives whole, multibyte characters included', async function () {
    this.timeout(120_000)
    const client = await connectStdio(line, terminal(workspace), {env: {HOME: home}})
    try {
      const characters = Array.from('aé€😀'.repeat(400_000))
      // The command reads nothing until the test has seen its input fill up.
      const started = await call(client, 'exec_command', {
        cmd: 'while [ ! -e go ]; do sleep 0.1; done; exec cat > received.txt',
        yield_time_ms: 250,
      })
      let sent = 0
      let wasCut = false
      while (sent < characters.length) {
        const answer = await call(client, 'write_stdin', {session_id: started.session_id, chars: characters.slice(sent).join('')})
        const note = unwritten(answer.text as string)
        if (note === undefined) {
          sent = characters.length
          break
        }
        if (!wasCut) await writeFile(path.join(workspace, 'go'), '')
        wasCut = true
        expect(note.total).to.equal(characters.length - sent)
        expect(note.written).to.be.below(note.total)
        expect(answer.text).to.contain(`send the rest, from character ${note.written + 1} of chars on`)
        sent += note.written
      }
      expect(wasCut, 'the first write took everything').to.equal(true)
      const ended = await call(client, 'write_stdin', {session_id: started.session_id, chars: '\u0004', yield_time_ms: 10_000})
      const last = ended.exit_code === 'running' ? await pollToEnd(client, started.session_id as string) : ended
      expect(last.exit_code).to.equal(0)
      expect(await readFile(path.join(workspace, 'received.txt'), 'utf8')).to.equal(characters.join(''))
    } finally {
      await client.close()
    }
  })

  it('answers a command printing 400 MB with a bounded text, the server growing by less than half of it', async function () {
    this.timeout(120_000)
    const client = await connectStdio(line, terminal(workspace), {env: {HOME: home}})
    try {
      const outputBytes = 400_000_000
      const before = peakMemoryKb(client.pid)
      const answer = await call(client, 'exec_command', {
        cmd: `head -c ${outputBytes} /dev/zero | tr '\\0' 'x'; echo; echo done`,
        yield_time_ms: 30_000,
      })
      // A loaded machine may need more than one yield; collect until the end.
      const last = answer.exit_code === 'running' ? await pollToEnd(client, answer.session_id as string) : answer
      expect(last.exit_code).to.equal(0)
      const text = (answer.exit_code === 'running' ? last.text : answer.text) as string
      expect(text.length).to.be.below(7000 * 4 + 300)
      expect(text.endsWith('x\ndone\n')).to.equal(true)
      if (answer.exit_code !== 'running') {
        expect(text).to.contain(`characters (0 line breaks) cut from the middle of ${outputBytes + 6};`)
      }
      const peak = peakMemoryKb(client.pid)
      // A server holding the output would grow by at least its size (381 MiB); one keeping a
      // bounded text grows by tens of MiB (the exec-output bench case measures how much). The
      // bound is the midpoint, the margin that tells the two apart.
      expect(peak - before, `peak ${peak} kB, before ${before} kB`).to.be.below(outputBytes / 1024 / 2)
    } finally {
      await client.close()
    }
  })

  it(`refuses the 65th running command, listing the running ones, and evicts nothing`, async function () {
    this.timeout(180_000)
    const client = await connectStdio(line, terminal(workspace), {env: {HOME: home}})
    const shells: number[] = []
    try {
      const started = await Promise.all(
        Array.from({length: 64}, (_, index) =>
          call(client, 'exec_command', {cmd: `echo $$; exec sleep 300 # command ${index}`, yield_time_ms: 1000}),
        ),
      )
      for (const answer of started) {
        expect(answer.exit_code).to.equal('running')
        let text = answer.text as string
        while (!text.endsWith('\n')) text += (await call(client, 'write_stdin', {session_id: answer.session_id})).text
        shells.push(Number(text))
      }
      const refused = await client.call('exec_command', {cmd: 'echo sixty-five'})
      expect(refused.isError).to.equal(true)
      expect(refused.text).to.contain('Too many commands: 64 are running')
      for (const answer of started) expect(refused.text).to.contain(answer.session_id as string)
      expect(refused.text).to.contain('# command 63').and.not.contain('sixty-five')
      for (const pid of shells) expect(isAlive(pid)).to.equal(true)
    } finally {
      await client.close()
    }
    for (const pid of shells) expect(isAlive(pid), `pid ${pid} after close`).to.equal(false)
  })
})
