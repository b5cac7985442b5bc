import {StdioServerTransport} from '@modelcontextprotocol/server/stdio'

import {DispatchFailedError} from '../errors.js'

/**
 * Why a stdio MCP connection ended: the client went away (stdin ended or closed, or stdout
 * reported EPIPE), a signal arrived, or the transport failed (for example a frame longer than the
 * SDK's 10 MiB read buffer, or a stdout error other than EPIPE).
 */
export type StdioEnd =
  | {reason: 'stdin-closed' | 'SIGINT' | 'SIGTERM'}
  | {reason: 'transport-failed'; message: string}

/** Error codes that mean the other end of a pipe went away, not that the transport broke. */
const CLIENT_GONE_CODES = new Set(['EPIPE', 'ECONNRESET', 'ERR_STREAM_DESTROYED'])

/**
 * A `StdioServerTransport` over this process's stdin/stdout (pass it to `serveStdio({transport})`)
 * plus `ended`, which settles once the connection is over for any reason: stdin end/close, a
 * signal, or the transport closing itself after an error (it then pauses stdin, so stdin never
 * reports an end and nothing else would keep the process waiting).
 * `reportError` must receive the transport's out-of-band errors (serveStdio's `onerror`) so a
 * failure can be told from a client that went away.
 */
export function watchedStdioTransport(): {
  transport: StdioServerTransport
  ended: Promise<StdioEnd>
  reportError: (error: Error) => void
} {
  let lastError: Error | undefined
  let settle!: (end: StdioEnd) => void
  const ended = new Promise<StdioEnd>((resolve) => {
    settle = resolve
  })
  const clientGone = () => settle({reason: 'stdin-closed'})
  const onSigint = () => settle({reason: 'SIGINT'})
  const onSigterm = () => settle({reason: 'SIGTERM'})
  process.stdin.once('end', clientGone)
  process.stdin.once('close', clientGone)
  process.once('SIGINT', onSigint)
  process.once('SIGTERM', onSigterm)
  class Watched extends StdioServerTransport {
    override async close(): Promise<void> {
      await super.close()
      const code = (lastError as NodeJS.ErrnoException | undefined)?.code
      if (lastError === undefined || (code !== undefined && CLIENT_GONE_CODES.has(code))) clientGone()
      else settle({reason: 'transport-failed', message: lastError.message})
    }
  }
  void ended.then(() => {
    process.stdin.off('end', clientGone)
    process.stdin.off('close', clientGone)
    process.off('SIGINT', onSigint)
    process.off('SIGTERM', onSigterm)
  })
  return {
    transport: new Watched(),
    ended,
    reportError: (error) => {
      lastError = error
    },
  }
}

/**
 * The error a stdio server exits with (code 1) when its transport failed: one line saying what
 * broke and what to do.
 * @param message the transport's own error text, e.g. "ReadBuffer exceeded maximum size"
 */
export function transportFailed(message: string): DispatchFailedError {
  return new DispatchFailedError(
    `The MCP stdio transport failed (${message.replaceAll(/\s+/g, ' ').trim()}); the connection is closed. ` +
      `Check that the client sends one JSON-RPC message per line, each under 10 MiB, and restart the server.`,
  )
}
