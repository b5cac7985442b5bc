/**
 * Writing a file so that a crash at any moment leaves either the old file or the new one, never
 * a mix: the new bytes go to a temporary file in the same folder, are flushed to disk, and the
 * temporary file then takes the final name in one step (rename, or link for a new file).
 */
import {randomBytes} from 'node:crypto'
import type {Stats} from 'node:fs'
import {link, mkdir, open, rename, stat, unlink} from 'node:fs/promises'
import path from 'node:path'

import {BadInputError} from '../../errors.js'

/** Permission bits of a file mode (including setuid, setgid and sticky). */
const PERMISSION_BITS = 0o7777
/** Mode of a new file before the umask, as `touch` and editors use. */
const NEW_FILE_MODE = 0o666

function errorCode(error: unknown): string | undefined {
  return (error as NodeJS.ErrnoException).code
}

/**
 * A fresh temporary name next to `target`, hidden and recognisable. It does not repeat the
 * file's name, which may already be as long as the file system allows.
 */
function temporaryPathFor(target: string): string {
  return path.join(path.dirname(target), `.ak-edit-${randomBytes(8).toString('hex')}.tmp`)
}

/** Flushes a folder's entries (the rename or link just made) to disk. Best effort. */
async function syncFolder(folder: string): Promise<void> {
  try {
    const handle = await open(folder, 'r')
    try {
      await handle.sync()
    } finally {
      await handle.close()
    }
  } catch {
    // Some file systems refuse fsync on a folder; the rename itself is still atomic.
  }
}

/** What a replacement keeps of the original file. */
interface KeptAttributes {
  /** Permission bits. */
  mode: number
  uid: number
  gid: number
}

/**
 * Writes `data` to a new temporary file next to `target` (created with `wx`, so nothing existing
 * is followed or overwritten) and flushes it. Returns its path. Without `keep` the file gets
 * `NEW_FILE_MODE` less the umask and the server's own owner.
 * @throws BadInputError when the owner in `keep` cannot be given (the temporary file is removed)
 */
async function writeTemporary(target: string, data: Uint8Array, keep?: KeptAttributes): Promise<string> {
  const temporary = temporaryPathFor(target)
  const handle = await open(temporary, 'wx', keep?.mode ?? NEW_FILE_MODE)
  try {
    await handle.writeFile(data)
    if (keep) {
      const own = await handle.stat()
      if (own.uid !== keep.uid || own.gid !== keep.gid) {
        await handle.chown(keep.uid, keep.gid).catch((error: unknown) => {
          if (errorCode(error) !== 'EPERM') throw error
          throw new BadInputError(
            `The file is owned by user ${keep.uid}, group ${keep.gid}, and this server may not give a file that owner, ` +
              'so editing it would change its owner. The file was not changed.',
          )
        })
      }
      // After chown, which clears setuid/setgid bits, and past the umask that `open` applied.
      await handle.chmod(keep.mode)
    }
    await handle.sync()
  } catch (error) {
    await handle.close().catch(() => undefined)
    await unlink(temporary).catch(() => undefined)
    throw error
  }
  await handle.close()
  return temporary
}

/**
 * Replaces the regular file at `real` with `data`, atomically: a temporary file in the same
 * folder, flushed, given the original's mode and owner, then renamed over `real`. `real` must
 * be the file's real path (a symlink resolved), so a link pointing at it stays a link.
 *
 * The new file is a new inode: other hard links to the old one keep the old content (see
 * docs/tools.md), and extended attributes and ACLs are not carried over.
 *
 * @param original the `stat` of `real` taken before its content was read; if the file changed
 *   since then (another inode, size, modification or change time), nothing is written. The
 *   check runs right before the rename, but another process writing in between still races.
 * @throws BadInputError when the file changed meanwhile or its owner cannot be kept
 */
export async function replaceFileAtomically(real: string, data: Uint8Array, original: Stats): Promise<void> {
  const temporary = await writeTemporary(real, data, {
    mode: original.mode & PERMISSION_BITS,
    uid: original.uid,
    gid: original.gid,
  })
  try {
    // Checked as late as possible: only a write landing between this stat and the rename can
    // still be lost (edits from this server never race here: they hold the path's lock).
    const now = await stat(real)
    const isSame =
      now.ino === original.ino &&
      now.dev === original.dev &&
      now.size === original.size &&
      now.mtimeMs === original.mtimeMs &&
      now.ctimeMs === original.ctimeMs
    if (!isSame) {
      throw new BadInputError('The file changed on disk while it was being edited. Read it again and retry the edit.')
    }
    await rename(temporary, real)
  } catch (error) {
    await unlink(temporary).catch(() => undefined)
    throw error
  }
  await syncFolder(path.dirname(real))
}

/**
 * Creates the file `real` with `data`, with its missing parent folders, never overwriting or
 * following anything already at `real` (a file, a folder or a dangling symlink): the content is
 * written to a temporary file (created with `wx`) and flushed, then linked to `real`, which
 * fails if anything exists there. Where the file system has no hard links, `real` is written
 * directly with `wx` instead.
 * @param requested the path as the caller gave it, for messages
 * @throws BadInputError when something already exists at `real`
 */
export async function createFileExclusively(real: string, data: Uint8Array, requested: string): Promise<void> {
  await mkdir(path.dirname(real), {recursive: true})
  const exists = () =>
    new BadInputError(`"${requested}" already exists. To change it, pass the text to replace as old_text; an empty old_text only creates new files.`)
  const temporary = await writeTemporary(real, data)
  try {
    await link(temporary, real)
  } catch (error) {
    if (errorCode(error) === 'EEXIST') throw exists()
    if (!['EPERM', 'ENOTSUP', 'EOPNOTSUPP', 'ENOSYS'].includes(errorCode(error) ?? '')) throw error
    const handle = await open(real, 'wx', NEW_FILE_MODE).catch((cause: unknown) => {
      throw errorCode(cause) === 'EEXIST' ? exists() : cause
    })
    try {
      await handle.writeFile(data)
      await handle.sync()
    } finally {
      await handle.close()
    }
  } finally {
    await unlink(temporary).catch(() => undefined)
  }
  await syncFolder(path.dirname(real))
}
