import {TomlError, parse} from 'smol-toml'

import {notRegularReason, readNamedFile} from './named-file.js'

/** The outcome of reading a TOML file: its parsed table, or why there is none. */
export type TomlFile =
  | {status: 'ok'; text: string; data: Record<string, unknown>}
  | {status: 'missing'}
  /** Exists but cannot be read (permissions, a folder where a file is expected). */
  | {status: 'unreadable'; reason: string}
  /** Exists and may be readable, but is larger than the limit, so it was not read. */
  | {status: 'too-large'; reason: string}
  /** Something other than a regular file is there (a FIFO, a device, a folder; a symlink when links are not followed): not read. */
  | {status: 'not-regular'; reason: string}
  /** Read but not parsed; `reason` quotes the parser's message with its line and column. */
  | {status: 'invalid'; text: string; reason: string}

/**
 * Reads and parses a TOML file of at most `maxBytes` bytes, opened as readNamedFile opens a file
 * ak reads because of its name: never blocking on a FIFO, only a regular file, never more than
 * the limit (a bigger file is `too-large` and is not read, so memory stays bounded). Never throws
 * for the file's own problems; they are in the result.
 * @param options.followLinks false to refuse a symlink (default true: Codex follows them too)
 */
export async function readTomlFile(file: string, maxBytes: number, options: {followLinks?: boolean} = {}): Promise<TomlFile> {
  const read = await readNamedFile(file, {maxBytes, followLinks: options.followLinks ?? true})
  switch (read.status) {
    case 'missing':
      return {status: 'missing'}
    case 'not-regular':
      // A folder under the name reads as it always has: a file that cannot be read (EISDIR).
      if (read.kind === 'a folder') return {status: 'unreadable', reason: describeFsError({code: 'EISDIR'})}
      return {status: 'not-regular', reason: notRegularReason(read.kind)}
    case 'too-large':
      return {status: 'too-large', reason: `it is larger than ${maxBytes} bytes`}
    case 'error':
      return {status: 'unreadable', reason: describeFsError(read.error)}
    case 'ok':
      break
  }
  const text = read.bytes.toString('utf8')
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
