/**
 * Writing a file so that a crash at any moment leaves either the old file or the new one, never
 * a mix: the new bytes go to a temporary file in the same folder, are flushed to disk, and the
 * temporary file then takes the final name in one step (rename, or link for a new file).
 */
import {closeSync, fchmodSync, fchownSync, fstatSync, openSync} from 'node:fs'
import {lstat, mkdir, readdir, unlink} from 'node:fs/promises'

import {BadInputError} from '../../errors.js'
import {NAMED_FILE_CREATE_FLAGS} from '../../named-file.js'
import type {Workspace} from '../workspace.js'
import {ConfinedFolder} from './confined-open.js'
import {errorCode} from '../fs-errors.js'
import {CLAIM_NAME, LOCK_NAME, TEMPORARY_NAME, isRunning, removeStaleLock, temporaryName} from './replace-lock.js'
import {closeQuietly, removeQuietly} from './quiet-calls.js'
import {fsyncDescriptor, writeWholeContent} from './whole-content.js'

/** Permission bits of a file mode (including setuid, setgid and sticky). */
export const PERMISSION_BITS = 0o7777
/** Mode of a new file before the umask, as `touch` and editors use. */
export const NEW_FILE_MODE = 0o666

/** Folders (device:inode:birth time) already cleared of stale temporary files by this process; bounded. */
const clearedFolders = new Set<string>()
const MAX_CLEARED_FOLDERS = 10_000

/**
 * Removes the temporary files, replace locks and claims a killed server left in `folder` (their
 * process is gone), once per folder and process. A temporary file is removed only when it is a
 * regular file (ak writes nothing else under that name); a lock or claim only by taking it over
 * (see `removeStaleLock`). Best effort: a folder that cannot be read is left as it is.
 */
export async function removeStaleTemporaries(folder: ConfinedFolder): Promise<void> {
  const info = await folder.handle.stat()
  // With the birth time: a folder removed and another made may get the same inode number.
  const key = `${info.dev}:${info.ino}:${info.birthtimeMs}`
  if (clearedFolders.has(key)) return
  if (clearedFolders.size >= MAX_CLEARED_FOLDERS) clearedFolders.clear()
  clearedFolders.add(key)
  const names = await readdir(folder.self).catch(() => [] as string[])
  for (const name of names) {
    const match = TEMPORARY_NAME.exec(name)
    if (match && Number(match[1]) !== process.pid && !isRunning(Number(match[1]))) {
      const entry = folder.entry(Buffer.from(name))
      if ((await lstat(entry).catch(() => undefined))?.isFile()) await unlink(entry).catch(() => undefined)
    } else if (LOCK_NAME.test(name) || CLAIM_NAME.test(name)) {
      await removeStaleLock(folder, Buffer.from(name))
    }
  }
}

/** Flushes a folder's entries (the rename or link just made) to disk. Best effort. */
export async function syncFolder(folder: ConfinedFolder): Promise<void> {
  // Some file systems refuse fsync on a folder; the rename itself is still atomic.
  await folder.handle.sync().catch(() => undefined)
}

/** What a replacement keeps of the original file. */
export interface KeptAttributes {
  /** Permission bits. */
  mode: number
  uid: number
  gid: number
}

/**
 * Writes `data` to a new temporary file in `folder` (created with NAMED_FILE_CREATE_FLAGS, so
 * nothing existing is followed, waited on or overwritten) and flushes it. Returns its name. Without `keep` the file gets
 * `NEW_FILE_MODE` less the umask and the server's own owner.
 * @throws BadInputError when the owner in `keep` cannot be given (the temporary file is removed)
 */
export async function writeTemporary(folder: ConfinedFolder, data: Uint8Array, keep?: KeptAttributes): Promise<Buffer> {
  const name = temporaryName()
  const fd = openSync(folder.entry(name), NAMED_FILE_CREATE_FLAGS, keep?.mode ?? NEW_FILE_MODE)
  try {
    await writeWholeContent(fd, data)
    if (keep) {
      const own = fstatSync(fd)
      if (own.uid !== keep.uid || own.gid !== keep.gid) {
        try {
          fchownSync(fd, keep.uid, keep.gid)
        } catch (error) {
          if (errorCode(error) !== 'EPERM') throw error
          throw new BadInputError(
            `The file is owned by user ${keep.uid}, group ${keep.gid}, and this server may not give a file that owner, ` +
              'so editing it would change its owner. The file was not changed.',
          )
        }
      }
      // After chown, which clears setuid/setgid bits, and past the umask that `open` applied.
      fchmodSync(fd, keep.mode)
    }
    await fsyncDescriptor(fd)
  } catch (error) {
    closeQuietly(fd)
    removeQuietly(folder.entry(name))
    throw error
  }
  closeSync(fd)
  return name
}

/**
 * Opens the folder `names` below `folder`, creating each missing one, each verified inside the
 * workspace and reached through its parent's descriptor. Closes `folder` (and every folder on
 * the way) except the one returned.
 */
export async function openCreatingFolders(workspace: Workspace, folder: ConfinedFolder, names: Buffer[], requested: string): Promise<ConfinedFolder> {
  let current = folder
  for (const name of names) {
    try {
      await mkdir(current.entry(name)).catch((error: unknown) => {
        if (errorCode(error) !== 'EEXIST') throw error
      })
      const child = await ConfinedFolder.open(workspace, current.childReal(name), requested, 'write', current.entry(name))
      await current.close()
      current = child
    } catch (error) {
      await current.close()
      throw error
    }
  }
  return current
}
