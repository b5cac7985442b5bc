/**
 * One MCP server driven over stdio by the official TypeScript client (1.x line,
 * `@modelcontextprotocol/sdk`), the same way for ak and for every peer.
 */
import {Client} from '@modelcontextprotocol/sdk/client/index.js'
import {StdioClientTransport} from '@modelcontextprotocol/sdk/client/stdio.js'
import {readFileSync} from 'node:fs'
import {performance} from 'node:perf_hooks'
import type {Readable} from 'node:stream'

/** How to start a server: the executable, its arguments, and extra environment. */
export interface ServerLine {
  command: string
  args: string[]
  cwd?: string
  env?: Record<string, string>
}

/** A tool as the server lists it. */
export interface ListedTool {
  name: string
  inputSchema: {properties?: Record<string, unknown>}
}

/** A tool call's answer: the text blocks joined, and whether the server flagged an error. */
export interface CallAnswer {
  text: string
  isError: boolean
  structured: Record<string, unknown> | undefined
}

/** A connected server. */
export interface McpServer {
  pid: number
  /** Wall time from spawn to the `initialize` answer (the client's connect), in ms. */
  initializeMs: number
  tools: ListedTool[]
  call(name: string, args: Record<string, unknown>, timeoutMs?: number): Promise<CallAnswer>
  /** Peak resident set size of the server process so far (`VmHWM`), in bytes; undefined when unreadable. */
  peakRssBytes(): number | undefined
  /** Resident set size of the server process now (`VmRSS`), in bytes; undefined when unreadable. */
  rssBytes(): number | undefined
  /** The last few kilobytes the server wrote on stderr. */
  stderrTail(): string
  close(): Promise<void>
}

const STDERR_KEPT_BYTES = 8192
const DEFAULT_CALL_TIMEOUT_MS = 600_000

/** Reads `VmHWM` (peak resident set size) of a process from /proc (Linux), in bytes. */
export function peakRssOf(pid: number): number | undefined {
  return statusFieldBytes(pid, 'VmHWM')
}

/** Reads `VmRSS` (resident set size now) of a process from /proc (Linux), in bytes. */
export function rssOf(pid: number): number | undefined {
  return statusFieldBytes(pid, 'VmRSS')
}

function statusFieldBytes(pid: number, field: string): number | undefined {
  try {
    const status = readFileSync(`/proc/${pid}/status`, 'utf8')
    const match = new RegExp(`^${field}:\\s+(\\d+)\\s+kB`, 'm').exec(status)
    return match ? Number(match[1]) * 1024 : undefined
  } catch {
    return undefined
  }
}

/**
 * Spawns a server and answers once `initialize` has been answered (and `initialized` sent).
 * @throws Error when the server does not start or does not answer `initialize`
 */
export async function connectServer(line: ServerLine, options: {listTools?: boolean} = {}): Promise<McpServer> {
  const transport = new StdioClientTransport({
    command: line.command,
    args: line.args,
    cwd: line.cwd,
    env: {...(process.env as Record<string, string>), ...line.env},
    stderr: 'pipe',
  })
  let stderr = ''
  ;(transport.stderr as Readable | null)?.on('data', (chunk: Buffer) => {
    stderr = (stderr + chunk.toString()).slice(-STDERR_KEPT_BYTES)
  })
  const client = new Client({name: 'ak-bench', version: '1.0.0'})
  const started = performance.now()
  try {
    await client.connect(transport, {timeout: 30_000})
  } catch (error) {
    await transport.close().catch(() => {})
    throw new Error(`${line.command} ${line.args.join(' ')} did not answer initialize: ${(error as Error).message}\n${stderr}`)
  }
  const initializeMs = performance.now() - started
  const pid = transport.pid ?? -1
  let tools: ListedTool[] = []
  if (options.listTools !== false) tools = (await client.listTools()).tools as ListedTool[]
  return {
    pid,
    initializeMs,
    tools,
    async call(name, args, timeoutMs = DEFAULT_CALL_TIMEOUT_MS) {
      const raw = (await client.callTool({name, arguments: args}, undefined, {timeout: timeoutMs})) as {
        content?: Array<{type: string; text?: string}>
        isError?: boolean
        structuredContent?: Record<string, unknown>
      }
      const text = (raw.content ?? []).filter((block) => block.type === 'text').map((block) => block.text ?? '').join('')
      return {text, isError: raw.isError === true, structured: raw.structuredContent}
    },
    peakRssBytes: () => peakRssOf(pid),
    rssBytes: () => rssOf(pid),
    stderrTail: () => stderr,
    async close() {
      await client.close().catch(() => {})
    },
  }
}
