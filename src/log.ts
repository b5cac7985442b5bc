/**
 * Operator logging. Everything goes to stderr: stdout belongs to MCP frames (stdio transport)
 * or to a command's rendered result.
 */
export interface Logger {
  /** One line for operators; suppressed by `--quiet`. */
  info(line: string): void
  /** A warning; shown even with `--quiet`. */
  warn(line: string): void
}

/** Whether stderr failed (its reader went away: EPIPE), after which log lines are dropped. */
let isStderrGone = false

/**
 * Writes `text` to stderr unless stderr failed before. The first failure is taken here (an
 * `error` listener on process.stderr), so a reader that went away costs the log, never the
 * process: without it, the failed write would be an uncaught exception whose report, written to
 * the same stderr, fails again, endlessly.
 */
function writeStderr(text: string): void {
  if (isStderrGone || process.stderr.destroyed) return
  watchStderr()
  process.stderr.write(text)
}

/**
 * Takes stderr's failures from now on (once per process): after one, stderrLogger drops its
 * lines. A serving process calls it at start, so that a write to stderr from anywhere that fails
 * is absorbed rather than thrown as an uncaught exception.
 */
export function watchStderr(): void {
  if (isWatchingStderr) return
  isWatchingStderr = true
  process.stderr.on('error', () => {
    isStderrGone = true
  })
}

let isWatchingStderr = false

/**
 * A logger writing lines to stderr, with info lines dropped when `quiet` is true. Once stderr
 * fails (its reader is gone), lines are dropped and the process goes on.
 */
export function stderrLogger(options: {quiet?: boolean; prefix?: string} = {}): Logger {
  const prefix = options.prefix ?? 'ak'
  return {
    info(line) {
      if (!options.quiet) writeStderr(`${prefix}: ${line}\n`)
    },
    warn(line) {
      writeStderr(`${prefix}: warning: ${line}\n`)
    },
  }
}

export const silentLogger: Logger = {info() {}, warn() {}}
