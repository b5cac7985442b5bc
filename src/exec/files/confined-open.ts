/**
 * Opening what `Workspace.resolve` checked, and verifying the object actually opened (DESIGN
 * §4.2), so that a local process swapping a folder for a symlink between the check and the use
 * cannot move a read or a write outside the workspace.
 *
 * - Files and folders are opened with `O_NOFOLLOW` (a link swapped in at the last name fails)
 *   and `O_NONBLOCK` (a FIFO or device swapped in cannot hang the call); the type is then taken
 *   from `fstat` of the descriptor, not from the path.
 * - On Linux the object is reached from the root through held folders, each opened through the
 *   one before without following a link, so no folder on the way can be swapped for a link to the
 *   outside, and a name found missing is missing inside.
 * - On Linux the descriptor names its object: the target of `/proc/self/fd/N` is where the
 *   opened file or folder really is, whatever happened to the path meanwhile. It must lie inside
 *   the workspace, or the call is refused as outside.
 * - Entries of a verified folder are reached through its descriptor (`/proc/self/fd/N/name`), so
 *   a later swap of the folder's path cannot redirect a create, rename or link.
 *
 * Where there is no `/proc/self/fd` (macOS), the checks fall back to the path: names are still
 * resolved without following swapped links at the last name, but a swap of a folder higher up,
 * at the right instant, is not detected (the README says so).
 */
import {closeSync, constants as fsConstants, fstatSync, openSync} from 'node:fs'
import type {Stats} from 'node:fs'
import {type FileHandle, lstat, open} from 'node:fs/promises'
import {resolve as resolvePath} from 'node:path'

import {BadInputError, OutsideWorkspaceError} from '../../errors.js'
import {escapeControls} from '../../text-escape.js'
import {joinBytes, type ResolvedPath, splitPath, type Workspace} from '../workspace.js'
import {explainFsError} from '../fs-errors.js'
import {CAN_VERIFY_DESCRIPTORS, descriptorEntry, descriptorPath, descriptorTarget, FOLDER_PATH_FLAGS} from './descriptors.js'

export {CAN_VERIFY_DESCRIPTORS, descriptorPath, descriptorTarget} from './descriptors.js'

const {O_RDONLY, O_NOFOLLOW, O_NONBLOCK, O_DIRECTORY} = fsConstants

/** Flags for opening a file to read: never through a last-name symlink, never blocking on a FIFO. */
export const FILE_OPEN_FLAGS = O_RDONLY | O_NOFOLLOW | O_NONBLOCK
/** Flags for opening a folder. */
export const FOLDER_OPEN_FLAGS = O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_NONBLOCK

/**
 * The path that names the folder open at `fd` (real path `real`) and, with a name appended, its
 * entries through the descriptor: `/proc/self/fd/N` on Linux, the real path elsewhere.
 */
export function folderBase(fd: number, real: Buffer): Buffer {
  return CAN_VERIFY_DESCRIPTORS ? Buffer.from(descriptorPath(fd)) : real
}

/**
 * Checks that the object open at `fd` lies inside the workspace (Linux), reading where its
 * descriptor points (synchronously: reading a /proc link never waits on a disk).
 * @throws OutsideWorkspaceError naming `requested` when it does not.
 */
export function verifyDescriptor(workspace: Workspace, fd: number, requested: string): void {
  if (!CAN_VERIFY_DESCRIPTORS) return
  if (!workspace.isInside(descriptorTarget(fd))) throw new OutsideWorkspaceError(requested)
}

/** A path to open an object by, and what to let go once it is opened. */
interface Reach {
  path: Buffer
  release(): void
}

/**
 * A path that reaches the object at the real path `real` (inside the workspace) from the root
 * through held folders (Linux): each folder on the way is opened through the one before, without
 * following a link (synchronously, as in workspace-walk.ts), and the object is reached as an entry
 * of the last (`/proc/self/fd/N/name`). So no folder on the way can be swapped for a link, and a
 * missing name is missing inside. Elsewhere, and for the root itself, the path is `real`.
 * @throws the system's error (ENOENT, ENOTDIR) when a folder on the way is gone or no longer a folder.
 */
