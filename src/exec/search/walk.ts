import type {Dirent} from 'node:fs'
import {closeSync, openSync, readdirSync} from 'node:fs'
import {readdir} from 'node:fs/promises'

import {displayName} from '../display-name.js'
import {FOLDER_OPEN_FLAGS, verifyDescriptor} from '../files/confined-open.js'
import {joinBytes, splitPath, type Workspace} from '../workspace.js'
import {FolderLease} from './folder-lease.js'
import {type IgnoreFileNotes, type IgnoreFileText, readIgnoreFile} from './ignore-file.js'
import {IgnoreRules} from './ignore-rules.js'
import {
  ALWAYS_SKIPPED_FOLDERS,
  asBytes,
  asText,
  entriesOfBytes,
  entriesOfText,
  join,
  type ListedEntry,
  type NameOrBytes,
  ruleText,
  withSlash,
} from './walk-names.js'

export {ALWAYS_SKIPPED_FOLDERS, type NameOrBytes} from './walk-names.js'

const GIT = Buffer.from('.git')
const INFO = Buffer.from('info')
const EXCLUDE = Buffer.from('exclude')
const GITIGNORE = Buffer.from('.gitignore')

/** One file the walk found: its path, and its workspace-relative path in the display form. */
export interface WalkedFile {
  /** Absolute real path (text only when it is the exact decoding of its bytes): what to open. */
  path: NameOrBytes
  /** The workspace-relative path in the display form (see display-name.ts): what globs and answers see. */
  shown: string
}

/**
 * A folder of the walk: its workspace-relative path in the display form and as git matches it
 * (`ruled`, see `ruleText`), and its absolute path with a final `/`.
 */
interface WalkedFolder {
  shown: string
  ruled: string
  prefix: NameOrBytes
}

/**
 * Walks the files below one folder of the workspace the way `git` sees them, yielding the
 * workspace-relative paths of the regular files of each folder, one folder at a time: a folder's
 * files sorted by name (bytes), then its subfolders in name order, depth first.
 *
 * Names are bytes from start to end (DESIGN §4.2): a folder is listed and re-entered by the bytes
 * of its name, never by a decoded form, so a name that is not valid UTF-8 can neither vanish nor
 * lead somewhere else. The walk never opens a folder by a path from the root: it opens the root
 * (verified inside through its descriptor, see confined-open.ts), and every folder below through
 * its parent folder's descriptor without following a symlink, so a folder swapped for a link to
 * the outside is not walked. (The files it yields are opened by path; the scanner checks the
 * descriptor of every file whose lines it returns, see scanner.ts.)
 *
 * Skipped: whatever the `.gitignore` files of the workspace (nested ones included) and
 * `.git/info/exclude` ignore (see `IgnoreRules`), matched against the names as git sees them (see
 * `ruleText`), not their escaped display form; `.git` and
 * `node_modules` folders; and every symlink, to a file or a folder, so the walk never leaves the
 * workspace or loops (git does not follow them either). Only ignore files inside the workspace
 * are read: never global git config, never a parent folder's above the workspace root; a
 * symlinked `.gitignore` is not read (git refuses them too). Folders that cannot be read are skipped.
 * Ignore files are read within limits (see ignore-file.ts); what they had left out goes to `notes`.
 *
 * A start folder that is itself ignored (or lies in `node_modules`) is walked anyway, because
 * it was asked for by name; the rules from above it are then dropped and only the ignore files
 * at and below it apply.
 *
 * @param workspace the workspace.
 * @param start workspace-relative folder to walk as bytes (empty for the root), already confined.
 * @param mayContain when given, subfolders (workspace-relative, display form) it refuses are not walked.
 * @param inlineListingLimitMs see `INLINE_LISTING_LIMIT_MS` (a negative value lists every folder but the first on the thread pool).
 * @param notes collects the ignore files that had rules left out (see ignore-file.ts).
 */
