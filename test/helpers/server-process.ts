/**
 * A stdio server started the way a terminal starts it: `node bin/run.js <args>` leading its own
 * process group, driven with raw JSON-RPC lines, so a test can close its stdin, signal it (or its
 * whole group, as a closed terminal does) and look for survivors.
 */
import {type ChildProcessWithoutNullStreams, spawn} from 'node:child_process'
import {readFileSync, readdirSync} from 'node:fs'
import {createInterface} from 'node:readline'

import {RUN_JS} from './clients.js'
import {eventually} from './codex-fixtures.js'

/** A running server process and its JSON-RPC traffic. */
export interface ServerProcess {
  child: ChildProcessWithoutNullStreams
  /** Writes one JSON-RPC message as a line. */
  send(message: object): void
  /** Writes raw text to stdin. */
  write(text: string): void
  /** The first message from the server with this id. */
  response(id: number | string | null): Promise<Record<string, unknown>>
  /** Every message received so far. */
  messages(): Array<Record<string, unknown>>
  stderr(): string
  /** Resolves with the exit code (or the signal) once the process exited, or undefined after `limitMs`. */
  exited(limitMs?: number): Promise<{code: number | null; signal: NodeJS.Signals | null} | undefined>
}

/** Starts `node bin/run.js <args>` as the leader of a new process group. */
export function startServerProcess(args: string[], options: {cwd: string; env?: Record<string, string>}): ServerProcess {
  const child = spawn(process.execPath, [RUN_JS, ...args], {
    cwd: options.cwd,
    env: {...process.env, ...options.env},
    stdio: ['pipe', 'pipe', 'pipe'],
    detached: true,
  })
  const received: Array<Record<string, unknown>> = []
  let stderr = ''
  child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()))
  child.stdin.on('error', () => undefined)
  createInterface({input: child.stdout}).on('line', (line) => received.push(JSON.parse(line) as Record<string, unknown>))
  const exit = new Promise<{code: number | null; signal: NodeJS.Signals | null}>((resolve) =>
    child.once('exit', (code, signal) => resolve({code, signal})),
  )
  return {
    child,
    send: (message) => child.stdin.write(`${JSON.stringify(message)}\n`),
    write: (text) => child.stdin.write(text),
    async response(id) {
      await eventually(() => received.some((message) => message.id === id))
      return received.find((message) => message.id === id)!
    },
    messages: () => [...received],
    stderr: () => stderr,
    exited: (limitMs = 20_000) =>
      Promise.race([exit, new Promise<undefined>((resolve) => setTimeout(() => resolve(undefined), limitMs).unref())]),
  }
}

/** Opens a 2025-era MCP session (initialize + initialized) on a raw server process. */
export async function initializeRaw(server: ServerProcess): Promise<void> {
  server.send({jsonrpc: '2.0', id: 'init', method: 'initialize', params: {protocolVersion: '2025-06-18', capabilities: {}, clientInfo: {name: 'raw', version: '1'}}})
  await server.response('init')
  server.send({jsonrpc: '2.0', method: 'notifications/initialized'})
}

/** Pids of live processes whose command line contains `marker` (a unique argument the test chose). */
export function pidsRunning(marker: string): number[] {
  const pids: number[] = []
  for (const name of readdirSync('/proc')) {
    if (!/^\d+$/.test(name)) continue
    try {
      const cmdline = readFileSync(`/proc/${name}/cmdline`, 'latin1').split('\0').join(' ')
      const stat = readFileSync(`/proc/${name}/stat`, 'latin1')
      if (cmdline.includes(marker) && stat.slice(stat.lastIndexOf(')') + 2)[0] !== 'Z') pids.push(Number(name))
    } catch {
      // gone meanwhile
    }
  }
  return pids
}

/** Pids of live processes in process group `pgid`. */
export function processGroupMembers(pgid: number): number[] {
  const pids: number[] = []
  for (const name of readdirSync('/proc')) {
    if (!/^\d+$/.test(name)) continue
    try {
      const stat = readFileSync(`/proc/${name}/stat`, 'latin1')
      const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ')
      if (fields[0] !== 'Z' && Number(fields[2]) === pgid) pids.push(Number(name))
    } catch {
      // gone meanwhile
    }
  }
  return pids
}

/** SIGKILLs the given pids (a test's own leftovers), ignoring those already gone. */
export function killPids(pids: number[]): void {
  for (const pid of pids) {
    try {
      process.kill(pid, 'SIGKILL')
    } catch {
      // gone
    }
  }
}