function reachBeneath(workspace: Workspace, real: Buffer): Reach {
  const root = workspace.rootBytes
  if (!CAN_VERIFY_DESCRIPTORS || real.length <= root.length || !workspace.isInside(real)) return {path: real, release() {}}
  const names = splitPath(real.subarray(root.length))
  let fd = openSync(root, FOLDER_PATH_FLAGS)
  try {
    for (const name of names.slice(0, -1)) {
      const next = openSync(descriptorEntry(fd, name), FOLDER_PATH_FLAGS)
      closeSync(fd)
      fd = next
    }
  } catch (error) {
    closeSync(fd)
    throw error
  }
  const held = fd
  return {path: descriptorEntry(held, names.at(-1) as Buffer), release: () => closeSync(held)}
}

/** A regular file of the workspace, open for reading. Close `handle` when done. */
export interface OpenedFile {
  handle: FileHandle
  /** `fstat` of the descriptor. */
  info: Stats
  path: ResolvedPath
}

/**
 * Opens the object at the real path `real` with `flags`, reached through held folders (see
 * reachBeneath) or by `via` (an entry of another open folder), and verifies it lies inside.
 */
async function openVerified(workspace: Workspace, real: Buffer, flags: number, requested: string, action: 'look' | 'write' = 'look', via?: Buffer) {
  let handle: FileHandle
  let reach: Reach | undefined
  try {
    reach = via === undefined ? reachBeneath(workspace, real) : {path: via, release() {}}
    handle = await open(reach.path, flags)
  } catch (error) {
    if (reach && (flags & O_DIRECTORY) !== 0 && (error as NodeJS.ErrnoException).code === 'ENOTDIR') {
      throw await notAFolderError(workspace, real, reach.path, requested)
    }
    throw explainFsError(error, requested, action)
  } finally {
    reach?.release()
  }
  try {
    verifyDescriptor(workspace, handle.fd, requested)
    // Synchronous, as the walk's calls are: fstat of an open descriptor takes microseconds.
    return {handle, info: fstatSync(handle.fd)}
  } catch (error) {
    await handle.close().catch(() => undefined)
    throw explainFsError(error, requested, action)
  }
}

/**
 * Resolves `requested` (which must exist) and takes the `fstat` of the object there (a file or a
 * folder), opened without following a link or blocking and verified inside the workspace.
 * @throws as `Workspace.resolve` does, OutsideWorkspaceError when it is not inside, and the errors of `explainFsError`.
 */
export async function statPath(workspace: Workspace, requested: string): Promise<{path: ResolvedPath; info: Stats}> {
  const {release, via, ...path} = await workspace.resolveHeld(requested)
  const {handle, info} = await openVerified(workspace, path.real, FILE_OPEN_FLAGS, requested, 'look', via).finally(release)
  await handle.close()
  return {path, info}
}

/**
 * Why a folder open failed with ENOTDIR: what is there is not a folder, or it changed after the
 * path was resolved (it became a symbolic link: O_NOFOLLOW with O_DIRECTORY fails that way too; or
 * it was swapped and is a folder again), judged by looking again at `at`, the path it was opened by.
 * The folder opened may be the one `requested` names or the
 * folder of a file it names (an edit opens the file's folder): the message names the folder, and
 * `requested` when that is a file in it, so it never says a file "is not a folder".
 */
async function notAFolderError(workspace: Workspace, real: Buffer, at: Buffer, requested: string): Promise<BadInputError> {
  const shown = escapeControls(requested)
  const folder = workspace.isInside(real) ? workspace.relativeOf(real) : undefined
  const isRequested = folder === undefined || samePath(workspace, requested, folder)
  const subject = isRequested ? `"${shown}"` : `The folder "${folder}" of "${shown}"`
  const now = await lstat(at).catch(() => undefined)
  if (now === undefined || now.isSymbolicLink() || now.isDirectory()) {
    const what = now?.isSymbolicLink() ? 'it became a symbolic link' : now === undefined ? 'it was removed' : 'it was replaced meanwhile'
    return new BadInputError(`${subject} changed while it was being opened (${what}). Retry; if it keeps failing, look at it with the list tool.`)
  }
  if (!isRequested) {
    return new BadInputError(`${subject} is no longer a folder (it changed while it was being opened). Retry; if it keeps failing, look at it with the list tool.`)
  }
  if (now.isFile()) return new BadInputError(`${subject} is a file, not a folder. Pass a folder, or use the read tool for a file.`)
  const kind = now.isFIFO() ? ' (a FIFO)' : now.isSocket() ? ' (a socket)' : now.isCharacterDevice() || now.isBlockDevice() ? ' (a device)' : ''
  return new BadInputError(`${subject} is not a folder${kind}. Pass a folder; check what is there with the list tool.`)
}

