import {expect} from 'chai'
import {spawn} from 'node:child_process'
import {mkdtemp, rm} from 'node:fs/promises'
import {tmpdir} from 'node:os'
import path from 'node:path'

import {RUN_JS} from '../helpers/clients.js'
import {isAlive, waitUntilGone} from '../helpers/processes.js'
import {OVERLONG_LINE, type StdioRelay, initializeThrough, startStdioRelay} from '../helpers/stdio-relay.js'

/** Starts `sleep 300` through exec_command over the relay and returns its pid. */
async function startSleepThrough(relay: StdioRelay): Promise<number> {
  relay.send({
    jsonrpc: '2.0',
    id: 2,
    method: 'tools/call',
    params: {name: 'exec_command', arguments: {cmd: 'echo "pid=$$"; exec sleep 300', yield_time_ms: 2000}},
  })
  const answer = JSON.stringify(await relay.response(2))
  const pid = Number(/pid=(\d+)/.exec(answer)?.[1])
  expect(pid, answer).to.be.above(0)
  expect(isAlive(pid)).to.equal(true)
  return pid
}

describe('ak exec serve over stdio, when the client or the transport goes away', () => {
  let workspace: string
  let relay: StdioRelay | undefined

  before(async () => {
    workspace = await mkdtemp(path.join(tmpdir(), 'ak-stdio-end-'))
  })
  afterEach(async () => {
    await relay?.remove()
    relay = undefined
  })
  after(() => rm(workspace, {recursive: true, force: true}))

  const serve = ['exec', 'serve', '--level', 'terminal', '--workspace']

  it('exits 0 and stops its commands when the client process is killed with SIGKILL', async () => {
    relay = await startStdioRelay([...serve, workspace], {cwd: workspace})
    await initializeThrough(relay)
    const pid = await startSleepThrough(relay)
    relay.relay.kill('SIGKILL')
    const {code, stderr} = await relay.akExit()
    expect(code, stderr).to.equal(0)
    expect(await waitUntilGone(pid)).to.equal(true)
  })

  it('exits 0 when the client is killed before any call', async () => {
    relay = await startStdioRelay([...serve, workspace], {cwd: workspace})
    await initializeThrough(relay)
    relay.relay.kill('SIGKILL')
    const {code, stderr} = await relay.akExit()
    expect(code, stderr).to.equal(0)
  })

  it('answers a line over 10 MiB with an error and keeps serving, its commands still running', async () => {
    relay = await startStdioRelay([...serve, workspace], {cwd: workspace})
    await initializeThrough(relay)
    const pid = await startSleepThrough(relay)
    relay.relay.stdin.write(OVERLONG_LINE)
    const answer = (await relay.response(99)) as {error?: {code: number; message: string}}
    expect(answer.error?.code).to.equal(-32_600)
    expect(answer.error?.message).to.contain('Request too large')
    expect(isAlive(pid)).to.equal(true)
    relay.relay.kill('SIGKILL')
    const {code, stderr} = await relay.akExit()
    expect(code, stderr).to.equal(0)
    expect(stderr).to.match(/rejected a message of \d+ bytes \(id 99\)/)
    expect(await waitUntilGone(pid)).to.equal(true)
  })
})

describe('ak writing to a pipe its reader closed early', () => {
  it('exits 0 for `ak help exec serve` whose stdout reader is gone', async () => {
    const child = spawn(process.execPath, [RUN_JS, 'help', 'exec', 'serve'], {stdio: ['ignore', 'pipe', 'pipe']})
    child.stdout.destroy()
    let stderr = ''
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()))
    const code = await new Promise<number | null>((resolve) => child.on('exit', resolve))
    expect(code, stderr).to.equal(0)
    expect(stderr).to.equal('')
  })
})

describe('ak exec serve over stdio, when its input ends with calls still being answered', () => {
  it('writes the answer of every call sent before the end, then exits 0', async () => {
    const workspace = await mkdtemp(path.join(tmpdir(), 'ak-stdio-piped-'))
    try {
      const lines = [
        {jsonrpc: '2.0', id: 1, method: 'initialize', params: {protocolVersion: '2025-06-18', capabilities: {}, clientInfo: {name: 'piped', version: '1'}}},
        {jsonrpc: '2.0', method: 'notifications/initialized'},
        {jsonrpc: '2.0', id: 2, method: 'tools/call', params: {name: 'list', arguments: {}}},
        {jsonrpc: '2.0', id: 3, method: 'tools/call', params: {name: 'exec_command', arguments: {cmd: 'sleep 0.3; echo done', yield_time_ms: 5000}}},
        {jsonrpc: '2.0', id: 4, method: 'tools/call', params: {name: 'search', arguments: {query: 'nothing-here'}}},
      ]
      // As `… < requests.jsonl` or a pipe from a script sends them: everything, then the end.
      const server = spawn(process.execPath, [RUN_JS, 'exec', 'serve', '--level', 'terminal', '--workspace', workspace], {stdio: ['pipe', 'pipe', 'pipe']})
      let stdout = ''
      server.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()))
      server.stdin.end(lines.map((line) => `${JSON.stringify(line)}\n`).join(''))
      const code = await new Promise<number | null>((resolve) => server.once('exit', resolve))
      expect(code).to.equal(0)
      const answered = stdout.trim().split('\n').map((line) => (JSON.parse(line) as {id: number}).id)
      expect(answered.sort()).to.deep.equal([1, 2, 3, 4])
      expect(stdout).to.contain('done')
    } finally {
      await rm(workspace, {recursive: true, force: true})
    }
  })
})
