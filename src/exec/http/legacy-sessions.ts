import {type McpServer, WebStandardStreamableHTTPServerTransport} from '@modelcontextprotocol/server'
import {randomBytes} from 'node:crypto'

import {createExecConnection} from '../runtime.js'
import {createExecServer} from '../serving/server.js'
import type {ExecConnection, ExecRuntime} from '../context.js'
import {jsonRpcErrorResponse} from './error-response.js'

/**
 * Most 2025-era HTTP sessions open at once (256). Each holds an MCP server instance and its
 * commands, so past this a new `initialize` is answered 503 until a session ends (DELETE or idle
 * expiry). Change it with the library's `maxSessions` option.
 */
export const HTTP_MAX_SESSIONS = 256

/** Why a 2025-era session ended. */
export type SessionEndReason = 'deleted' | 'expired' | 'closed'

interface LegacySession {
  /** Set once the `initialize` request succeeded. */
  id: string | undefined
  transport: WebStandardStreamableHTTPServerTransport
  server: McpServer
  connection: ExecConnection & {close(): Promise<void>}
  /** POST and DELETE requests being answered. */
  activeRequests: number
  /** GET event streams open: a client holding one is there, even without requests. */
  openStreams: number
  idleTimer: NodeJS.Timeout | undefined
  ending: Promise<void> | undefined
}

/**
 * The 2025-era half of the HTTP endpoint (DESIGN §4.6): each client that opens with `initialize`
 * gets an `Mcp-Session-Id` session with its own MCP server instance and its own connection, so
 * its command sessions belong to it alone. A session ends on DELETE, after `idleMs` with no
 * request and no open GET event stream (counted from the end of the last one, commands running or
 * not: a client that vanished without DELETE has closed its stream too), or on `close()`;
 * ending it closes its connection, which stops every command it still runs.
 *
 * Requests carrying an unknown session id are answered 404 (MCP Streamable HTTP, 2025-11-25:
 * the client must then start a new session). The id routes requests; it never authenticates.
 */
export class LegacySessions {
  private readonly sessions = new Map<string, LegacySession>()
  private closed = false

  constructor(
    private readonly runtime: ExecRuntime,
    private readonly options: {idleMs: number; maxBodyBytes: number; maxSessions: number},
  ) {}

  /** Sessions being opened (their `initialize` not answered yet): they count against the limit. */
  private opening = 0

  /** Serves one 2025-era request (POST, GET or DELETE). */
  async handle(request: Request): Promise<Response> {
    if (this.closed) return jsonRpcErrorResponse(503, SHUTTING_DOWN)
    const id = request.headers.get('mcp-session-id')
    if (id === null) {
      if (!(await opensSession(request))) return jsonRpcErrorResponse(400, noSessionMessage(request.method))
      return this.open(request)
    }
    const session = this.sessions.get(id)
    if (!session) {
      return jsonRpcErrorResponse(
        404,
        'Session not found: it was ended by DELETE, expired after ' +
          `${Math.round(this.options.idleMs / 1000)} s without a request, or never existed. Start a new session with initialize.`,
      )
    }
    return this.serve(session, request)
  }

  /** Ends every session, stopping their commands. */
  async close(): Promise<void> {
    this.closed = true
    await Promise.all([...this.sessions.values()].map((session) => this.end(session, 'closed')))
  }

  private async open(request: Request): Promise<Response> {
    const {maxSessions, idleMs} = this.options
    if (this.sessions.size + this.opening >= maxSessions) {
      this.runtime.log.warn(`HTTP session refused: ${maxSessions} sessions are open, the most allowed`)
      return jsonRpcErrorResponse(
        503,
        `Too many sessions: ${maxSessions} are open, the most this server allows. Idle sessions expire after ` +
          `${Math.round(idleMs / 1000)} s without a request; end sessions you no longer use with DELETE, then initialize again.`,
      )
    }
    this.opening++
    try {
      return await this.openSession(request)
    } finally {
      this.opening--
    }
  }

  private async openSession(request: Request): Promise<Response> {
    const connection = createExecConnection()
    const server = createExecServer(this.runtime, connection)
    const session: LegacySession = {
      id: undefined,
      server,
      connection,
      activeRequests: 0,
      openStreams: 0,
      idleTimer: undefined,
      ending: undefined,
      transport: new WebStandardStreamableHTTPServerTransport({
        sessionIdGenerator: () => randomBytes(18).toString('base64url'),
        // Plain JSON answers: a POST is finished when its answer is, which is what idle expiry counts from.
        enableJsonResponse: true,
        maxRequestBodySize: this.options.maxBodyBytes,
        onsessioninitialized: (id) => {
          session.id = id
          this.sessions.set(id, session)
          this.runtime.log.info(`HTTP session ${shortId(id)} opened`)
        },
        onsessionclosed: () => this.end(session, 'deleted'),
      }),
    }
    server.server.onclose = () => this.endInBackground(session, 'closed')
    await server.connect(session.transport)
    const response = await this.serve(session, request)
    // Anything but a successful initialize leaves no session behind.
    if (session.id === undefined) await this.end(session, 'closed')
    return response
  }

