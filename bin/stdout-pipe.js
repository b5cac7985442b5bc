// Lets `ak … | head -1` end quietly: a reader that closes the pipe early is a normal end.
// Plain JavaScript with no imports; shared by bin/run.js and the one-file bundle.

/**
 * Treats EPIPE on stdout (the reader closed the pipe) as a normal end instead of a crash or an
 * exit 13 ("unsettled top-level await" while oclif waits for stdout to flush). The process is
 * not cut short: whatever is still running (a server stopping its commands) finishes first;
 * once nothing is left to do, it exits with process.exitCode, or 0 when none was set.
 * Any other stdout error (a full disk: ENOSPC) ends the process with one line on stderr and exit
 * code 1, unless a serving MCP transport listens for it too (it then ends the server in order).
 */
export function endQuietlyOnEpipe() {
  let readerGone = false
  // stdout redirected to a file is written synchronously; a failed write (a full disk) is handled
  // here rather than as an 'error' event, which oclif's own listener would rethrow as a crash.
  const stdout = process.stdout
  if (stdout.constructor?.name === 'SyncWriteStream' && typeof stdout._write === 'function') {
    const write = stdout._write.bind(stdout)
    const failed = (error, callback) => {
      if (error?.code === 'EPIPE') return callback(error)
      stdoutFailed(error)
      callback()
    }
    stdout._write = (chunk, encoding, callback) => {
      try {
        write(chunk, encoding, (error) => (error ? failed(error, callback) : callback()))
      } catch (error) {
        failed(error, callback)
      }
    }
  }
  // First, before the listener oclif adds (which rethrows every error but EPIPE).
  process.stdout.prependListener('error', (error) => {
    if (error?.code !== 'EPIPE') return stdoutFailed(error)
    readerGone = true
  })
  process.on('beforeExit', () => {
    if (readerGone) process.exit(process.exitCode ?? 0)
  })
}

/**
 * Set on globalThis by a stdio MCP server while it serves (src/mcp/serve-stdio.ts): a function
 * that ends the connection in order (stopping what it started) and exits 1.
 */
export const STDOUT_FAILED = Symbol.for('ak.stdout-failed')

/** A write to stdout failed for a reason other than EPIPE: the serving transport ends, or one line on stderr and exit 1. */
function stdoutFailed(error) {
  const serving = globalThis[STDOUT_FAILED]
  if (typeof serving === 'function') return serving(error)
  const reason = `${error?.code ? `${error.code}: ` : ''}${String(error?.message ?? error).replace(/^[A-Z]+: /, '')}`
  process.stderr.write(`ak: cannot write to stdout (${reason}); stopping.\n`)
  process.exit(1)
}
