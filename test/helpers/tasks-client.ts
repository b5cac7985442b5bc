/**
 * The official requester of the MCP Tasks extension (`@modelcontextprotocol/ext-tasks`, published by
 * the modelcontextprotocol organisation) on the official TypeScript client
 * (`@modelcontextprotocol/client`), at the 2026-07-28 revision, over stdio or Streamable HTTP.
 *
 * The package drives the extension itself: it frames each task request's `_meta` (protocol
 * version, client info, client capabilities with `io.modelcontextprotocol/tasks`), tells a
 * CreateTaskResult from an immediate answer, follows the task with `tasks/get` at its
 * `pollIntervalMs`, checks the DetailedTask against its own schemas, and sends `tasks/cancel`.
 * It asks its host for one thing, a request path for task traffic (`rawDispatch`, "the host
 * coordinator that owns request IDs and response matching"): the SDK Client's 2026-07-28 result
 * decoder refuses `resultType: "task"` (UnsupportedResultType) as of 2.4.0. CoordinatedTransport
 * is that path: it sends on the SDK's own transport with request ids of its own and takes their
 * responses before the Client sees them.
 */
import {Client, type JSONRPCMessage, StreamableHTTPClientTransport, type Transport, type TransportSendOptions} from '@modelcontextprotocol/client'
import {StdioClientTransport} from '@modelcontextprotocol/client/stdio'
import {createTaskSessionFromClient, type RawClientDispatch, type TaskEnabledSession} from '@modelcontextprotocol/ext-tasks/client'

import {MODERN_PROTOCOL_VERSION, RUN_JS} from './clients.js'

export const TASKS_EXTENSION_ID = 'io.modelcontextprotocol/tasks'
const CLIENT_INFO = {name: 'ak-tests', version: '1.0.0'}

type Inbound = NonNullable<Transport['onmessage']>

/**
 * A Transport that hands every message to the SDK Client except the responses to requests it
 * sent itself through `dispatch`, whose ids (`task-N`, strings) the Client never uses.
 */
class CoordinatedTransport implements Transport {
  onmessage?: Inbound
  onclose?: () => void
  onerror?: (error: Error) => void
  private readonly pending = new Map<string, (message: Record<string, unknown>) => void>()
  private nextId = 0

  constructor(readonly inner: Transport) {
    inner.onmessage = (message, extra) => {
      const {id} = message as {id?: unknown}
      const waiting = typeof id === 'string' ? this.pending.get(id) : undefined
      if (waiting && ('result' in message || 'error' in message)) {
        this.pending.delete(id as string)
        waiting(message as Record<string, unknown>)
      } else this.onmessage?.(message, extra)
    }
    inner.onclose = () => this.onclose?.()
    inner.onerror = (error) => this.onerror?.(error)
  }

  get hasPerRequestStream(): boolean | undefined {
    return this.inner.hasPerRequestStream
  }

  get sessionId(): string | undefined {
    return this.inner.sessionId
  }

  start(): Promise<void> {
    return this.inner.start()
  }

  send(message: JSONRPCMessage, options?: TransportSendOptions): Promise<void> {
    return this.inner.send(message, options)
  }

  close(): Promise<void> {
    return this.inner.close()
  }

  setProtocolVersion(version: string): void {
    this.inner.setProtocolVersion?.(version)
  }

  /** ext-tasks' `rawDispatch`: sends `request` (already framed by the package) and resolves with its response. */
  readonly dispatch: RawClientDispatch = (request, options) => {
    const id = `task-${++this.nextId}`
    const message = {...(request as Record<string, unknown>), jsonrpc: '2.0', id} as JSONRPCMessage
    return new Promise((resolve, reject) => {
      const abort = () => {
        this.pending.delete(id)
        reject(options?.signal?.reason ?? new Error('aborted'))
      }
      options?.signal?.addEventListener('abort', abort, {once: true})
      this.pending.set(id, (response) => {
        options?.signal?.removeEventListener('abort', abort)
        resolve(
          'error' in response
            ? {kind: 'error', error: response.error as {code: number; message: string}}
            : {kind: 'result', result: response.result as never},
        )
      })
      this.inner.send(message).catch((error: unknown) => {
        this.pending.delete(id)
        reject(error as Error)
      })
    })
  }
}

/** One connection: the SDK Client and, when it declares the extension, the ext-tasks session on it. */
export interface TasksConnection {
  client: Client
  /** Set when the connection declares the extension; undefined for a plain client. */
  session: TaskEnabledSession | undefined
  /** The server process's pid (stdio), -1 over HTTP. */
  pid: number
  close(): Promise<void>
}

async function connect(inner: Transport, declares: boolean, pid: () => number): Promise<TasksConnection> {
  const transport = new CoordinatedTransport(inner)
  const extension = {extensions: {[TASKS_EXTENSION_ID]: {}}}
  const capabilities = declares ? extension : {}
  const client = new Client(CLIENT_INFO, {capabilities, versionNegotiation: {mode: {pin: MODERN_PROTOCOL_VERSION}}})
  await client.connect(transport)
  const session = declares
    ? createTaskSessionFromClient(client, {
        endpointId: 'ak-exec',
        rawDispatch: transport.dispatch,
        v2RequestFraming: {protocolVersion: MODERN_PROTOCOL_VERSION, clientInfo: CLIENT_INFO, clientCapabilities: extension},
      })
    : undefined
  return {
    client,
    session,
    pid: pid(),
    async close() {
      await session?.close()
      await client.close()
    },
  }
}

/**
 * Starts `ak <args>` (default: `exec serve` of `workspace` at level terminal) in `workspace` and
 * connects over stdio, declaring the extension or not; `env` is added to this process's environment.
 */
export function connectTasksStdio(
  workspace: string,
  declares = true,
  options: {args?: string[]; env?: Record<string, string>} = {},
): Promise<TasksConnection> {
  const args = options.args ?? ['exec', 'serve', '--workspace', workspace, '--level', 'terminal', '--quiet']
  const inner = new StdioClientTransport({
    command: process.execPath,
    args: [RUN_JS, ...args],
    cwd: workspace,
    env: {...(process.env as Record<string, string>), ...options.env},
    stderr: 'ignore',
  })
  return connect(inner, declares, () => inner.pid ?? -1)
}

/** Connects to an `ak exec serve --http` endpoint (stateless, 2026-07-28), declaring the extension or not. */
export function connectTasksHttp(url: string, token: string, declares = true): Promise<TasksConnection> {
  const inner = new StreamableHTTPClientTransport(new URL(url), {requestInit: {headers: {authorization: `Bearer ${token}`}}})
  return connect(inner, declares, () => -1)
}