/** Whether the tool path `requested` names, lexically, the workspace-relative path `relative` (display forms). */
function samePath(workspace: Workspace, requested: string, relative: string): boolean {
  const root = workspace.root
  return resolvePath(root, requested) === resolvePath(root, relative)
}

/**
 * Resolves `requested` and opens the regular file there for reading, verified inside.
 * @throws BadInputError for a folder (use list) or anything that is not a regular file.
 * @throws as `Workspace.resolve` does, and the errors of `explainFsError`.
 */
export async function openFile(workspace: Workspace, requested: string): Promise<OpenedFile> {
  const {release, via, ...path} = await workspace.resolveHeld(requested)
  const {handle, info} = await openVerified(workspace, path.real, FILE_OPEN_FLAGS, requested, 'look', via).finally(release)
  const shown = escapeControls(requested)
  if (!info.isFile()) {
    await handle.close()
    if (info.isDirectory()) throw new BadInputError(`"${shown}" is a folder, not a file. Use the list tool to see what it contains.`)
    throw new BadInputError(`"${shown}" is not a regular file (a device, pipe or socket); the file tools work on regular files only.`)
  }
  return {handle, info, path}
}

/**
 * A folder of the workspace held open and verified; its entries are reached through the
 * descriptor (see the module comment). Close it when done.
 */
export class ConfinedFolder {
  private readonly base: Buffer

  private constructor(
    readonly handle: FileHandle,
    /** The folder's real path as bytes, when it was opened. */
    readonly real: Buffer,
    /** `fstat` of the descriptor, when it was opened. */
    readonly info: Stats,
  ) {
    this.base = folderBase(handle.fd, real)
  }

  /**
   * Opens the folder at the real path `real` (from `Workspace.resolve`), verified inside; `via`
   * is the path to open it by, when it differs (an entry of another open folder).
   * @throws BadInputError when it is not a folder; OutsideWorkspaceError when it is not inside.
   */
  static async open(
    workspace: Workspace,
    real: Buffer,
    requested: string,
    action: 'look' | 'write' = 'look',
    via?: Buffer,
  ): Promise<ConfinedFolder> {
    const {handle, info} = await openVerified(workspace, real, FOLDER_OPEN_FLAGS, requested, action, via)
    return new ConfinedFolder(handle, real, info)
  }

  /** Where the folder really is now: its descriptorTarget on Linux, its real path when it was opened elsewhere. */
  get realNow(): Buffer {
    return CAN_VERIFY_DESCRIPTORS ? descriptorTarget(this.handle.fd) : this.real
  }

  /** The real path of the entry `name` (for opening it as a folder of its own). */
  childReal(name: Uint8Array): Buffer {
    return joinBytes(this.real, name)
  }

  /** A path that reaches the entry `name` (bytes, one name) of this very folder. */
  entry(name: Uint8Array): Buffer {
    return joinBytes(this.base, name)
  }

  /** The path that names this folder itself (for readdir). */
  get self(): Buffer {
    return this.base
  }

  async close(): Promise<void> {
    await this.handle.close().catch(() => undefined)
  }
}

/**
 * Resolves `requested` (which must exist) and runs `action` with the folder there open (see
 * withFolder), reached through the folder the walk held.
 * @throws as `Workspace.resolve` and ConfinedFolder.open do.
 */
export async function withResolvedFolder<T>(
  workspace: Workspace,
  requested: string,
  action: (folder: ConfinedFolder, path: ResolvedPath) => Promise<T>,
): Promise<T> {
  const {release, via, ...path} = await workspace.resolveHeld(requested)
  const folder = await ConfinedFolder.open(workspace, path.real, requested, 'look', via).finally(release)
  try {
    return await action(folder, path)
  } finally {
    // Not awaited: the answer need not wait a round trip to the thread pool for the close.
    void folder.close()
  }
}

/** Runs `action` with the folder open, closing it afterwards. */
export async function withFolder<T>(
  workspace: Workspace,
  real: Buffer,
  requested: string,
  action: (folder: ConfinedFolder) => Promise<T>,
  mode: 'look' | 'write' = 'look',
): Promise<T> {
  const folder = await ConfinedFolder.open(workspace, real, requested, mode)
  try {
    return await action(folder)
  } finally {
    await folder.close()
  }
}
