// Lets `ak … | head -1` end quietly: a reader that closes the pipe early is a normal end.
// Plain JavaScript with no imports; shared by bin/run.js and the one-file bundle.

/**
 * Treats EPIPE on stdout (the reader closed the pipe) as a normal end instead of a crash or an
 * exit 13 ("unsettled top-level await" while oclif waits for stdout to flush). The process is
 * not cut short: whatever is still running (a server stopping its commands) finishes first;
 * once nothing is left to do, it exits with process.exitCode, or 0 when none was set.
 * Any other stdout error is rethrown.
 */
export function endQuietlyOnEpipe() {
  let readerGone = false
  process.stdout.on('error', (error) => {
    if (error?.code !== 'EPIPE') throw error
    readerGone = true
  })
  process.on('beforeExit', () => {
    if (readerGone) process.exit(process.exitCode ?? 0)
  })
}
