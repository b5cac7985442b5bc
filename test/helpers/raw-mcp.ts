/**
 * A JSON-RPC client of its own over stdio for the MCP Tasks extension: it declares the extension
 * (or not) in each request's `_meta` (2026-07-28) or at `initialize` (2025-11-25). The tests use
 * the official clients where they can (test/helpers/tasks-client.ts); this one is kept for what
 * no official client sends, the extension declared at a 2025-era `initialize`, and for
 * bench/cases/exec-tasks.ts, which counts the bytes a client writes to the server's stdin.
 */
import {type ChildProcess, spawn} from 'node:child_process'
import readline from 'node:readline'

import {RUN_JS} from './clients.js'

export const EXTENSION = {extensions: {'io.modelcontextprotocol/tasks': {}}}
export const ERAS = ['2026-07-28', '2025-11-25'] as const
export type Era = (typeof ERAS)[number]

export interface Rpc {
  result?: Record<string, unknown>
  error?: {code: number; message: string; data?: unknown}
}

/** One stdio connection to `ak exec serve --level terminal`, declaring the extension or not. */
export class RawConnection {
  readonly notifications: Array<{method: string; params: Record<string, unknown>}> = []
  private readonly pending = new Map<number, (message: Rpc) => void>()
  private nextId = 0
  private constructor(
    readonly child: ChildProcess,
    private readonly era: Era,
    private readonly declares: boolean,
  ) {
    readline.createInterface({input: child.stdout!}).on('line', (line) => {
      const message = JSON.parse(line) as Rpc & {id?: number; method?: string; params?: Record<string, unknown>}
      if (message.id !== undefined && this.pending.has(message.id)) {
        this.pending.get(message.id)!(message)
        this.pending.delete(message.id)
      } else if (message.method) this.notifications.push({method: message.method, params: message.params ?? {}})
    })
  }

  /** Starts `ak <args>` (default: `exec serve` of `workspace` at level terminal) and opens the connection. */
  static async open(workspace: string, era: Era, declares: boolean, args?: string[], env?: Record<string, string>): Promise<RawConnection> {
    const argv = args ?? ['exec', 'serve', '--workspace', workspace, '--level', 'terminal', '--quiet']
    const child = spawn(process.execPath, [RUN_JS, ...argv], {cwd: workspace, stdio: ['pipe', 'pipe', 'ignore'], env: {...process.env, ...env}})
    const connection = new RawConnection(child, era, declares)
    if (era === '2025-11-25') {
      await connection.request('initialize', {protocolVersion: era, capabilities: declares ? EXTENSION : {}, clientInfo: {name: 'ak-tests', version: '1'}})
      child.stdin!.write('{"jsonrpc":"2.0","method":"notifications/initialized"}\n')
    } else {
      await connection.request('server/discover', {})
    }
    return connection
  }

  request(method: string, params: Record<string, unknown>): Promise<Rpc> {
    const id = ++this.nextId
    const meta =
      this.era === '2026-07-28'
        ? {
            _meta: {
              'io.modelcontextprotocol/protocolVersion': this.era,
              'io.modelcontextprotocol/clientInfo': {name: 'ak-tests', version: '1'},
              'io.modelcontextprotocol/clientCapabilities': this.declares ? EXTENSION : {},
            },
          }
        : {}
    return new Promise((resolve) => {
      this.pending.set(id, resolve)
      this.child.stdin!.write(`${JSON.stringify({jsonrpc: '2.0', id, method, params: {...params, ...meta}})}\n`)
    })
  }

  async call(args: Record<string, unknown>, tool = 'exec_command'): Promise<Record<string, unknown>> {
    const reply = await this.request('tools/call', {name: tool, arguments: args})
    if (reply.error) throw new Error(`tools/call failed: ${JSON.stringify(reply.error)}`)
    return reply.result!
  }

  /** Polls tasks/get until the task ends (at most `limitMs`). */
  async settle(taskId: string, limitMs = 60_000, intervalMs = 200): Promise<Record<string, unknown>> {
    const started = Date.now()
    for (;;) {
      const reply = await this.request('tasks/get', {taskId})
      if (reply.error) throw new Error(`tasks/get failed: ${JSON.stringify(reply.error)}`)
      if (reply.result!.status !== 'working') return reply.result!
      if (Date.now() - started > limitMs) throw new Error(`task ${taskId} still working after ${limitMs} ms`)
      await new Promise((resolve) => setTimeout(resolve, intervalMs))
    }
  }

  async close(): Promise<void> {
    const exited = new Promise((resolve) => this.child.once('exit', resolve))
    this.child.stdin!.end()
    await exited
  }
}

