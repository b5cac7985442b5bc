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

/** A logger writing lines to stderr, with info lines dropped when `quiet` is true. */
export function stderrLogger(options: {quiet?: boolean; prefix?: string} = {}): Logger {
  const prefix = options.prefix ?? 'ak'
  return {
    info(line) {
      if (!options.quiet) process.stderr.write(`${prefix}: ${line}\n`)
    },
    warn(line) {
      process.stderr.write(`${prefix}: warning: ${line}\n`)
    },
  }
}

/** A logger that drops everything (library default). */
export const silentLogger: Logger = {info() {}, warn() {}}
