import {createMcpHandler, isLegacyRequest} from '@modelcontextprotocol/server'

import {keepProtoArgumentsInText} from '../../mcp/proto-argument.js'
import {HTTP_MAX_BODY_BYTES, HTTP_SESSION_IDLE_MS} from '../limits.js'
import {createExecConnection} from '../runtime.js'
import {createExecServer} from '../serving/server.js'
import type {ExecRuntime} from '../context.js'
import {jsonRpcErrorResponse} from './error-response.js'
import {HTTP_MAX_SESSIONS, LegacySessions, SHUTTING_DOWN} from './legacy-sessions.js'

/** Tuning of the HTTP endpoint; the defaults are the documented limits. */
export interface McpEndpointOptions {
  /** Largest request body read, in bytes (default HTTP_MAX_BODY_BYTES); bigger → 413. */
  maxBodyBytes?: number
  /** Idle time after which a 2025-era session expires, in ms (default HTTP_SESSION_IDLE_MS). */
  sessionIdleMs?: number
  /** Most 2025-era sessions open at once (default HTTP_MAX_SESSIONS); past it `initialize` → 503. */
  maxSessions?: number
}

/** AgentExec's MCP endpoint as a web-standard handler, for both protocol eras. */
export interface McpEndpoint {
  /** Serves one HTTP request (any path: routing is the caller's). */
  fetch(request: Request): Promise<Response>
  /** Ends every session and stops every command started through this endpoint. */
  close(): Promise<void>
}

/**
 * Creates the MCP endpoint (DESIGN §4.6). A 2026-07-28 request is served statelessly by a fresh
 * server instance; all of them share one connection without id, so there a command's session id
 * is the capability that reaches it. A 2025-era request goes to `LegacySessions`, where each
 * client gets its own session and connection. The SDK's `isLegacyRequest` makes the split, the
 * same way its own `createMcpHandler` would.
 *
 * No authentication or Host/Origin check happens here: callers do that first.
 */
export function createMcpEndpoint(runtime: ExecRuntime, options: McpEndpointOptions = {}): McpEndpoint {
  const maxBodyBytes = options.maxBodyBytes ?? HTTP_MAX_BODY_BYTES
  const statelessConnection = createExecConnection(true)
  // Rejected requests are the client's mistake, reported for operators like any other request line.
  const onerror = (error: Error) => runtime.log.info(`MCP over HTTP: ${error.message}`)
  const modern = createMcpHandler(() => createExecServer(runtime, statelessConnection), {
    legacy: 'reject',
    maxRequestBodySize: maxBodyBytes,
    onerror,
  })
  const legacy = new LegacySessions(runtime, {
    idleMs: options.sessionIdleMs ?? HTTP_SESSION_IDLE_MS,
    maxBodyBytes,
    maxSessions: options.maxSessions ?? HTTP_MAX_SESSIONS,
  })
  let closing: Promise<void> | undefined
  return {
    async fetch(request) {
      if (closing) return jsonRpcErrorResponse(503, SHUTTING_DOWN)
      request = await withProtoArgumentsKept(request, maxBodyBytes)
      let isLegacy: boolean
      try {
        isLegacy = await isLegacyRequest(request, undefined, {maxRequestBodySize: maxBodyBytes})
      } catch (error) {
        return jsonRpcErrorResponse(400, `Bad Request: the request could not be read (${(error as Error).message}). Send a JSON-RPC message as the body of a POST.`)
      }
      return isLegacy ? legacy.handle(request) : modern.fetch(request)
    },
    close() {
      closing ??= (async () => {
        await legacy.close()
        await modern.close()
        await statelessConnection.close()
      })()
      return closing
    },
  }
}

/**
 * The request with `"__proto__"` tool arguments renamed (see keepProtoArguments), or the same
 * request: also when its body is longer than `maxBodyBytes` (the SDK answers that with 413) or
 * cannot be read.
 */
async function withProtoArgumentsKept(request: Request, maxBodyBytes: number): Promise<Request> {
  if (request.method !== 'POST' || request.body === null) return request
  const text = await boundedText(request.clone(), maxBodyBytes)
  const kept = text === undefined ? undefined : keepProtoArgumentsInText(text)
  if (kept === undefined) return request
  const headers = new Headers(request.headers)
  headers.delete('content-length')
  return new Request(request, {body: kept, headers})
}

/** The body as text when it holds at most `maxBytes` bytes; undefined when longer or unreadable. */
async function boundedText(request: Request, maxBytes: number): Promise<string | undefined> {
  const reader = request.body?.getReader()
  if (!reader) return undefined
  const chunks: Uint8Array[] = []
  let length = 0
  try {
    for (;;) {
      const {done, value} = await reader.read()
      if (done) break
      length += value.byteLength
      if (length > maxBytes) {
        await reader.cancel()
        return undefined
      }
      chunks.push(value)
    }
  } catch {
    return undefined
  }
  return Buffer.concat(chunks).toString('utf8')
}
