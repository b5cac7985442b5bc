import {AkError} from '../../errors.js'
import {type Logger, watchStderr} from '../../log.js'

/**
 * The server process's last guard (DESIGN §7: "one call never ends the server"). Every failure a
 * call can meet is answered as a tool error where it happens; this catches what slipped through,
 * so that one mistake costs one line on stderr instead of every client's session.
 *
 * Which failures leave the server serving, and why:
 * - An unhandled rejection: always. A promise rejects when an async function threw, after its own
 *   frames unwound through their `finally` blocks, at a point where it awaited: no synchronous
 *   update of the server's state was cut in half. What is lost is the work that promise stood
 *   for (a background capture, a clean-up), which nothing was waiting for.
 * - An uncaught exception that is an AkError, or a system error saying a resource ran short or a
 *   peer went away (RESILIENT_ERROR_CODES): the condition of a moment, met by one I/O call on
 *   one object (a command's pipe, a file, a socket), not a broken invariant.
 * - Any other uncaught exception (a TypeError, a RangeError…): it was thrown out of an event
 *   listener, and the listeners after it never ran (the `exit` listener that frees a command's
 *   slot, say), so the state is not known to be sound. The server says so in one line and stops
 *   the way a SIGTERM stops it (every command stopped, every session closed), then exits with 1;
 *   a stop that takes longer than FATAL_STOP_LIMIT_MS ends with exit 1 at once.
 */

/** Errno codes of an uncaught exception after which the server goes on serving. */
export const RESILIENT_ERROR_CODES: ReadonlySet<string> = new Set([
  'EMFILE',
  'ENFILE',
  'EAGAIN',
  'ENOMEM',
  'ENOSPC',
  'EPIPE',
  'ECONNRESET',
  'ECONNABORTED',
  'ERR_STREAM_DESTROYED',
  'ERR_STREAM_WRITE_AFTER_END',
])

/** After a fatal exception, how long the orderly stop may take before the process exits, in ms. */
export const FATAL_STOP_LIMIT_MS = 10_000

/** Whether the server goes on serving after `error` was thrown and nothing caught it. */
export function isSoundAfter(error: unknown): boolean {
  if (error instanceof AkError) return true
  const code = (error as NodeJS.ErrnoException | undefined)?.code
  return typeof code === 'string' && RESILIENT_ERROR_CODES.has(code)
}

/** `error` as one line: its name and the first line of its message. */
export function oneLine(error: unknown): string {
  if (error instanceof Error) return `${error.name}: ${error.message.split('\n', 1)[0]}`
  return String(error).split('\n', 1)[0]!
}

/**
 * Installs the guard on `process` for a server that owns its process (`ak exec serve`,
 * `dist/agentexec.js`; never a host that mounts the library). From then on a failed write to
 * stderr (its reader gone) drops log lines instead of throwing. A fatal exception sets
 * `process.exitCode` to 1 and emits SIGTERM on `process`, which both transports stop on.
 * @returns a function that removes the guard
 */
export function installProcessGuard(log: Logger): () => void {
  // A reader of stderr that went away costs the log lines, not the server (see watchStderr).
  watchStderr()
  let isStopping = false
  const onRejection = (reason: unknown) => {
    log.warn(`an unexpected failure was dropped and the server goes on: ${oneLine(reason)}`)
  }
  const onException = (error: unknown) => {
    if (isSoundAfter(error)) {
      log.warn(`an unexpected error was dropped and the server goes on: ${oneLine(error)}`)
      return
    }
    if (isStopping) return
    isStopping = true
    log.warn(`an unexpected error left the server in an unknown state, so it stops every command and exits with 1: ${oneLine(error)}`)
    process.exitCode = 1
    setTimeout(() => process.exit(1), FATAL_STOP_LIMIT_MS).unref()
    process.emit('SIGTERM')
  }
  process.on('unhandledRejection', onRejection)
  process.on('uncaughtException', onException)
  return () => {
    process.off('unhandledRejection', onRejection)
    process.off('uncaughtException', onException)
  }
}
