/**
 * Opening a file that ak reads or creates because of its name, not because a tool was asked for
 * it: edit lock files, temporary files, `.gitignore` and `.git/info/exclude`, agent files, Codex
 * configs (DESIGN §4.2). Whoever can write where such a name lives can plant anything there; so
 * the name is opened without following a symbolic link at its last component (`O_NOFOLLOW`) and
 * without waiting on a FIFO or a device (`O_NONBLOCK`), the descriptor is checked by `fstat` to be
 * a regular file, and at most a named number of bytes is read. A FIFO, a socket, a device, a
 * folder or a link found there is reported as what it is and never read.
 *
 * Kept outside `src/exec` and `src/codex` so that both use the same rule.
 */
import type {BigIntStats, Stats} from 'node:fs'
import {closeSync, constants as fsConstants, fstatSync, lstatSync, openSync, readSync, unlinkSync, writeSync} from 'node:fs'
import {type FileHandle, lstat, open, unlink} from 'node:fs/promises'

const {O_RDONLY, O_WRONLY, O_CREAT, O_EXCL, O_NOFOLLOW, O_NONBLOCK} = fsConstants

/** Flags for reading a file by name: never through a link at the last name, never blocking. */
export const NAMED_FILE_READ_FLAGS = O_RDONLY | O_NOFOLLOW | O_NONBLOCK
/**
 * Flags for creating a file by name: only a new one (`O_EXCL`, which also fails on any link,
 * dangling or not), never through a link, never blocking.
 */
export const NAMED_FILE_CREATE_FLAGS = O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_NONBLOCK

/** What `readNamedFile` found at a name. */
export type NamedFile =
  | {
      kind: 'file'
      /** The file's first bytes: all of them, or `maxBytes` when it is larger. */
      bytes: Buffer
      /** The file's size in bytes (from `fstat`) when it was opened. */
      size: number
      /** Whether the file holds more than `maxBytes` (the rest was not read). */
      isCut: boolean
      /** `fstat` of the descriptor read, with nanosecond times. */
      info: BigIntStats
    }
  | {kind: 'missing'}
  | {
      kind: 'not-a-file'
      /** What is there instead, as a phrase: "a symbolic link", "a FIFO", "a folder", "a socket", "a device". */
      what: string
    }

/** What a non-regular file is, as a phrase for messages ("a FIFO"). */
export function describeFileType(info: Stats | BigIntStats): string {
  if (info.isSymbolicLink()) return 'a symbolic link'
  if (info.isDirectory()) return 'a folder'
  if (info.isFIFO()) return 'a FIFO'
  if (info.isSocket()) return 'a socket'
  if (info.isCharacterDevice() || info.isBlockDevice()) return 'a device'
  return info.isFile() ? 'a regular file' : 'not a regular file'
}

/**
 * What a failed `lstat` or `open` of a named file found there.
 * @throws `error` itself for anything but a missing file or one that is not regular (EACCES, EIO…)
 */
function openFailure(error: unknown): {kind: 'missing'} | {kind: 'not-a-file'; what: string} {
  const code = (error as NodeJS.ErrnoException).code
  if (code === 'ENOENT' || code === 'ENOTDIR') return {kind: 'missing'}
  // O_NOFOLLOW fails with ELOOP on Linux and macOS (EMLINK on FreeBSD) for a link swapped in.
  if (code === 'ELOOP' || code === 'EMLINK') return {kind: 'not-a-file', what: 'a symbolic link'}
  // A socket cannot be opened at all.
  if (code === 'ENXIO') return {kind: 'not-a-file', what: 'a socket'}
  throw error
}

/**
 * Reads the regular file at `path` (a name ak chose, not one a caller asked for), at most
 * `maxBytes` of it, without following a link or blocking (see the module comment). The name is
 * looked at with `lstat` first, so a device or FIFO planted there is not even opened; the
 * descriptor is then checked again with `fstat`, so one swapped in meanwhile is not read either.
 *
 * Never waits on anything but the disk: an open with `O_NONBLOCK` returns at once for a FIFO with
 * no writer, and nothing but a regular file is read.
 * @param path the file's path (a `/proc/self/fd/N/name` path reaches it through a verified folder)
 * @param maxBytes bytes read at most (the limit of the caller's kind of file, in bytes)
 * @returns the file's first bytes, or that it is missing (ENOENT, ENOTDIR), or what it is instead
 * @throws the system error of `lstat`, `open` or `read` for anything else (EACCES, EIO…)
 */
export async function readNamedFile(path: string | Buffer, maxBytes: number): Promise<NamedFile> {
  const named = await openNamedFile(path)
  if (named.kind !== 'open') return named
  const {handle, info} = named
  try {
    const size = Number(info.size)
    const bytes = Buffer.alloc(Math.min(size, maxBytes))
    let filled = 0
    while (filled < bytes.length) {
      const {bytesRead} = await handle.read(bytes, filled, bytes.length - filled, filled)
      if (bytesRead === 0) break
      filled += bytesRead
    }
    return {kind: 'file', bytes: bytes.subarray(0, filled), size, isCut: size > maxBytes, info}
  } finally {
    await handle.close()
  }
}

