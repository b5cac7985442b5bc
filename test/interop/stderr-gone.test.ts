/**
 * A server whose stderr goes away (a client that closes the pipe it gave for the log, or exits
 * and leaves the server behind) keeps serving MCP on stdout and ends when stdin closes: a failed
 * log line is never logged again, in a loop, on the same broken stderr.
 */
import {expect} from 'chai'
import {type ChildProcessWithoutNullStreams, spawn} from 'node:child_process'
import {mkdtemp, rm} from 'node:fs/promises'
import {tmpdir} from 'node:os'
import path from 'node:path'
import {createInterface} from 'node:readline'

import {STANDALONE_SERVER as AGENTEXEC} from '../helpers/bundle.js'
import {RUN_JS} from '../helpers/clients.js'

/** How long a server may take to stop once stdin closed, in ms (it stops at once when well). */
const STOP_LIMIT_MS = 20_000

/** A JSON-RPC client over a child's stdin and stdout, line by line. */
function jsonLines(child: ChildProcessWithoutNullStreams) {
  const waiting = new Map<number, (message: Record<string, unknown>) => void>()
  createInterface({input: child.stdout}).on('line', (line) => {
    const message = JSON.parse(line) as Record<string, unknown>
    if (typeof message.id === 'number') waiting.get(message.id)?.(message)
  })
  return {
    request(id: number, method: string, params: Record<string, unknown>): Promise<Record<string, unknown>> {
      const answered = new Promise<Record<string, unknown>>((resolve) => waiting.set(id, resolve))
      child.stdin.write(`${JSON.stringify({jsonrpc: '2.0', id, method, params})}\n`)
      return answered
    },
    notify(method: string): void {
      child.stdin.write(`${JSON.stringify({jsonrpc: '2.0', method})}\n`)
    },
  }
}

/** Resolves the child's exit code, or 'running' when it is still running after `ms`. */
function exitWithin(child: ChildProcessWithoutNullStreams, ms: number): Promise<number | string | null> {
  return new Promise((resolve) => {
    const timer = setTimeout(() => resolve('running'), ms)
    child.on('exit', (code, signal) => {
      clearTimeout(timer)
      resolve(code ?? signal)
    })
  })
}

describe('a server whose stderr is gone', function () {
  this.timeout(60_000)
  let workspace: string
  before(async () => {
    workspace = await mkdtemp(path.join(tmpdir(), 'ak-stderr-gone-'))
  })
  after(() => rm(workspace, {recursive: true, force: true}))

  const servers: Array<[string, () => string[]]> = [
    ['ak exec serve', () => [RUN_JS, 'exec', 'serve', '--level', 'terminal', '--workspace', workspace]],
    ['dist/agentexec.js', () => [AGENTEXEC, '--level', 'terminal', '--workspace', workspace]],
  ]
  for (const [name, args] of servers) {
    it(`${name}: answers every call after its log fails, and ends with exit 0 when stdin closes`, async () => {
      const child = spawn(process.execPath, args(), {stdio: ['pipe', 'pipe', 'pipe']})
      try {
        const client = jsonLines(child)
        const initialized = await client.request(1, 'initialize', {protocolVersion: '2025-11-25', capabilities: {}, clientInfo: {name: 't', version: '1'}})
        expect(initialized.result, JSON.stringify(initialized)).to.be.an('object')
        client.notify('notifications/initialized')
        // The reading end of stderr goes away: each log line the server writes now fails (EPIPE).
        child.stderr.destroy()
        for (let id = 2; id < 6; id++) {
          const answer = await client.request(id, 'tools/call', {name: 'exec_command', arguments: {cmd: `echo call-${id}; echo to-stderr >&2`}})
          expect(JSON.stringify(answer), `call ${id}`).to.include(`call-${id}`)
        }
        child.stdin.end()
        expect(await exitWithin(child, STOP_LIMIT_MS)).to.equal(0)
      } finally {
        child.kill('SIGKILL')
      }
    })
  }
})
