/**
 * The user's private state folder, where ak keeps the journals of its file tools (DESIGN §4.10):
 * `$XDG_STATE_HOME/ak` (when that is an absolute path), else `~/.local/state/ak` (the XDG Base
 * Directory specification's default for state). What it holds is the content of the user's files,
 * and what is read from it is written back into the workspace by an undo, so it is used only
 * where no other user can read it or change what its path leads to: the rule of the code cache's
 * folder (bin/cache-dir.js), checked the same way.
 */
import {lstat, mkdir, realpath, chmod} from 'node:fs/promises'
import {homedir} from 'node:os'
import path from 'node:path'

import {AkError} from '../../errors.js'
import {errorCode} from '../fs-errors.js'

/** Permission bits that let someone other than the owner change a folder's entries. */
const WRITABLE_BY_OTHERS = 0o022
/** The sticky bit: in such a folder only an entry's owner may rename or remove it (as in /tmp). */
const STICKY = 0o1000
/** Permission bits of every folder ak makes in the state folder: the owner's only. */
export const PRIVATE_FOLDER_MODE = 0o700
/** Permission bits of every file ak writes in the state folder: the owner's only. */
export const PRIVATE_FILE_MODE = 0o600

/** Why the state folder cannot be used, said to the user. */
export class StateFolderError extends AkError {}

/**
 * The state folder ak uses by default: `$XDG_STATE_HOME/ak` when XDG_STATE_HOME is an absolute
 * path (the specification says to ignore a relative one), else `~/.local/state/ak`.
 */
export function defaultStateFolder(env: NodeJS.ProcessEnv = process.env): string {
  const xdg = env.XDG_STATE_HOME
  if (xdg && path.isAbsolute(xdg)) return path.join(xdg, 'ak')
  return path.join(homedir(), '.local', 'state', 'ak')
}

/** `dir` for messages: with `~` for the home folder, so that a message shows no more of the host than needed. */
export function shownPath(dir: string): string {
  const home = homedir()
  return dir === home || dir.startsWith(`${home}/`) ? `~${dir.slice(home.length)}` : dir
}

/** The effective user id (undefined where there is none, on Windows). */
function currentUid(): number | undefined {
  return process.geteuid?.()
}

/**
 * Checks that no user but this process's effective user and root can change what the real path
 * `dir` leads to: from `/` down, each folder is a real folder (looked at with lstat, so a link
 * found on the way fails the check instead of being followed) that belongs to one of them, and
 * only owners can rename entries in it (not writable by group or others, or sticky). The same
 * rule as bin/cache-dir.js's isSafeChain.
 * @param dir an absolute real path
 * @throws StateFolderError naming the first folder that fails, and why
 */
export async function checkFolderChain(dir: string): Promise<void> {
  const uid = currentUid()
  if (uid === undefined) return
  const names = dir.split(path.sep).filter(Boolean)
  for (let depth = 0; depth <= names.length; depth++) {
    const current = path.sep + names.slice(0, depth).join(path.sep)
    const info = await lstat(current)
    if (!info.isDirectory()) {
      throw new StateFolderError(`${shownPath(current)} is not a folder (it is a link or a file), so ak cannot keep its journal below it safely.`)
    }
    if (info.uid !== uid && info.uid !== 0) {
      throw new StateFolderError(
        `${shownPath(current)} belongs to user ${info.uid}, who could change what ak keeps below it. ` +
          'Set XDG_STATE_HOME to a folder of your own (ak keeps its journal in $XDG_STATE_HOME/ak).',
      )
    }
    if ((info.mode & WRITABLE_BY_OTHERS) !== 0 && (info.mode & STICKY) === 0) {
      throw new StateFolderError(
        `${shownPath(current)} may be changed by other users (mode ${(info.mode & 0o7777).toString(8)}), who could swap what ak keeps below it. ` +
          `Remove their write permission (chmod go-w ${shownPath(current)}) or set XDG_STATE_HOME to a private folder.`,
      )
    }
  }
}

/**
 * Makes `dir` a private folder of this user if it is not one: created with mode 0700 when
 * missing; an existing one must be a real folder owned by this user, and is given mode 0700.
 * @throws StateFolderError when something else is there or it belongs to another user
 */
async function makePrivateFolder(dir: string): Promise<void> {
  try {
    await mkdir(dir, {mode: PRIVATE_FOLDER_MODE})
  } catch (error) {
    if (errorCode(error) !== 'EEXIST') throw error
  }
  const info = await lstat(dir)
  const uid = currentUid()
  if (!info.isDirectory() || (uid !== undefined && info.uid !== uid)) {
    throw new StateFolderError(
      `${shownPath(dir)} is ${info.isDirectory() ? `a folder of user ${info.uid}` : 'not a folder'}, so ak cannot keep its journal there. ` +
        'Remove it, or set XDG_STATE_HOME to a folder of your own.',
    )
  }
  if ((info.mode & 0o7777) !== PRIVATE_FOLDER_MODE) await chmod(dir, PRIVATE_FOLDER_MODE)
}

/**
 * Opens the private folder `names` below the state folder `base` (each name one folder), making
 * what is missing, and returns its real path. `base`'s nearest existing ancestor must pass
 * `checkFolderChain`; below it, every folder is made (or found) private to the user (0700, owned
 * by the user), and the whole real path is checked again at the end.
 * @param create false to make nothing: undefined is returned when a folder is missing
 * @throws StateFolderError when a folder on the way fails the checks, and the system error of
 *   mkdir or lstat for anything else (a read-only file system)
 */
export async function openPrivateFolder(base: string, names: string[], options: {create: boolean}): Promise<string | undefined> {
  const wanted = path.join(path.resolve(base), ...names)
  // The nearest existing ancestor of `base`, as a real path: everything below it is made here.
  let existing = path.resolve(base)
  const missing: string[] = []
  for (;;) {
    try {
      existing = await realpath(existing)
      break
    } catch (error) {
      if (errorCode(error) !== 'ENOENT' || existing === path.dirname(existing)) throw error
      missing.unshift(path.basename(existing))
      existing = path.dirname(existing)
    }
  }
  if (!options.create && missing.length > 0) return undefined
  await checkFolderChain(existing)
  let current = existing
  for (const name of missing) {
    current = path.join(current, name)
    await makePrivateFolder(current)
  }
  for (const name of names) {
    current = path.join(current, name)
    if (!options.create) {
      const info = await lstat(current).catch((error: unknown) => {
        if (errorCode(error) === 'ENOENT') return undefined
        throw error
      })
      if (!info) return undefined
    }
    await makePrivateFolder(current)
  }
  const real = await realpath(current)
  if (real !== path.join(existing, ...missing, ...names) && real !== wanted) {
    throw new StateFolderError(`${shownPath(wanted)} changed while ak opened it (a folder on the way became a link). Retry.`)
  }
  await checkFolderChain(real)
  return real
}