/**
 * `readNamedFile` for a thread that may block (a search worker): the same rules and answers,
 * with synchronous calls.
 * @throws the system error of `lstat`, `open` or `read` for anything but a missing file or one
 *   that is not regular
 */
export function readNamedFileSync(path: string | Buffer, maxBytes: number): NamedFile {
  let fd: number
  try {
    const seen = lstatSync(path)
    if (!seen.isFile()) return {kind: 'not-a-file', what: describeFileType(seen)}
    fd = openSync(path, NAMED_FILE_READ_FLAGS)
  } catch (error) {
    return openFailure(error)
  }
  try {
    const info = fstatSync(fd, {bigint: true})
    if (!info.isFile()) return {kind: 'not-a-file', what: describeFileType(info)}
    const size = Number(info.size)
    const bytes = Buffer.alloc(Math.min(size, maxBytes))
    let filled = 0
    while (filled < bytes.length) {
      const read = readSync(fd, bytes, filled, bytes.length - filled, filled)
      if (read === 0) break
      filled += read
    }
    return {kind: 'file', bytes: bytes.subarray(0, filled), size, isCut: size > maxBytes, info}
  } finally {
    closeSync(fd)
  }
}

/**
 * Opens the regular file at `path` for reading as `readNamedFile` does, for a caller that reads it
 * itself (within its own limit). Close the handle when done.
 * @returns the open handle and its `fstat`, or that the file is missing, or what is there instead
 * @throws the system error of `lstat` or `open` for anything else
 */
export async function openNamedFile(
  path: string | Buffer,
): Promise<{kind: 'open'; handle: FileHandle; info: BigIntStats} | {kind: 'missing'} | {kind: 'not-a-file'; what: string}> {
  let handle: FileHandle
  try {
    const seen = await lstat(path)
    if (!seen.isFile()) return {kind: 'not-a-file', what: describeFileType(seen)}
    handle = await open(path, NAMED_FILE_READ_FLAGS)
  } catch (error) {
    return openFailure(error)
  }
  try {
    const info = await handle.stat({bigint: true})
    if (!info.isFile()) {
      await handle.close()
      return {kind: 'not-a-file', what: describeFileType(info)}
    }
    return {kind: 'open', handle, info}
  } catch (error) {
    await handle.close().catch(() => undefined)
    throw error
  }
}

/**
 * Creates a new regular file at `path` and writes `data` to it, never opening anything already
 * there (see `NAMED_FILE_CREATE_FLAGS`). The file is flushed to disk when `sync` is set.
 * @param mode permission bits before the umask
 * @throws the system error of `open` (EEXIST when anything, even a dangling link, is at `path`),
 *   `write`, `sync` or `close` (ENOSPC on a full disk, say); a file this call created but could
 *   not write whole is removed first, so no empty or cut file is left behind
 */
export async function createNamedFile(path: string | Buffer, data: Uint8Array | string, options: {mode: number; sync?: boolean}): Promise<void> {
  const handle = await open(path, NAMED_FILE_CREATE_FLAGS, options.mode)
  let isClosed = false
  try {
    await handle.writeFile(data)
    if (options.sync) await handle.sync()
    isClosed = true
    await handle.close()
  } catch (error) {
    if (!isClosed) await handle.close().catch(() => undefined)
    // Created by this call (O_EXCL), so nobody else's file: removed, never left empty or cut.
    await unlink(path).catch(() => undefined)
    throw error
  }
}

/**
 * `createNamedFile` with synchronous calls and no flush, for the small files ak writes on the
 * main thread (a lock, a journal record of a few hundred bytes): each call takes microseconds,
 * less than a round trip to the thread pool would. Never for content of unbounded size.
 * @param mode permission bits before the umask
 * @returns the open descriptor when `keepOpen` (for the caller to flush and close), else undefined
 * @throws as `createNamedFile`; a file this call created but could not write whole is removed
 *   first, so no empty or cut file is left behind
 */
export function createNamedFileSync(path: string | Buffer, data: Uint8Array | string, options: {mode: number; keepOpen?: boolean}): number | undefined {
  const fd = openSync(path, NAMED_FILE_CREATE_FLAGS, options.mode)
  try {
    const bytes = typeof data === 'string' ? Buffer.from(data, 'utf8') : data
    for (let written = 0; written < bytes.length; ) written += writeSync(fd, bytes, written, bytes.length - written)
    if (options.keepOpen) return fd
    closeSync(fd)
    return undefined
  } catch (error) {
    try {
      closeSync(fd)
    } catch {
      // Closed or not, the file is removed next.
    }
    // Created by this call (O_EXCL), so nobody else's file: removed, never left empty or cut.
    try {
      unlinkSync(path)
    } catch {
      // Gone already, or not ours to remove any more.
    }
    throw error
  }
}
