/** How the journal records a file's state after a change: its content's digest and its mode. */
import {createHash} from 'node:crypto'

import type {FileDigest} from './change-log.js'

/** The bits of a mode the journal records: the permission bits, and the file type (a symbolic link is recorded as one). */
export const RECORDED_MODE_BITS = 0o177777

/** The digest and mode (permission bits, and the type bits of a symbolic link) of content about to be written with `mode`. */
export function digestOf(content: Uint8Array, mode: number): FileDigest {
  return {sha256: createHash('sha256').update(content).digest('hex'), mode: mode & RECORDED_MODE_BITS}
}
