/**
 * What a path of the workspace holds now, compared with what the journal says it held: the check
 * behind crash recovery and behind `ak exec undo`'s refusal to overwrite later work.
 */
import {type Stats} from 'node:fs'
import {lstat, open, readlink} from 'node:fs/promises'

import {ConfinedFolder, FILE_OPEN_FLAGS} from '../files/confined-open.js'
import {displayName} from '../display-name.js'
import {errorCode} from '../fs-errors.js'
import {joinBytes, parentOf, type Workspace} from '../workspace.js'
import {type FileDigest, TYPE_BITS} from './change-log.js'
import {sha256} from './file-digest.js'

/**
 * A path's state: nothing there, a regular file (content, permission bits, fstat), a symbolic link
 * (its target as the content, and its mode with SYMLINK_TYPE_BITS, as the change engine records a
 * link), or something else.
 */
export type FileState =
  | {kind: 'missing'}
  | {kind: 'file'; content: Buffer; mode: number; info: Stats}
  | {kind: 'link'; content: Buffer; mode: number; info: Stats}
  | {kind: 'other'; what: string}

/**
 * Reads what the workspace-relative path `relative` (bytes, no symlink on the way when it was
 * recorded) holds now: the entry itself, never what a link there points to. A path whose folder
 * now lies elsewhere (a folder on the way became a link or a file) is "other": the journal
 * recorded real paths, so it is not the file recorded.
 * @throws the errors of Workspace.resolve and of reading (a folder that may not be read)
 */
export async function readFileState(workspace: Workspace, relative: Buffer): Promise<FileState> {
  const real = joinBytes(workspace.rootBytes, relative)
  const folderReal = parentOf(real)
  const name = real.subarray(real.lastIndexOf(0x2f) + 1)
  const folderShown = workspace.relativeOf(folderReal)
  const shown = displayName(relative)
  const folderPath = await workspace.resolve(folderShown).catch((error: unknown) => {
    // A name on the way that is now a file, or a link leading outside: not what was recorded.
    if (error instanceof Error && /outside the workspace|not a folder|is a file/i.test(error.message)) return undefined
    throw error
  })
  if (!folderPath || !folderPath.real.equals(folderReal)) return {kind: 'other', what: 'a path whose folder now lies elsewhere (a folder on the way became a link)'}
  if (!folderPath.exists) return {kind: 'missing'}
  const folder = await ConfinedFolder.open(workspace, folderReal, shown)
  try {
    const seen = await lstat(folder.entry(name)).catch((error: unknown) => {
      if (errorCode(error) === 'ENOENT' || errorCode(error) === 'ENOTDIR') return undefined
      throw error
    })
    if (!seen) return {kind: 'missing'}
    if (seen.isSymbolicLink()) return {kind: 'link', content: await readlink(folder.entry(name), {encoding: 'buffer'}), mode: seen.mode & (TYPE_BITS | 0o7777), info: seen}
    if (seen.isDirectory()) return {kind: 'other', what: 'a folder'}
    if (!seen.isFile()) return {kind: 'other', what: 'not a regular file'}
    let handle
    try {
      handle = await open(folder.entry(name), FILE_OPEN_FLAGS)
    } catch (error) {
      if (errorCode(error) === 'ENOENT') return {kind: 'missing'}
      if (errorCode(error) === 'ELOOP') return {kind: 'other', what: 'a symbolic link put there meanwhile'}
      throw error
    }
    try {
      const info = await handle.stat()
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
  return (state.kind === 'file' || state.kind === 'link') && state.mode === digest.mode && sha256(state.content) === digest.sha256
}
