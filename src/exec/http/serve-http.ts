import {type Server, createServer} from 'node:http'
import type {AddressInfo} from 'node:net'

import {AkError} from '../../errors.js'
import {HTTP_HEADERS_TIMEOUT_MS, HTTP_MAX_CONNECTIONS, HTTP_REQUEST_TIMEOUT_MS} from '../limits.js'
import {holdStopSignals, type StopSignal} from '../../mcp/stop-signals.js'
import type {ExecRuntime} from '../context.js'
import type {ListenAddress} from './listen-address.js'
import {createExecHttpHandler} from './node-handler.js'

/** The path `ak exec serve --http` serves MCP at. */
export const MCP_PATH = '/mcp'

/**
 * How often Node checks connections against the header and request timeouts (its default, 30 s,
 * would let a slow sender keep a socket three times the header timeout).
 */
const TIMEOUT_CHECK_INTERVAL_MS = 1_000

/** Why an HTTP server stopped: one of STOP_SIGNALS. */
export type HttpStopReason = StopSignal

/** Options of `serveExecHttp`. */
export interface ServeExecHttpOptions {
  /** A loopback address (checked by `parseListenAddress`). */
  address: ListenAddress
  /** The bearer token every request must carry (never empty). */
  token: string
  /** Idle expiry of 2025-era sessions in ms (default HTTP_SESSION_IDLE_MS). */
  sessionIdleMs?: number
  /** Called with the URL once listening (default: printed on stderr). */
  onListening?: (url: string) => void
}

/**
 * Serves AgentExec over Streamable HTTP at `http://HOST:PORT/mcp` (DESIGN §4.6) until SIGINT,
 * SIGTERM or SIGHUP, then ends every session (stopping their commands), closes the listener and the runtime.
 * Requests must come with a loopback Host/Origin (else 403) and the bearer token (else 401).
 * Sockets are bounded: HTTP_MAX_CONNECTIONS at once, headers within HTTP_HEADERS_TIMEOUT_MS and
 * the whole request within HTTP_REQUEST_TIMEOUT_MS (else 408 and closed).
 * @throws AkError when the address cannot be listened on (e.g. the port is taken).
 * @returns the signal that stopped it, once everything is closed.
 */
export async function serveExecHttp(runtime: ExecRuntime, options: ServeExecHttpOptions): Promise<HttpStopReason> {
  const handler = createExecHttpHandler(runtime, {
    origins: {hosts: 'loopback', origins: 'loopback'},
    token: options.token,
    path: MCP_PATH,
    ...(options.sessionIdleMs === undefined ? {} : {sessionIdleMs: options.sessionIdleMs}),
  })
  const server = createServer(
    {
      headersTimeout: HTTP_HEADERS_TIMEOUT_MS,
      requestTimeout: HTTP_REQUEST_TIMEOUT_MS,
      connectionsCheckingInterval: TIMEOUT_CHECK_INTERVAL_MS,
    },
    (req, res) => {
      handler.handle(req, res).catch((error: Error) => {
        runtime.log.warn(`HTTP request failed: ${error.message}`)
        if (!res.headersSent) res.writeHead(500).end()
        else res.destroy()
      })
    },
  )
  server.maxConnections = HTTP_MAX_CONNECTIONS
  // Handled from before the address is announced: whoever waits for that line may stop the
  // server at once, and a stop signal must then end it cleanly, not by Node's default action.
  // Held until everything is stopped: a second signal makes the stop faster, never skips it.
  let onSignal: (signal: StopSignal) => void = () => {}
  const stopped = new Promise<HttpStopReason>((resolve) => (onSignal = resolve))
  const signals = holdStopSignals((signal) => onSignal(signal))
  try {
    const url = await listen(server, options.address)
    ;(options.onListening ?? printListening)(url)
    const reason = await stopped
    await handler.close()
    server.closeAllConnections()
    await new Promise<void>((resolve) => server.close(() => resolve()))
    await runtime.close()
    return reason
  } finally {
    signals.release()
  }
}

/** The line that tells whoever started the server (people, tests, scripts) where it listens, on stderr. */
export function printListening(url: string): void {
  process.stderr.write(`ak exec: listening on ${url}\n`)
}

async function listen(server: Server, address: ListenAddress): Promise<string> {
  await new Promise<void>((resolve, reject) => {
    server.once('error', (error: NodeJS.ErrnoException) =>
      reject(new AkError(`Cannot listen on ${address.host}:${address.port}: ${error.code ?? error.message}. Pick another port (0 picks a free one).`)),
    )
    server.listen(address.port, address.host, () => resolve())
  })
  const bound = server.address() as AddressInfo
  const host = bound.family === 'IPv6' ? `[${bound.address}]` : bound.address
  return `http://${host}:${bound.port}${MCP_PATH}`
}
