/**
 * Reading and writing a file's whole content through a descriptor, as `edit` does: content up to
 * EDIT_SYNC_IO_MAX_BYTES with synchronous calls on the main thread (each a page-cache copy of
 * microseconds, cheaper than a round trip to the thread pool), larger content through the pool so
 * that other calls are served meanwhile.
 */
import {fsync, read, readSync, write, writeSync} from 'node:fs'
import {promisify} from 'node:util'

import {EDIT_SYNC_IO_MAX_BYTES} from '../limits.js'

const readAsync = promisify(read)
const writeAsync = promisify(write)
/** `fsync` on the thread pool: a flush may wait on the disk for milliseconds. */
export const fsyncDescriptor = promisify(fsync)

/** Bytes read at a time once the size found by `fstat` is reached (a file that grew meanwhile). */
const GROWTH_CHUNK_BYTES = 64 * 1024

/**
 * Reads the open file `fd` from its start to its end.
 * @param sizeHint its size from `fstat`, in bytes: the buffer read into, and whether the reads
 *   are synchronous (up to EDIT_SYNC_IO_MAX_BYTES) or go through the thread pool
 * @returns every byte up to the end of the file, also when it grew past `sizeHint` meanwhile
 * @throws the system error of `read` (EIO, EISDIR…)
 */
export async function readWholeContent(fd: number, sizeHint: number): Promise<Buffer> {
  const isSync = sizeHint <= EDIT_SYNC_IO_MAX_BYTES
  let buffer = Buffer.allocUnsafe(Math.max(sizeHint, 1))
  let filled = 0
  for (;;) {
    if (filled === buffer.length) {
      const larger = Buffer.allocUnsafe(buffer.length + GROWTH_CHUNK_BYTES)
      buffer.copy(larger, 0, 0, filled)
      buffer = larger
    }
    const count = isSync
      ? readSync(fd, buffer, filled, buffer.length - filled, filled)
      : (await readAsync(fd, buffer, filled, buffer.length - filled, filled)).bytesRead
    if (count === 0) return buffer.subarray(0, filled)
    filled += count
  }
}

/**
 * Writes `data` whole to the open file `fd` from its current position (a new, empty file).
 * Synchronous up to EDIT_SYNC_IO_MAX_BYTES, through the thread pool above.
 * @throws the system error of `write` (ENOSPC, EDQUOT, EIO…)
 */
export async function writeWholeContent(fd: number, data: Uint8Array): Promise<void> {
  const isSync = data.length <= EDIT_SYNC_IO_MAX_BYTES
  for (let written = 0; written < data.length; ) {
    written += isSync ? writeSync(fd, data, written, data.length - written) : (await writeAsync(fd, data, written, data.length - written)).bytesWritten
  }
}