export async function* walkFiles(
  workspace: Workspace,
  start: Buffer,
  mayContain?: (folder: string) => boolean,
  inlineListingLimitMs = INLINE_LISTING_LIMIT_MS,
  notes?: IgnoreFileNotes,
): AsyncGenerator<WalkedFile[]> {
  const above = await rulesAbove(workspace, start, notes)
  if (!above) return
  const reader = new FolderReader(inlineListingLimitMs)
  const first: WalkedFolder = {
    shown: start.length === 0 ? '' : displayName(start),
    ruled: ruleText(start),
    prefix: asText(withSlash(start.length === 0 ? workspace.rootBytes : joinBytes(workspace.rootBytes, start))),
  }
  const stack: PendingFolder[] = [{folder: first, rules: above.rules, listing: reader.list(above.lease)}]
  let current: FolderLease | undefined
  try {
    while (stack.length > 0) {
      const {folder, rules: outer, listing} = stack.pop() as PendingFolder
      const listed = await (listing ?? reader.open(folder as PendingChild))
      if (!listed) continue
      current = listed.lease
      const {entries} = listed
      const hasGitFolder = entries.some((entry) => entry.shown === '.git' && entry.dirent.isDirectory())
      const hasGitignore = entries.some((entry) => entry.shown === '.gitignore' && entry.dirent.isFile())
      const rules = await withFolderRules(current, folder, outer, hasGitFolder, hasGitignore, notes)
      const files: WalkedFile[] = []
      const folders: Array<WalkedFolder & {name: NameOrBytes}> = []
      for (const entry of entries) {
        const shown = folder.shown === '' ? entry.shown : `${folder.shown}/${entry.shown}`
        // The same string when the name needs no escape (nearly always), so no second path is built.
        const ruled = entry.ruled === entry.shown && folder.ruled === folder.shown ? shown : folder.ruled === '' ? entry.ruled : `${folder.ruled}/${entry.ruled}`
        if (entry.dirent.isDirectory()) {
          if (ALWAYS_SKIPPED_FOLDERS.has(entry.shown) || (mayContain && !mayContain(shown))) continue
          if (!rules.isIgnored(ruled, true)) folders.push({shown, ruled, prefix: join(folder.prefix, entry.name, '/'), name: entry.name})
        } else if (entry.dirent.isFile()) {
          if (!rules.isIgnored(ruled, false)) files.push({path: join(folder.prefix, entry.name), shown})
        }
        // Symlinks, sockets, FIFOs and devices are skipped.
      }
      if (files.length > 0) yield files
      // Subfolders are read ahead (within a budget) while this folder's files are being searched;
      // each holds this folder open until it is opened itself, through this folder.
      const pending = folders.map((child): PendingFolder => {
        current?.hold()
        const waiting: PendingChild = {...child, parent: current as FolderLease}
        return {folder: waiting, rules, listing: reader.tryOpen(waiting)}
      })
      for (let index = pending.length - 1; index >= 0; index--) stack.push(pending[index] as PendingFolder)
      current.release()
      current = undefined
    }
  } finally {
    current?.release()
    for (const {folder, listing} of stack) {
      if (listing) void listing.then((listed) => listed?.lease.release())
      else (folder as PendingChild).parent?.release()
    }
  }
}

/** A subfolder waiting to be opened through its parent, which it holds. */
interface PendingChild extends WalkedFolder {
  parent: FolderLease
  name: NameOrBytes
}

/** A folder waiting to be walked, its listing possibly already on its way. */
interface PendingFolder {
  folder: WalkedFolder | PendingChild
  rules: IgnoreRules
  listing: Promise<Listing | undefined> | undefined
}

/** An open folder and its entries, sorted by name (bytes). */
interface Listing {
  lease: FolderLease
  entries: ListedEntry[]
}

/** Folder listings read ahead of the walk on the thread pool, at most this many at once. */
const PREFETCH_LISTINGS = 64

/**
 * A folder listed on the walking thread that cost it more than this much CPU time (ms) marks a
 * folder too costly to list inline (a huge folder, a file system whose listing is costly): the
 * rest of the walk lists on the thread pool, read ahead. CPU time, not wall time: on a loaded
 * machine a quick listing can wait long for a core, and that says nothing of the file system.
 */
export const INLINE_LISTING_LIMIT_MS = 10

/**
 * A folder listed on the walking thread that kept it waiting this long (ms of wall time) marks a
 * file system that blocks (a network mount, a cold disk): the rest of the walk lists on the thread
 * pool too. Far above what waiting for a core costs a listing on a loaded machine.
 */
export const INLINE_LISTING_WAIT_LIMIT_MS = 250

/** CPU time of this thread in ms (of the whole process on a Node.js without `process.threadCpuUsage`). */
const threadCpuMs: () => number =
  typeof process.threadCpuUsage === 'function'
    ? () => {
        const {user, system} = process.threadCpuUsage()
        return (user + system) / 1000
      }
    : () => {
        const {user, system} = process.cpuUsage()
        return (user + system) / 1000
      }