  private async serve(session: LegacySession, request: Request): Promise<Response> {
    const counts = request.method !== 'GET'
    clearTimeout(session.idleTimer)
    if (counts) session.activeRequests++
    const cancelOnAbort = request.method === 'POST' ? await this.cancellingOnAbort(session, request) : undefined
    try {
      const response = await session.transport.handleRequest(request)
      // The SDK's 409 names the rule but not what to do.
      if (request.method === 'GET' && response.status === 409) return jsonRpcErrorResponse(409, SECOND_EVENT_STREAM)
      if (request.method === 'GET' && response.ok && response.body) return this.heldWhileOpen(session, response)
      return response
    } finally {
      if (cancelOnAbort) request.signal.removeEventListener('abort', cancelOnAbort)
      if (counts) session.activeRequests--
      this.armIdleTimer(session)
    }
  }

  /** Starts the idle expiry once the session has no request being answered and no open stream. */
  private armIdleTimer(session: LegacySession): void {
    if (session.activeRequests > 0 || session.openStreams > 0 || session.ending || session.id === undefined) return
    clearTimeout(session.idleTimer)
    session.idleTimer = setTimeout(() => this.endInBackground(session, 'expired'), this.options.idleMs)
    session.idleTimer.unref()
  }

  /** `response` (a GET event stream) counted as the session's activity until it ends or its client goes away. */
  private heldWhileOpen(session: LegacySession, response: Response): Response {
    const reader = response.body!.getReader()
    session.openStreams++
    clearTimeout(session.idleTimer)
    let held = true
    const release = () => {
      if (!held) return
      held = false
      session.openStreams--
      this.armIdleTimer(session)
    }
    const body = new ReadableStream<Uint8Array>({
      async pull(controller) {
        try {
          const {done, value} = await reader.read()
          if (done) {
            release()
            controller.close()
          } else controller.enqueue(value)
        } catch (error) {
          release()
          controller.error(error)
        }
      },
      cancel(reason) {
        release()
        return reader.cancel(reason)
      },
    })
    return new Response(body, {status: response.status, statusText: response.statusText, headers: response.headers})
  }

  /**
   * Makes an aborted POST cancel the requests it carried, as a stateless request's abort does: the
   * answer (plain JSON on that POST) can no longer reach the client, so an `exec_command` would
   * otherwise run on under an id nobody received. The cancellation is delivered to the session's
   * server as the client's own `notifications/cancelled` would be.
   * @returns the listener added to the request's signal, to remove once answered.
   */
  private async cancellingOnAbort(session: LegacySession, request: Request): Promise<(() => void) | undefined> {
    let body: unknown
    try {
      body = await request.clone().json()
    } catch {
      return undefined // the transport answers what it cannot parse
    }
    const ids = (Array.isArray(body) ? body : [body]).flatMap((message: {id?: unknown; method?: unknown}) =>
      typeof message?.method === 'string' && (typeof message.id === 'string' || typeof message.id === 'number') ? [message.id] : [],
    )
    if (ids.length === 0) return undefined
    const cancel = () => {
      for (const requestId of ids) {
        session.transport.onmessage?.({
          jsonrpc: '2.0',
          method: 'notifications/cancelled',
          params: {requestId, reason: 'The client closed the HTTP request before the answer.'},
        })
      }
    }
    request.signal.addEventListener('abort', cancel, {once: true})
    return cancel
  }

  /** end() where nothing awaits it (a timer, the server's onclose): a failure is logged, never unhandled. */
  private endInBackground(session: LegacySession, reason: SessionEndReason): void {
    this.end(session, reason).catch((error: Error) => this.runtime.log.warn(`ending HTTP session ${shortId(session.id ?? '')} failed: ${error.message}`))
  }

  private end(session: LegacySession, reason: SessionEndReason): Promise<void> {
    if (session.ending) return session.ending
    // Marked as ending before anything runs: closing the server calls back here (its onclose).
    session.ending = Promise.resolve().then(async () => {
      await session.connection.close()
      await session.server.close().catch(() => undefined)
    })
    clearTimeout(session.idleTimer)
    if (session.id !== undefined) {
      this.sessions.delete(session.id)
      this.runtime.log.info(`HTTP session ${shortId(session.id)} ended (${reason})`)
    }
    return session.ending
  }
}

/** The answer to any request once `close()` has begun. */
export const SHUTTING_DOWN = 'Service unavailable: the server is shutting down and takes no more requests. Connect again once it has been restarted.'

const SECOND_EVENT_STREAM =
  'Conflict: this session already has its GET event stream open, and a session has only one. Close that stream ' +
  'before opening another (a dropped one is released as soon as its connection closes), or send requests by POST, ' +
  'which carry their own answers.'

/** Why a request without `Mcp-Session-Id` that is not `initialize` is refused, and what to send instead. */
function noSessionMessage(method: string): string {
  return (
    `Bad Request: this ${method} carries no Mcp-Session-Id header, and only initialize opens a session. ` +
    'Send initialize first (a POST without the header), then send the Mcp-Session-Id header from its answer ' +
    'with every later request. A 2026-07-28 request (protocol version in params._meta) needs no session.'
  )
}

/**
 * Whether a request without a session id may open one: a POST whose body holds an `initialize`
 * request. A POST whose body is not JSON also goes on, so that the transport answers it with its
 * parse error.
 */
async function opensSession(request: Request): Promise<boolean> {
  if (request.method !== 'POST') return false
  let body: unknown
  try {
    body = await request.clone().json()
  } catch {
    return true
  }
  return (Array.isArray(body) ? body : [body]).some((message: {method?: unknown}) => message?.method === 'initialize')
}

function shortId(id: string): string {
  return id.slice(0, 8)
}
