import {expect} from 'chai'
import {readFile} from 'node:fs/promises'
import path from 'node:path'

import {runDispatch} from '../../../src/codex/dispatch.js'
import {createDispatchLimiter} from '../../../src/codex/dispatch-limiter.js'
import {DISPATCH_STDERR_MAX_BYTES, DISPATCH_STDOUT_MAX_BYTES} from '../../../src/codex/limits.js'
import {DispatchFailedError} from '../../../src/errors.js'
import {eventually, isAlive, standInRuns, tempDir, writeStandInCodex} from '../../helpers/codex-fixtures.js'

describe('dispatching a subprocess', () => {
  let dir: string
  let remove: () => Promise<void>
  let codex: string
  let record: string

  before(async () => {
    ;({dir, remove} = await tempDir('ak-dispatch-'))
    record = path.join(dir, 'runs.jsonl')
    codex = await writeStandInCodex(path.join(dir, 'bin'), record)
  })
  after(() => remove())

  const run = (prompt: string, signal = new AbortController().signal, onStderrLine?: (line: string) => void) =>
    runDispatch({command: codex, args: ['exec', '-'], cwd: dir, env: {...process.env, CODEX_HOME: '/codex-home'}, prompt, signal, ...(onStderrLine ? {onStderrLine} : {})})

  it('feeds the prompt on stdin and captures stdout, stderr and the exit code', async () => {
    const lines: string[] = []
    const outcome = await run('hello there', undefined, (line) => lines.push(line))
    expect(outcome).to.include({exitCode: 0, stdout: 'answer: hello there\n', stderr: 'thinking\n', stdoutDroppedBytes: 0})
    expect(lines).to.deep.equal(['thinking'])
    const last = (await standInRuns(record)).pop()
    expect(last).to.deep.include({argv: ['exec', '-'], stdin: 'hello there', cwd: dir, codexHome: '/codex-home'})
  })

  it('reports a failing run with its exit code and stderr', async () => {
    const outcome = await run('FAIL please')
    expect(outcome).to.include({exitCode: 3, stderr: 'model exploded\n'})
  })

  it('keeps at most the first DISPATCH_STDOUT_MAX_BYTES of stdout and counts the rest', async () => {
    const outcome = await run('FLOOD')
    expect(Buffer.byteLength(outcome.stdout)).to.equal(DISPATCH_STDOUT_MAX_BYTES)
    expect(outcome.stdoutDroppedBytes).to.equal(3 * 1024 * 1024 - DISPATCH_STDOUT_MAX_BYTES)
    expect(DISPATCH_STDERR_MAX_BYTES).to.be.lessThan(DISPATCH_STDOUT_MAX_BYTES)
  })

  it('stops the process and its children when the signal aborts', async () => {
    const controller = new AbortController()
    const running = run('HANG', controller.signal)
    const pidsFile = `${record}.pids`
    await eventually(async () => (await readFile(pidsFile, 'utf8').catch(() => '')) !== '')
    const pids = JSON.parse(await readFile(pidsFile, 'utf8')) as number[]
    expect(pids.every(isAlive)).to.equal(true)
    controller.abort()
    const error = await running.catch((caught: unknown) => caught)
    expect(error).to.be.instanceOf(DispatchFailedError)
    await eventually(() => pids.every((pid) => !isAlive(pid)))
  })

  it('stops what the process left running in its group with SIGTERM first, so it can clean up', async () => {
    const cleaned = path.join(dir, 'cleaned')
    const ready = path.join(dir, 'trap-ready')
    // The process exits only once its child has set its trap.
    const script =
      `(trap 'echo cleaned > "${cleaned}"; exit 0' TERM; : > "${ready}"; while :; do sleep 0.1; done) >/dev/null 2>&1 & ` +
      `while [ ! -e "${ready}" ]; do sleep 0.05; done; echo left`
    const outcome = await runDispatch({command: '/bin/sh', args: ['-c', script], cwd: dir, env: process.env, prompt: '', signal: new AbortController().signal})
    expect(outcome).to.include({exitCode: 0, stdout: 'left\n'})
    await eventually(async () => (await readFile(cleaned, 'utf8').catch(() => '')) === 'cleaned\n')
  })

  it('says clearly when the command is not installed', async () => {
    const error = await runDispatch({command: path.join(dir, 'no-such-codex'), args: [], cwd: dir, env: {}, prompt: '', signal: new AbortController().signal}).catch(
      (caught: unknown) => caught,
    )
    expect(error).to.be.instanceOf(DispatchFailedError)
    expect((error as Error).message).to.contain('"no-such-codex"').and.contain('was not found').and.contain('Install the Codex CLI').and.not.contain(dir)
  })
})

describe('the dispatch limiter', () => {
  it('hands out at most max slots and serves waiters in order', async () => {
    const limiter = createDispatchLimiter(2)
    const never = new AbortController().signal
    const first = await limiter.acquire(never)
    await limiter.acquire(never)
    const order: number[] = []
    const third = limiter.acquire(never).then((release) => (order.push(3), release))
    const fourth = limiter.acquire(never).then((release) => (order.push(4), release))
    expect(limiter.active).to.equal(2)
    expect(limiter.waiting).to.equal(2)
    first()
    first() // releasing twice frees one slot only
    await third
    expect(order).to.deep.equal([3])
    expect(limiter.waiting).to.equal(1)
    void fourth
  })

  it('drops a waiter whose call is cancelled', async () => {
    const limiter = createDispatchLimiter(1)
    const release = await limiter.acquire(new AbortController().signal)
    const controller = new AbortController()
    const waiting = limiter.acquire(controller.signal)
    controller.abort()
    expect(await waiting.catch((caught: unknown) => caught)).to.be.instanceOf(DispatchFailedError)
    expect(limiter.waiting).to.equal(0)
    release()
    expect(limiter.active).to.equal(0)
  })
})
