/**
 * A real client process between a test and a stdio server: it runs the built `ak` under `sh`
 * (which records ak's exit code in a file), relays the test's lines to ak's stdin and ak's
 * stdout back, and can be killed with SIGKILL like a crashed MCP client.
 */
import {type ChildProcessWithoutNullStreams, spawn} from 'node:child_process'
import {mkdtemp, readFile, rm, writeFile} from 'node:fs/promises'
import {tmpdir} from 'node:os'
import path from 'node:path'
import {createInterface} from 'node:readline'

import {RUN_JS} from './clients.js'
import {eventually} from './codex-fixtures.js'

const RELAY_SOURCE = `
import {spawn} from 'node:child_process'
const [exitFile, ...args] = process.argv.slice(2)
const child = spawn('sh', ['-c', '"$@" 2>"$0.stderr"; echo $? > "$0"', exitFile, process.execPath, ...args], {stdio: ['pipe', 'pipe', 'inherit']})
child.stdin.on('error', () => {})
process.stdin.pipe(child.stdin)
child.stdout.pipe(process.stdout)
`

/** A relay process with ak behind it. */
export interface StdioRelay {
  relay: ChildProcessWithoutNullStreams
  /** Writes one JSON-RPC message as a line. */
  send(message: object): void
  /** The next JSON-RPC message from ak with this id. */
  response(id: number): Promise<Record<string, unknown>>
  /** Waits for ak to exit; resolves its exit code and stderr. */
  akExit(): Promise<{code: number; stderr: string}>
  remove(): Promise<void>
}

/** Starts the relay running `ak <args>` in `cwd` with extra `env`. */
export async function startStdioRelay(args: string[], options: {cwd: string; env?: Record<string, string>}): Promise<StdioRelay> {
  const dir = await mkdtemp(path.join(tmpdir(), 'ak-relay-'))
  const script = path.join(dir, 'relay.mjs')
  const exitFile = path.join(dir, 'exit')
  await writeFile(script, RELAY_SOURCE)
  const relay = spawn(process.execPath, [script, exitFile, RUN_JS, ...args], {cwd: options.cwd, env: {...process.env, ...options.env}, stdio: ['pipe', 'pipe', 'pipe']})
  const messages: Array<Record<string, unknown>> = []
  createInterface({input: relay.stdout}).on('line', (line) => messages.push(JSON.parse(line) as Record<string, unknown>))
  return {
    relay,
    send: (message) => relay.stdin.write(`${JSON.stringify(message)}\n`),
    async response(id) {
      await eventually(() => messages.some((message) => message.id === id))
      return messages.find((message) => message.id === id) as Record<string, unknown>
    },
    async akExit() {
      let code = ''
      await eventually(async () => {
        code = await readFile(exitFile, 'utf8').catch(() => '')
        return code.endsWith('\n')
      })
      return {code: Number(code.trim()), stderr: await readFile(`${exitFile}.stderr`, 'utf8')}
    },
    async remove() {
      relay.kill('SIGKILL')
      await rm(dir, {recursive: true, force: true})
    },
  }
}

/** Opens a 2025-era session through the relay (initialize + initialized). */
export async function initializeThrough(relay: StdioRelay): Promise<void> {
  relay.send({jsonrpc: '2.0', id: 1, method: 'initialize', params: {protocolVersion: '2025-06-18', capabilities: {}, clientInfo: {name: 'relay', version: '1'}}})
  await relay.response(1)
  relay.send({jsonrpc: '2.0', method: 'notifications/initialized'})
}

/** A JSON-RPC request (id 99) longer than the 10 MiB a message may have on stdio. */
export const OVERLONG_LINE = `${JSON.stringify({jsonrpc: '2.0', id: 99, method: 'tools/list', params: {pad: 'x'.repeat(11 * 1024 * 1024)}})}\n`
