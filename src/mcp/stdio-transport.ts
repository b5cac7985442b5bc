import type {JSONRPCMessage} from '@modelcontextprotocol/server'
import {StdioServerTransport} from '@modelcontextprotocol/server/stdio'

import {DispatchFailedError} from '../errors.js'
import type {Logger} from '../log.js'
import {CheckedReadBuffer} from './checked-read-buffer.js'
import {FrameWriter} from './frame-writer.js'
import {holdStopSignals, type StopSignal} from './stop-signals.js'

/**
 * Why a stdio MCP connection ended: the client went away (stdin ended or closed, or stdout
 * reported EPIPE), a signal arrived, or the transport failed (a stdout error other than EPIPE).
 * Nothing a client sends ends the connection: CheckedReadBuffer answers what it cannot take.
 */
export type StdioEnd =
  | {reason: 'stdin-closed' | StopSignal}
  | {reason: 'transport-failed'; message: string}

/** Error codes that mean the other end of a pipe went away, not that the transport broke. */
const CLIENT_GONE_CODES = new Set(['EPIPE', 'ECONNRESET', 'ERR_STREAM_DESTROYED'])

/**
 * A `StdioServerTransport` over this process's stdin/stdout (pass it to `serveStdio({transport})`)
 * plus `ended`, which settles once the connection is over for any reason: stdin end/close, one
 * of STOP_SIGNALS, or the transport closing itself after an error (it then pauses stdin, so stdin never
 * reports an end and nothing else would keep the process waiting). The stop signals stay handled
 * until `releaseSignals()`, which the caller calls once it has stopped everything: a signal during
 * that stop makes it faster, never ends the process before it finishes.
 * `reportError` must receive the transport's out-of-band errors (serveStdio's `onerror`) so a
 * failure can be told from a client that went away.
 *
 * A line that is too long, not JSON or not an MCP message is logged on `log` as one line, and
 * answered with a JSON-RPC error unless it is a notification (CheckedReadBuffer). `onMessage` is
 * shown every message read, before the SDK handles it.
 */
/**
 * How long, in ms, a stdio server whose input ended still waits for the answers of calls the
 * client sent before the end (a script that pipes its requests in and closes stdin at once), before
 * it closes the connection and stops what those calls started.
 */
export const STDIO_END_ANSWER_WAIT_MS = 2000

export function watchedStdioTransport(log: Logger, onMessage?: (message: unknown) => void): {
  transport: StdioServerTransport
  ended: Promise<StdioEnd>
  reportError: (error: Error) => void
  /** Lets STOP_SIGNALS go; until then a signal after the end hurries the stop (see holdStopSignals). */
  releaseSignals: () => void
} {
  let lastError: Error | undefined
  let settle!: (end: StdioEnd) => void
  const ended = new Promise<StdioEnd>((resolve) => {
    settle = resolve
  })
  // At the end of stdin, a last line the client sent without a line break is read once (by the
  // transport, set below); when it held a message, the connection ends a turn later, so the
  // message is answered as one followed by a line break would have been.
  let deliverFinalLine = (): boolean => false
  let hadFinalLine: boolean | undefined
  const readFinalLine = (): boolean => (hadFinalLine ??= deliverFinalLine())
  // Requests read whose answer was not sent yet: at the end of input they get STDIO_END_ANSWER_WAIT_MS
  // to be answered, so a client that sends its calls and closes stdin at once still gets them.
  const unanswered = new Set<string | number>()
  let answeredAll: (() => void) | undefined
  const afterAnswers = (then: () => void) => {
    if (unanswered.size === 0) return then()
    const timer = setTimeout(finish, STDIO_END_ANSWER_WAIT_MS)
    const previous = answeredAll
    answeredAll = finish
    let isDone = false
    function finish() {
      if (isDone) return
      isDone = true
      clearTimeout(timer)
      previous?.()
      then()
    }
  }
  const afterFinalLine = (then: () => void) => (readFinalLine() ? setImmediate(() => afterAnswers(then)) : afterAnswers(then))
  const clientGone = () => afterFinalLine(() => settle({reason: 'stdin-closed'}))
  // Held until the caller has stopped everything (releaseSignals), not only until the end.
  const signals = holdStopSignals((signal) => settle({reason: signal}))
  process.stdin.once('end', clientGone)
  process.stdin.once('close', clientGone)
  class Watched extends StdioServerTransport {
    /** One queue and one pair of listeners on stdout for every answer (see FrameWriter). */
    private readonly writer = new FrameWriter(process.stdout)
    private isClosed = false

    constructor() {
      super()
      // The SDK's reader is not an option of its constructor; this one answers what it rejects.
      const reader = new CheckedReadBuffer(({answer, logLine}) => {
        log.info(logLine)
        if (answer) this.send(answer).catch(() => undefined)
      }, undefined, (message) => {
        const {id, method} = message as {id?: unknown; method?: unknown}
        if (typeof method === 'string' && (typeof id === 'string' || typeof id === 'number')) unanswered.add(id)
        onMessage?.(message)
      })
      ;(this as unknown as {_readBuffer: CheckedReadBuffer})._readBuffer = reader
      deliverFinalLine = () => {
        const message = reader.finish()
        if (message) this.onmessage?.(message)
        return message !== null
      }
      // The SDK closes the transport on stdin's end; it waits for the last line's answer too.
      const internals = this as unknown as {_onstdinclose: () => void}
      const closeOnEnd = internals._onstdinclose
      internals._onstdinclose = () => afterFinalLine(closeOnEnd)
    }

    override send(message: JSONRPCMessage): Promise<void> {
      if (this.isClosed) return Promise.reject(new Error('StdioServerTransport is closed'))
      if (('result' in message || 'error' in message) && message.id !== undefined && message.id !== null && unanswered.delete(message.id)) {
        if (unanswered.size === 0) answeredAll?.()
      }
      // The SDK's framing (serializeMessage): one JSON text and a line break.
      return this.writer.write(`${JSON.stringify(message)}\n`)
    }

    override async close(): Promise<void> {
      this.isClosed = true
      await super.close()
      const code = (lastError as NodeJS.ErrnoException | undefined)?.code
      if (lastError === undefined || (code !== undefined && CLIENT_GONE_CODES.has(code))) clientGone()
      else settle({reason: 'transport-failed', message: lastError.message})
    }
  }
  void ended.then(() => {
    signals.beginStop()
    process.stdin.off('end', clientGone)
    process.stdin.off('close', clientGone)
  })
  return {
    transport: new Watched(),
    ended,
    reportError: (error) => {
      lastError = error
    },
    releaseSignals: signals.release,
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
      `Check that the client keeps reading the server's output (when stdout goes to a file, that its disk has room), and restart the server.`,
  )
}
