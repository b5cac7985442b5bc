/**
 * What the sandbox's walks for protected paths need of each folder they visit, kept between walks
 * and read again only when the folder changed. The walk before each sandboxed command
 * (sandbox-protected.ts) and the one after it (sandbox-leftovers.ts) visit every folder of the
 * workspace, up to PROTECTED_WALK_MAX_FOLDERS per root; reading each one's names on every command
 * made a command in a repository of 20,000 folders wait over a second. A folder's digest keeps only
 * what the walks use: the subfolders they go into, and the few entries they judge (protected names,
 * and the names git's rule for a git folder looks at).
 *
 * When a digest is used again: a folder's list of names changes only together with its status
 * change time (ctime). Adding, removing or renaming an entry sets it, and no program can set it
 * back (`utimes` sets the modification time, and itself changes ctime). So a digest is used while
 * the folder at that path is the same object (device and inode) with the same ctime, to the
 * nanosecond, as when it was read; anything else (a new ctime, a folder renamed into its place, a
 * mount over it, a link) reads it again. The kernel stamps ctime with a coarse clock (a tick, up
 * to 10 ms behind the real time): a change just after a read can carry the same stamp as one just
 * before it. So, as git does for its index ("racily clean" entries), a folder whose ctime is
 * within CHANGE_CLOCK_SLACK_MS of the read is not kept, and neither is one that changed while it
 * was read.
 */
import {type BigIntStats, type Dirent, lstatSync} from 'node:fs'
import {readdir} from 'node:fs/promises'
import {setImmediate as setImmediatePromise} from 'node:timers/promises'

import {GIT_HEAD_RULE, foldCase, protectedNameOf} from '../protected-paths.js'

/** Folders the walks never enter: dependencies installed by tools, not the project's own folders. */
export const SKIPPED_FOLDERS: ReadonlySet<string> = new Set(['node_modules'])
/** Names git's rule for a git folder looks at, besides the protected names: `HEAD` beside `objects/` and `refs/`, or a `commondir`. */
const GIT_RULE_NAMES: ReadonlySet<string> = new Set([GIT_HEAD_RULE.name, 'objects', 'refs', 'commondir'])
/** How far a file system's change times may lag the server's clock, in ms (the kernel stamps them with a coarse clock). */
export const CHANGE_CLOCK_SLACK_MS = 1000
/** Digests kept at most; past that the cache starts again empty (about 100 bytes each, plus their subfolders' names). */
export const FOLDER_DIGESTS_MAX_KEPT = 100_000
/** Digests given from the cache between two turns of the event loop. */
const HITS_PER_TURN = 500

/** An entry a walk judges: one with a protected name or a name of git's rule, with its type as the listing gave it. */
export type NotableEntry = Dirent<Buffer>

/** What the walks need of one folder. */
export interface FolderDigest {
  /**
   * The subfolders a walk goes into, as their names' bytes held in Latin-1 strings (one character
   * per byte; `Buffer.from(name, 'latin1')` gives the bytes back): every folder entry but those
   * with a protected name and SKIPPED_FOLDERS.
   */
  folders: string[]
  /** The entries with a protected name (protected-paths.ts) or a name of GIT_RULE_NAMES. */
  notable: NotableEntry[]
}

const EMPTY: FolderDigest = Object.freeze({folders: [], notable: []}) as FolderDigest

interface Kept {
  dev: bigint
  ino: bigint
  ctimeNs: bigint
  digest: FolderDigest
}

/** The status of what is at a path, never following a link there; undefined when nothing is or it cannot be looked at. */
export type StatusOf = (file: Buffer) => Pick<BigIntStats, 'dev' | 'ino' | 'ctimeNs' | 'isDirectory'> | undefined

function lstatQuietly(folder: Buffer): BigIntStats | undefined {
  try {
    return lstatSync(folder, {bigint: true, throwIfNoEntry: false})
  } catch {
    return undefined
  }
}

function isSame(kept: Pick<Kept, 'dev' | 'ino' | 'ctimeNs'>, info: Pick<BigIntStats, 'dev' | 'ino' | 'ctimeNs'>): boolean {
  return kept.dev === info.dev && kept.ino === info.ino && kept.ctimeNs === info.ctimeNs
}

/** The digest of a folder's listing. Pure. */
export function digestOf(entries: readonly Dirent<Buffer>[]): FolderDigest {
  const digest: FolderDigest = {folders: [], notable: []}
  for (const entry of entries) {
    const name = entry.name.toString()
    const isProtected = protectedNameOf(name) !== undefined
    if (isProtected || GIT_RULE_NAMES.has(name)) digest.notable.push(entry)
    if (entry.isDirectory() && !isProtected && !SKIPPED_FOLDERS.has(foldCase(name))) digest.folders.push(entry.name.toString('latin1'))
  }
  return digest
}

/**
 * Folder digests by real path, kept between walks (see the module comment). One per process,
 * `folderDigests`, serves every workspace: a path names the same folder for all of them.
 */
export class FolderDigests {
  private readonly kept = new Map<string, Kept>()
  private hitsThisTurn = 0
  /** Folders read from the file system (not from the cache), for tests and benches. */
  reads = 0

  /**
   * @param maxKept digests kept at most
   * @param statusOf how a folder's status is looked up (`lstat`; tests stand in a coarser clock)
   */
  constructor(
    private readonly maxKept = FOLDER_DIGESTS_MAX_KEPT,
    private readonly statusOf: StatusOf = lstatQuietly,
  ) {}

  /**
   * The digest of the folder at `folder` (a path, as bytes or text; read by its path, so a walk
   * verifies a folder before it acts on what it holds), from the cache when the folder has not
   * changed since it was read. Empty when nothing is there, it is not a folder (a link is not
   * followed) or it cannot be read. Never rejects.
   */
  async read(folder: Buffer | string): Promise<FolderDigest> {
    const bytes = typeof folder === 'string' ? Buffer.from(folder) : folder
    const key = bytes.toString('latin1')
    const before = this.statusOf(bytes)
    if (!before?.isDirectory()) {
      this.kept.delete(key)
      return EMPTY
    }
    const kept = this.kept.get(key)
    if (kept && isSame(kept, before)) {
      if (++this.hitsThisTurn >= HITS_PER_TURN) {
        // A walk of thousands of unchanged folders lets other calls run between its parts.
        this.hitsThisTurn = 0
        await setImmediatePromise()
      }
      return kept.digest
    }
    this.reads++
    const readAt = BigInt(Date.now() - CHANGE_CLOCK_SLACK_MS) * 1_000_000n
    let entries: Dirent<Buffer>[]
    try {
      entries = await readdir(bytes, {withFileTypes: true, encoding: 'buffer'})
    } catch {
      this.kept.delete(key)
      return EMPTY
    }
    const digest = digestOf(entries)
    const after = this.statusOf(bytes)
    if (after && isSame({dev: before.dev, ino: before.ino, ctimeNs: before.ctimeNs}, after) && before.ctimeNs < readAt) {
      if (this.kept.size >= this.maxKept) this.kept.clear()
      this.kept.set(key, {dev: before.dev, ino: before.ino, ctimeNs: before.ctimeNs, digest})
    } else {
      this.kept.delete(key)
    }
    return digest
  }

  /** Forgets every digest. */
  clear(): void {
    this.kept.clear()
  }
}

/** The digests every sandboxed command's walks share. */
export const folderDigests = new FolderDigests()
