// The user's private folder for ak's caches. Plain JavaScript with Node's built-ins only; shared
// by bin/run.js and the `agentexec` launcher (bundled into dist/agentexec.js).
import {lstatSync, mkdirSync, realpathSync} from 'node:fs'
import {homedir} from 'node:os'
import path from 'node:path'

/** Permission bits that let someone other than the owner change a folder's entries. */
const WRITABLE_BY_OTHERS = 0o022
/** The sticky bit: in such a folder only an entry's owner may rename or remove it (as in /tmp). */
const STICKY = 0o1000

/**
 * The folder where ak keeps compiled code between starts for the user running it:
 * `$XDG_CACHE_HOME/ak` (when that is an absolute path), else `~/.cache/ak`, as its real path.
 *
 * What is read from it is run, so it is used only when no other user can change what its path
 * leads to, now or later: every folder on the real path from `/` down must belong to this
 * process's effective user or to root, and none may let others rename its entries (writable by
 * group or others without the sticky bit); `ak` itself must be this user's own real folder.
 * So `sudo -E` with another user's HOME gets no cache: that user could swap a folder on the way
 * between the check and a read.
 *
 * Nothing is created until the folders that exist pass those checks, and then only `ak` and,
 * for the default, `.cache` in an existing home folder (mode 0700); a missing home or
 * XDG_CACHE_HOME is never made. Node's own default for its compile cache,
 * `os.tmpdir()/node-compile-cache`, is a folder any local user can create first and fill (Node
 * checks neither its owner nor its mode), which is why ak never uses it.
 * @returns the folder's absolute real path, or undefined when caching is turned off
 *   (`NODE_DISABLE_COMPILE_CACHE=1`, Node's switch for the same purpose) or no such folder can be
 *   had (no home folder, a read-only one, a folder that fails the checks). Never throws.
 */
export function privateCacheDir(env = process.env) {
  if (env.NODE_DISABLE_COMPILE_CACHE === '1') return undefined
  const uid = process.geteuid?.()
  if (uid === undefined) return undefined
  try {
    const fromXdg = Boolean(env.XDG_CACHE_HOME) && path.isAbsolute(env.XDG_CACHE_HOME)
    const base = fromXdg ? env.XDG_CACHE_HOME : path.join(homedir(), '.cache')
    // The folder that must exist already: XDG_CACHE_HOME itself, or the home folder.
    const existing = realpathSync(fromXdg ? base : path.dirname(base))
    if (!isSafeChain(existing, uid)) return undefined
    const realBase = fromXdg ? existing : path.join(existing, '.cache')
    if (!fromXdg) makeFolder(realBase)
    const dir = path.join(realpathSync(realBase), 'ak')
    if (!isSafeChain(path.dirname(dir), uid)) return undefined
    makeFolder(dir)
    const own = lstatSync(dir)
    if (!own.isDirectory() || own.uid !== uid || (own.mode & WRITABLE_BY_OTHERS) !== 0) return undefined
    return dir
  } catch {
    return undefined
  }
}

/** Makes `dir` with mode 0700 unless it exists. */
function makeFolder(dir) {
  try {
    mkdirSync(dir, {mode: 0o700})
  } catch (error) {
    if (error?.code !== 'EEXIST') throw error
  }
}

/**
 * Whether no user but `uid` and root can change what the real path `dir` leads to, now or later:
 * walking from `/` down, each folder is a real folder (looked at with lstat, so a link found on
 * the way fails the check instead of being followed) that belongs to one of them, and only
 * owners can rename entries in it (not writable by group or others, or sticky). Checked top
 * down, each folder sits in a parent already shown to keep its entries, so no other user can swap
 * a folder of the path while or after it is checked.
 * @param dir an absolute real path (realpathSync's answer)
 * @param uid the effective user id
 * @throws whatever lstat throws (a folder removed meanwhile)
 */
export function isSafeChain(dir, uid) {
  const names = dir.split(path.sep).filter(Boolean)
  for (let depth = 0; depth <= names.length; depth++) {
    const current = path.sep + names.slice(0, depth).join(path.sep)
    const stat = lstatSync(current)
    if (!stat.isDirectory() || (stat.uid !== uid && stat.uid !== 0)) return false
    if ((stat.mode & WRITABLE_BY_OTHERS) !== 0 && (stat.mode & STICKY) === 0) return false
  }
  return true
}
