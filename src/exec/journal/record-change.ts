/**
 * Making a change under the journal (DESIGN §4.10): recorded durably first, applied, then marked
 * applied, or forgotten when applying it failed.
 */
import {createHash} from 'node:crypto'

import type {ChangeLog, FileChange, FileDigest} from './change-log.js'

/**
 * Records `changes` in `changeLog` as made by `tool`, runs `apply`, and marks the record applied
 * (or forgets it when `apply` throws, which must then leave every file as before). A record that
 * cannot be marked applied stays pending; the next server on the workspace finds every file as
 * the change left it and marks it then, so the answer still says the change was made.
 * @throws what `begin` throws (nothing was changed) and what `apply` throws
 */
export async function recordChange<T>(changeLog: ChangeLog, tool: string, changes: FileChange[], apply: () => Promise<T>): Promise<T> {
  const pending = await changeLog.begin(tool, changes)
  let result: T
  try {
    result = await apply()
  } catch (error) {
    await pending.abandon().catch(() => undefined)
    throw error
  }
  await pending.commit().catch(() => undefined)
  return result
}

/** `real` (a real path inside the workspace whose real path is `root`) relative to the root, as bytes. */
export function workspaceRelative(rootBytes: Buffer, real: Buffer): Buffer {
  return Buffer.from(real.subarray(rootBytes.length === 1 ? 1 : rootBytes.length + 1))
}

/** The digest and mode (permission bits, and the type bits of a symbolic link) of content about to be written with `mode`. */
export function digestOf(content: Uint8Array, mode: number): FileDigest {
  return {sha256: createHash('sha256').update(content).digest('hex'), mode: mode & RECORDED_MODE_BITS}
}

/** The bits of a mode the journal records: the permission bits, and the file type (a symbolic link is recorded as one). */
export const RECORDED_MODE_BITS = 0o177777

/** Permission bits a new file created with `requested` bits gets here (the process's umask applied). */
export function modeAfterUmask(requested: number): number {
  // process.umask() without an argument reads the mask (DEP0139 only documents a preference).
  return requested & ~process.umask() & 0o7777
}
