/** How the journal records a file's state after a change: its content's digest and its mode. */
import {createHash} from 'node:crypto'

import type {FileDigest} from './change-log.js'

/** The SHA-256 of `bytes`, hex: how the journal names stored contents and compares files. */
export function sha256(bytes: Uint8Array): string {
  return createHash('sha256').update(bytes).digest('hex')
}

/** The bits of a mode the journal records: the permission bits, and the file type (a symbolic link is recorded as one). */
export const RECORDED_MODE_BITS = 0o177777

/** The digest and mode (permission bits, and the type bits of a symbolic link) of content about to be written with `mode`. */
export function digestOf(content: Uint8Array, mode: number): FileDigest {
  return {sha256: sha256(content), mode: mode & RECORDED_MODE_BITS}
}
