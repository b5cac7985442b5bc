import type {IncomingMessage, ServerResponse} from 'node:http'

import {escapeControls} from '../../text-escape.js'
import {HTTP_MAX_BODY_BYTES} from '../limits.js'
import type {ExecRuntime} from '../context.js'
import {TOKEN_ENV, bearerTokenStatus} from './bearer-token.js'
import {writeJsonRpcError} from './error-response.js'
import {type McpEndpointOptions, createMcpEndpoint} from './mcp-endpoint.js'
import {SEND_LESS, toNodeBridge} from './node-bridge.js'
import {type RequestOriginRules, refusedOrigin} from './request-origin.js'
import {parseRequestTarget} from './request-target.js'

/** How a Node HTTP handler guards the endpoint. */
export interface ExecHttpHandlerOptions extends McpEndpointOptions {
  /** Host/Origin rules; a request breaking them gets 403 before anything else is looked at. */
  origins: RequestOriginRules
  /** When set, every request must carry `Authorization: Bearer <token>` (else 401). */
  token?: string
  /** When set, only this path is served (else 404); unset, any path the host routes here. */
  path?: string
}

/** AgentExec as a Node `(req, res)` handler. */
export interface ExecHttpHandler {
  /**
   * Serves one request. `parsedBody` is for hosts whose body parser already read the stream
   * (e.g. `express.json()`); the size limit then is theirs.
   */
  handle(req: IncomingMessage, res: ServerResponse, parsedBody?: unknown): Promise<void>
  /** Ends every session and stops every command; later requests get 503. */
  close(): Promise<void>
}

// A refused request's body is never read; closing the connection keeps Node from draining it.
const REFUSAL_HEADERS = {connection: 'close'}

/**
 * A body declared too big but at most this many times the limit is read and discarded after the
 * 413, so that a client still sending it reads the answer instead of a broken pipe; a bigger one
 * gets the 413 and a closed connection.
 */
const DRAIN_FACTOR = 16

/**
 * The answers to a request without the server's bearer token, each with a body naming the
 * variable that holds it. No token at all: 401 with `WWW-Authenticate: Bearer realm="ak"`, as
 * RFC 9110 §11.6.1 and RFC 6750 §3 ask. A wrong one (any `Authorization` header that is not
 * `Bearer <the token>`): 403 without a challenge (RFC 9110 §15.5.4: credentials were given and
 * are not enough). A 401, or any challenge, sends clients into an OAuth login ak does not have:
 * Codex reports only "Auth required" (its HTTP client turns a 401 with `WWW-Authenticate` into
 * `AuthRequired`, dropping the body), and the TypeScript SDK with an OAuth provider, as the MCP
 * Inspector runs it, starts OAuth discovery on every 401. On a 403 without a challenge Codex
 * shows the body's JSON-RPC error ("JSON-RPC error: -32000: Forbidden: … AGENTEXEC_TOKEN …"), and
 * the TypeScript clients keep the body in their error.
 */
export const TOKEN_REFUSAL = {
  missing: {
    status: 401,
    message: `Unauthorized: the request has no "Authorization: Bearer <token>" header. Send the token the server was started with (the value of ${TOKEN_ENV}); ak has no OAuth login.`,
    headers: {'www-authenticate': 'Bearer realm="ak"'},
  },
  wrong: {
    status: 403,
    message: `Forbidden: the bearer token is not the one the server was started with. Send "Authorization: Bearer <token>" with the value of ${TOKEN_ENV} the server runs with.`,
    headers: {},
  },
} as const satisfies Record<'missing' | 'wrong', {status: number; message: string; headers: Record<string, string>}>

/**
 * Wraps the MCP endpoint for `node:http` with the checks of DESIGN §4.6, in this order:
 * the request target (an origin-form path or an absolute-form http URL, else 400), Host/Origin
 * (403, token or not; an absolute-form target's authority is checked as a Host), then the bearer token if one is required
 * (TOKEN_REFUSAL: 401 without one, 403 for a wrong one), then the path (404), then the body size (413, before parsing; a
 * body without a declared length is cut off at the limit while it streams).
 */
export function createExecHttpHandler(runtime: ExecRuntime, options: ExecHttpHandlerOptions): ExecHttpHandler {
  const maxBodyBytes = options.maxBodyBytes ?? HTTP_MAX_BODY_BYTES
  const endpoint = createMcpEndpoint(runtime, options)
  const serve = toNodeBridge((request) => endpoint.fetch(request), {
    maxBodyBytes,
    onerror: (error) => runtime.log.warn(`HTTP request failed: ${error.message}`),
  })
  return {
    async handle(req, res, parsedBody) {
      const target = parseRequestTarget(req.url)
      if (!target) {
        const shown = escapeControls(JSON.stringify(req.url ?? '').slice(0, 200))
        runtime.log.info(`HTTP 400 ${req.method} ${shown}: not a path or an http URL`)
        writeJsonRpcError(res, 400, `Bad request: the request target ${shown} is neither a path (such as ${options.path ?? '/mcp'}) nor an http URL. Send MCP requests to the path the server printed.`, REFUSAL_HEADERS)
        return
      }
      const where = {origin: req.headers.origin, localAddress: req.socket.localAddress, localPort: req.socket.localPort}
      // An absolute-form target names the host itself (RFC 9112 §3.2.2); the Host header, when sent, must pass too.
      const refusal =
        (target.authority !== undefined ? refusedOrigin({...where, host: target.authority}, options.origins)?.replace(/^Host header /, "The request target's host ") : undefined) ??
        (target.authority === undefined || req.headers.host !== undefined ? refusedOrigin({...where, host: req.headers.host}, options.origins) : undefined)
      if (refusal) {
        runtime.log.info(`HTTP 403 ${req.method} ${req.url}: ${refusal}`)
        writeJsonRpcError(res, 403, `Forbidden: ${refusal}`, REFUSAL_HEADERS)
        return
      }
      const tokenStatus = options.token === undefined ? 'ok' : bearerTokenStatus(req.headers.authorization, options.token)
      if (tokenStatus !== 'ok') {
        runtime.log.info(`HTTP ${TOKEN_REFUSAL[tokenStatus].status} ${req.method} ${req.url}: ${tokenStatus} bearer token`)
        writeJsonRpcError(res, TOKEN_REFUSAL[tokenStatus].status, TOKEN_REFUSAL[tokenStatus].message, {...REFUSAL_HEADERS, ...TOKEN_REFUSAL[tokenStatus].headers})
        return
      }
      if (target.authority !== undefined) {
        // Served as the origin form it stands for (the SDK builds the request's URL from Host and the path).
        req.url = target.path
        req.headers.host = target.authority
      }
      if (options.path !== undefined && new URL(req.url ?? '/', 'http://localhost').pathname !== options.path) {
        writeJsonRpcError(res, 404, `Not found: MCP is served at ${options.path}.`, REFUSAL_HEADERS)
        return
      }
      const declared = Number(req.headers['content-length'] ?? 0)
      if (parsedBody === undefined && declared > maxBodyBytes) {
        const drain = declared <= maxBodyBytes * DRAIN_FACTOR
        writeJsonRpcError(
          res,
          413,
          `Payload too large: the body is ${declared} bytes; at most ${maxBodyBytes} bytes are accepted. ${SEND_LESS}`,
          drain ? {} : REFUSAL_HEADERS,
        )
        if (drain) req.resume()
        return
      }
      await serve(req, res, parsedBody)
    },
    close: () => endpoint.close(),
  }
}
