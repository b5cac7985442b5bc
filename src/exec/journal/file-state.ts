/**
 * What a path of the workspace holds now, compared with what the journal says it held: the check
 * behind crash recovery and behind `ak exec undo`'s refusal to overwrite later work.
 */
import {type Stats} from 'node:fs'
import {open} from 'node:fs/promises'

import {ConfinedFolder, FILE_OPEN_FLAGS} from '../files/confined-open.js'
import {displayName} from '../display-name.js'
import {errorCode} from '../fs-errors.js'
import {joinBytes, parentOf, type Workspace} from '../workspace.js'
import type {FileDigest} from './change-log.js'
import {sha256} from './journal.js'

/** A path's state: nothing there, a regular file (content, permission bits, fstat), or something else. */
export type FileState =
  | {kind: 'missing'}
  | {kind: 'file'; content: Buffer; mode: number; info: Stats}
  | {kind: 'other'; what: string}

/**
 * Reads what the workspace-relative path `relative` (bytes, no symlink on the way when it was
 * recorded) holds now. A path that now leads through a symbolic link, or ends in one, is
 * "other": the journal recorded real paths, so it is not the file recorded.
 * @throws the errors of Workspace.resolve and of reading (a folder that may not be read)
 */
export async function readFileState(workspace: Workspace, relative: Buffer): Promise<FileState> {
  const shown = displayName(relative)
  const real = joinBytes(workspace.rootBytes, relative)
  const resolved = await workspace.resolve(shown).catch((error: unknown) => {
    // A name on the way that is now a file, or a link leading outside: not what was recorded.
    if (error instanceof Error && /outside the workspace|not a folder|is a file/i.test(error.message)) return undefined
    throw error
  })
  if (!resolved) return {kind: 'other', what: 'a path that now leads elsewhere'}
  if (!resolved.real.equals(real)) return {kind: 'other', what: 'a path that now leads through a symbolic link'}
  if (!resolved.exists) return {kind: 'missing'}
  const folder = await ConfinedFolder.open(workspace, parentOf(real), shown)
  try {
    let handle
    try {
      handle = await open(folder.entry(real.subarray(real.lastIndexOf(0x2f) + 1)), FILE_OPEN_FLAGS)
    } catch (error) {
      if (errorCode(error) === 'ENOENT') return {kind: 'missing'}
      if (errorCode(error) === 'ELOOP') return {kind: 'other', what: 'a symbolic link'}
      throw error
    }
    try {
      const info = await handle.stat()
      if (info.isDirectory()) return {kind: 'other', what: 'a folder'}
      if (!info.isFile()) return {kind: 'other', what: 'not a regular file'}
      return {kind: 'file', content: await handle.readFile(), mode: info.mode & 0o7777, info}
    } finally {
      await handle.close()
    }
  } finally {
    await folder.close()
  }
}

/** Whether `state` is the file `digest` describes (null: nothing there). */
export function isStateOf(state: FileState, digest: FileDigest | null): boolean {
  if (digest === null) return state.kind === 'missing'
  return state.kind === 'file' && state.mode === digest.mode && sha256(state.content) === digest.sha256
}
