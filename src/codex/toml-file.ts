import {open} from 'node:fs/promises'
import {TomlError, parse} from 'smol-toml'

/** The outcome of reading a TOML file: its parsed table, or why there is none. */
export type TomlFile =
  | {status: 'ok'; text: string; data: Record<string, unknown>}
  | {status: 'missing'}
  /** Exists but cannot be read (permissions, a folder where a file is expected). */
  | {status: 'unreadable'; reason: string}
  /** Exists and may be readable, but is larger than the limit, so it was not read. */
  | {status: 'too-large'; reason: string}
  /** Read but not parsed; `reason` quotes the parser's message with its line and column. */
  | {status: 'invalid'; text: string; reason: string}

/**
 * Reads and parses a TOML file of at most `maxBytes` bytes (a bigger file is `too-large` and
 * is not read, so memory stays bounded). Never throws for the file's own problems; they are in the result.
 */
export async function readTomlFile(file: string, maxBytes: number): Promise<TomlFile> {
  let text: string
  try {
    const handle = await open(file, 'r')
    try {
      const {size} = await handle.stat()
      if (size > maxBytes) return {status: 'too-large', reason: `it is larger than ${maxBytes} bytes`}
      text = await handle.readFile({encoding: 'utf8'})
    } finally {
      await handle.close()
    }
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code
    if (code === 'ENOENT') return {status: 'missing'}
    return {status: 'unreadable', reason: describeFsError(error)}
  }
  try {
    return {status: 'ok', text, data: parse(text) as Record<string, unknown>}
  } catch (error) {
    return {status: 'invalid', text, reason: describeTomlError(error)}
  }
}

/** Parses TOML text, or returns the parse error quoted with its line and column. */
export function parseToml(text: string): {data: Record<string, unknown>} | {reason: string} {
  try {
    return {data: parse(text) as Record<string, unknown>}
  } catch (error) {
    return {reason: describeTomlError(error)}
  }
}

/** "line 3, column 1: invalid value" from smol-toml's error (which carries line and column). */
export function describeTomlError(error: unknown): string {
  if (error instanceof TomlError) {
    const message = error.message.replace(/^Invalid TOML document:\s*/, '').split('\n', 1)[0] ?? ''
    return `line ${error.line}, column ${error.column}: ${message}`
  }
  return error instanceof Error ? error.message : String(error)
}

/** A short reason for a file-system error: its code and message, e.g. "EACCES: permission denied". */
export function describeFsError(error: unknown): string {
  const fsError = error as NodeJS.ErrnoException
  if (fsError.code === 'ENOTDIR') return 'ENOTDIR: a file is where a folder is expected'
  if (fsError.code === 'EISDIR') return 'EISDIR: a folder is where a file is expected'
  if (fsError.code) return `${fsError.code}: ${fsError.message.replace(/^[A-Z]+: /, '').replace(/, \w+ '.*'$/, '')}`
  return fsError.message ?? String(error)
}