/**
 * Opens and lists the folders of the walk, depth first.
 *
 * Folders are listed on the walking thread while listing is quick: for the many small folders of
 * a source tree that costs about half the CPU time of a listing on the thread pool (2,893 folders
 * of a node_modules copy: 36–47 ms against 62–80 ms, most of it handing each listing from one
 * thread to another), and search time is mostly the walk. Once a listing costs more than
 * `INLINE_LISTING_LIMIT_MS` of CPU time (timed from the first listing that took that long in
 * wall time), or waits longer than `INLINE_LISTING_WAIT_LIMIT_MS`, the walk stops blocking its
 * thread: folders are then listed on the thread pool, up to `PREFETCH_LISTINGS` ahead of the walk,
 * so a slow file system works on several folders at once while the walk order stays the same.
 */
class FolderReader {
  private outstanding = 0
  private listsInline = true
  /** Whether a listing was slow in wall time, so listings are now timed in CPU time too. */
  private isSuspect: boolean

  /** @param inlineLimitMs see `INLINE_LISTING_LIMIT_MS`. */
  constructor(private readonly inlineLimitMs: number) {
    this.isSuspect = inlineLimitMs < 0
  }

  /** Opens `child` through its parent (releasing the parent) and lists it; undefined when it cannot be. */
  open(child: PendingChild): Promise<Listing | undefined> {
    const lease = openChildFolder(child.parent, child.name)
    child.parent.release()
    return lease ? this.list(lease) : Promise.resolve(undefined)
  }

  /**
   * The sorted listing of the open folder `lease`; undefined (and the folder closed) when it cannot
   * be read. Names are listed as text, which costs about half of listing them as bytes; a folder
   * where a name did not decode (it holds U+FFFD, the mark of bytes that are not UTF-8, or
   * the character itself) is listed again as bytes, so no name is ever changed by decoding.
   */
  async list(lease: FolderLease): Promise<Listing | undefined> {
    try {
      const self = lease.selfText
      if (self !== undefined) {
        const entries = entriesOfText(await this.listText(self))
        if (entries) return {lease, entries}
      }
      const entries = entriesOfBytes(await readdir(lease.self, {withFileTypes: true, encoding: 'buffer'}))
      return {lease, entries}
    } catch {
      lease.release()
      return undefined
    }
  }

  /** The entries of the folder at `path`, names as text: on this thread while that is quick (see the class). */
  private async listText(path: string): Promise<Array<Dirent<string>>> {
    if (!this.listsInline) return readdir(path, {withFileTypes: true})
    // A listing's CPU time can pass the limit only if its wall time does: the thread's CPU clock
    // is read (about 1 µs) only from the first listing slow in wall time on.
    const cpuBefore = this.isSuspect ? threadCpuMs() : 0
    const started = performance.now()
    const dirents = readdirSync(path, {withFileTypes: true})
    const wall = performance.now() - started
    if (wall > INLINE_LISTING_WAIT_LIMIT_MS || (this.isSuspect && wall > this.inlineLimitMs && threadCpuMs() - cpuBefore > this.inlineLimitMs)) this.listsInline = false
    else if (wall > this.inlineLimitMs) this.isSuspect = true
    return dirents
  }

  /**
   * Starts opening `child` now if folders are listed on the thread pool and the budget allows;
   * else it is opened when the walk reaches it.
   */
  tryOpen(child: PendingChild): Promise<Listing | undefined> | undefined {
    if (this.listsInline || this.outstanding >= PREFETCH_LISTINGS) return undefined
    this.outstanding++
    return this.open(child).finally(() => this.outstanding--)
  }
}

/**
 * Opens the folder `name` of the open folder `parent` through its descriptor, without following
 * a symlink; undefined when it is not a folder (any more) or cannot be opened. Synchronous: an
 * open with O_NONBLOCK of a folder already listed does not wait on anything.
 */
function openChildFolder(parent: FolderLease, name: NameOrBytes): FolderLease | undefined {
  try {
    return new FolderLease(openSync(parent.entry(name), FOLDER_OPEN_FLAGS), joinBytes(parent.real, asBytes(name)))
  } catch {
    return undefined
  }
}

/**
 * The ignore file at `names` below the open folder `lease` (each folder on the way opened through
 * its parent, never through a symlink), read by `readIgnoreFile`, or undefined when there is none.
 */
async function readIgnoreFileBelow(lease: FolderLease, names: Buffer[]): Promise<IgnoreFileText | undefined> {
  const opened: FolderLease[] = []
  let folder = lease
  try {
    for (const name of names.slice(0, -1)) {
      const child = openChildFolder(folder, name)
      if (!child) return undefined
      opened.push(child)
      folder = child
    }
    return await readIgnoreFile(folder.entry(names.at(-1) as Buffer))
  } catch {
    return undefined
  } finally {
    for (const child of opened) child.release()
  }
}

