// The user's private folder for ak's caches. Plain JavaScript with Node's built-ins only; shared
// by bin/run.js and the `agentexec` launcher (bundled into dist/agentexec.js).
import {lstatSync, mkdirSync, statSync} from 'node:fs'
import {homedir} from 'node:os'
import path from 'node:path'

/** Permission bits that let someone other than the owner change a folder's entries. */
const WRITABLE_BY_OTHERS = 0o022
/** The sticky bit: in such a folder only an entry's owner may rename or remove it (as in /tmp). */
const STICKY = 0o1000

/**
 * The folder where ak keeps compiled code between starts for the user running it:
 * `$XDG_CACHE_HOME/ak` (when that is an absolute path), else `~/.cache/ak`, created with mode 0700.
 * What is read from it is run, so it is used only when nobody else can write to it: it must be a
 * folder (not a link) owned by this process's effective user, writable by nobody else, in a
 * folder owned by that user or root that others cannot rename it out of.
 *
 * Node's own default for its compile cache, `os.tmpdir()/node-compile-cache`, is a folder any
 * local user can create first and fill (Node checks neither its owner nor its mode), which is
 * why ak never uses it.
 * @returns the folder's absolute path, or undefined when caching is turned off
 *   (`NODE_DISABLE_COMPILE_CACHE=1`, Node's switch for the same purpose) or no such folder can be
 *   had (no home folder, a read-only one, a folder that fails the checks). Never throws.
 */
export function privateCacheDir(env = process.env) {
  if (env.NODE_DISABLE_COMPILE_CACHE === '1') return undefined
  try {
    const base = env.XDG_CACHE_HOME && path.isAbsolute(env.XDG_CACHE_HOME) ? env.XDG_CACHE_HOME : path.join(homedir(), '.cache')
    const dir = path.join(base, 'ak')
    mkdirSync(dir, {recursive: true, mode: 0o700})
    const uid = process.geteuid?.()
    if (uid === undefined) return undefined
    const own = lstatSync(dir)
    if (!own.isDirectory() || own.uid !== uid || (own.mode & WRITABLE_BY_OTHERS) !== 0) return undefined
    const parent = statSync(base)
    if (parent.uid !== uid && parent.uid !== 0) return undefined
    if ((parent.mode & WRITABLE_BY_OTHERS) !== 0 && (parent.mode & STICKY) === 0) return undefined
    return dir
  } catch {
    return undefined
  }
}
