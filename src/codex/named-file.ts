import {constants} from 'node:fs'
import type {Stats} from 'node:fs'
import {open} from 'node:fs/promises'

/**
 * Reading a file the runtime opens because of its name (agent files, Codex configs, a worktree's
 * `.git` file), never because a client asked for it (DESIGN §4.2, §5.2): opened with `O_NONBLOCK`
 * (so a FIFO planted under the name cannot block the open) and, where links are not followed,
 * `O_NOFOLLOW`; then `fstat` on the open descriptor must show a regular file within the size
 * limit, and at most that many bytes are read. Nothing here waits on another process.
 */

/** The outcome of readNamedFile. `not-regular` names what is there instead (`a FIFO (named pipe)`, `a symlink`…). */
export type NamedFileRead =
  | {status: 'ok'; bytes: Buffer}
  | {status: 'missing'}
  | {status: 'not-regular'; kind: string}
  | {status: 'too-large'; maxBytes: number}
  /** Any other failure to open or read (permissions, I/O), with the system's error. */
  | {status: 'error'; error: NodeJS.ErrnoException}

/**
 * Reads the regular file at `file`, at most `maxBytes` bytes (a longer one is `too-large`, also
 * when it grows while being read).
 * @param options.followLinks false to refuse a symlink as the last component (`O_NOFOLLOW`: it is
 *   `not-regular`, kind `a symlink`); true to read what it points at (still only a regular file).
 */
export async function readNamedFile(file: string, options: {maxBytes: number; followLinks: boolean}): Promise<NamedFileRead> {
  const flags = constants.O_RDONLY | constants.O_NONBLOCK | (options.followLinks ? 0 : constants.O_NOFOLLOW)
  let handle
  try {
    handle = await open(file, flags)
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code
    if (code === 'ENOENT') return {status: 'missing'}
    if (code === 'ELOOP' && !options.followLinks) return {status: 'not-regular', kind: 'a symlink'}
    if (code === 'ENXIO') return {status: 'not-regular', kind: 'a socket'} // opening a Unix socket
    return {status: 'error', error: error as NodeJS.ErrnoException}
  }
  try {
    const info = await handle.stat()
    if (!info.isFile()) return {status: 'not-regular', kind: kindOf(info)}
    if (info.size > options.maxBytes) return {status: 'too-large', maxBytes: options.maxBytes}
    // One byte more than the limit tells a file that grew past it since fstat.
    let buffer = Buffer.alloc(Math.min(info.size, options.maxBytes) + 1)
    let length = 0
    for (;;) {
      if (length === buffer.length) {
        if (length > options.maxBytes) return {status: 'too-large', maxBytes: options.maxBytes}
        const bigger = Buffer.alloc(Math.min(buffer.length * 2, options.maxBytes + 1))
        buffer.copy(bigger)
        buffer = bigger
      }
      const {bytesRead} = await handle.read(buffer, length, buffer.length - length, null)
      if (bytesRead === 0) break
      length += bytesRead
    }
    return {status: 'ok', bytes: buffer.subarray(0, length)}
  } catch (error) {
    return {status: 'error', error: error as NodeJS.ErrnoException}
  } finally {
    await handle.close().catch(() => undefined)
  }
}

/** What a non-regular file is, for messages. */
function kindOf(info: Stats): string {
  if (info.isFIFO()) return 'a FIFO (named pipe)'
  if (info.isDirectory()) return 'a folder'
  if (info.isCharacterDevice()) return 'a character device'
  if (info.isBlockDevice()) return 'a block device'
  if (info.isSocket()) return 'a socket'
  if (info.isSymbolicLink()) return 'a symlink'
  return 'not a regular file'
}

/** "it is a FIFO (named pipe), not a regular file" — the reason a `not-regular` read gives. */
export function notRegularReason(kind: string): string {
  return kind === 'not a regular file' ? 'it is not a regular file' : `it is ${kind}, not a regular file`
}