/**
 * Opens the workspace root (verified inside through its descriptor) and walks down to `start`
 * through folder descriptors, gathering the rules of the folders above `start`, whose own ignore
 * files are read when it is walked. Restarts from no rules below a folder that is ignored or
 * always skipped, since `start` was named explicitly.
 * @param read when given, receives each ignore file whose rules are in the result: its folder (as
 *   rules see it) and its usable text, outermost first.
 * @returns the rules and `start` open, or undefined when a folder on the way cannot be opened.
 */
async function rulesAbove(
  workspace: Workspace,
  start: Buffer,
  notes?: IgnoreFileNotes,
  read?: Array<{folder: string; text: string}>,
): Promise<{rules: IgnoreRules; lease: FolderLease} | undefined> {
  let lease = openRoot(workspace)
  let rules = IgnoreRules.none()
  let ruled = ''
  let shown = ''
  for (const name of splitPath(start)) {
    // Reading .git/info/exclude and .gitignore finds nothing where they are not real files.
    rules = await withFolderRules(lease, {ruled, shown}, rules, true, true, notes, read)
    const ruledName = ruleText(name)
    ruled = ruled === '' ? ruledName : `${ruled}/${ruledName}`
    shown = shown === '' ? displayName(name) : `${shown}/${displayName(name)}`
    if (ALWAYS_SKIPPED_FOLDERS.has(ruledName) || rules.isIgnored(ruled, true)) {
      rules = IgnoreRules.none()
      read?.splice(0)
    }
    const child = openChildFolder(lease, name)
    lease.release()
    if (!child) return undefined
    lease = child
  }
  return {rules, lease}
}

/**
 * What a parallel walk of `start` (workspace-relative bytes, already confined) starts from: the
 * ignore files of the folders above it whose rules apply there, outermost first (see `rulesAbove`),
 * each as its folder (as rules see it) and usable text, and `start` itself as a folder to walk.
 * Read on the calling thread, through folder descriptors from the verified root.
 * @returns undefined when a folder on the way cannot be opened (nothing to search).
 */
export async function walkStart(
  workspace: Workspace,
  start: Buffer,
  notes?: IgnoreFileNotes,
): Promise<{ignoreFiles: Array<{folder: string; text: string}>; prefix: NameOrBytes; shown: string; ruled: string} | undefined> {
  const ignoreFiles: Array<{folder: string; text: string}> = []
  const above = await rulesAbove(workspace, start, notes, ignoreFiles)
  if (!above) return undefined
  above.lease.release()
  return {
    ignoreFiles,
    prefix: asText(withSlash(start.length === 0 ? workspace.rootBytes : joinBytes(workspace.rootBytes, start))),
    shown: start.length === 0 ? '' : displayName(start),
    ruled: ruleText(start),
  }
}

/** The workspace root, open and verified inside. */
function openRoot(workspace: Workspace): FolderLease {
  return openFolderLease(workspace, workspace.rootBytes, '.')
}

/**
 * Opens the folder at the real path `real` (from `Workspace.resolve`) as a lease, verified inside
 * through its descriptor.
 * @throws OutsideWorkspaceError when it is not inside; the system's error when it cannot be opened.
 */
export function openFolderLease(workspace: Workspace, real: Buffer, requested: string): FolderLease {
  const fd = openSync(real, FOLDER_OPEN_FLAGS)
  try {
    verifyDescriptor(workspace, fd, requested)
  } catch (error) {
    closeSync(fd)
    throw error
  }
  return new FolderLease(fd, real)
}

/**
 * `rules` followed by a folder's `.git/info/exclude` (lower precedence) and its `.gitignore`.
 * @param folder the folder as ignore rules see it (`ruled`) and in the display form (`shown`, for notes)
 * @param kept when given, receives the folder and usable text of each ignore file that added rules
 */
async function withFolderRules(
  lease: FolderLease,
  folder: {ruled: string; shown: string},
  rules: IgnoreRules,
  hasGitFolder: boolean,
  hasGitignore: boolean,
  notes?: IgnoreFileNotes,
  kept?: Array<{folder: string; text: string}>,
): Promise<IgnoreRules> {
  let result = rules
  const files: Array<[Buffer[], string]> = []
  if (hasGitFolder) files.push([[GIT, INFO, EXCLUDE], '.git/info/exclude'])
  if (hasGitignore) files.push([[GITIGNORE], '.gitignore'])
  for (const [names, name] of files) {
    const read = await readIgnoreFileBelow(lease, names)
    if (read === undefined) continue
    if (read.skipped !== undefined) notes?.add(folder.shown === '' ? name : `${folder.shown}/${name}`, read.skipped)
    result = result.withPatterns(folder.ruled, read.patterns)
    if (read.patterns.length > 0) kept?.push({folder: folder.ruled, text: read.text})
  }
  return result
}
