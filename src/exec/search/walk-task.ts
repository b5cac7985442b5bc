/**
 * One task of the parallel search walk, run by a search worker: walk some folders of the
 * workspace for a while, scanning their files as they are listed, and hand back whatever is left.
 *
 * The server's thread hands out folders and keeps the order of the answer (parallel-walk.ts); the
 * workers list folders, match ignore rules and scan files, so the walk runs on every core instead
 * of on one thread alone. A task walks its folders depth first, exactly as `walkFiles` does, until
 * its time budget is spent; the folders it has not reached (its stack, top first) come back as its
 * frontier. Since a depth-first walk always finishes a prefix of the preorder, the task's matches
 * followed by its frontier's are the matches of the whole walk in order.
 */
import {closeSync, type Dir, fstatSync, lstatSync, opendirSync, openSync, readdirSync, readlinkSync} from 'node:fs'

import {CAN_VERIFY_DESCRIPTORS, descriptorPath, FOLDER_OPEN_FLAGS} from '../files/confined-open.js'
import {displayName} from '../display-name.js'
import {LIST_READ_BATCH_ENTRIES, LIST_SMALL_FOLDER_BYTES} from '../limits.js'
import {SmallestNames} from '../smallest-names.js'
import {joinBytes} from '../workspace.js'
import {mayHoldIncluded} from './folder-bases.js'
import {FolderLease} from './folder-lease.js'
import {readIgnoreFileSync} from './ignore-file.js'
import {IgnoreRules} from './ignore-rules.js'
import {createGlobTester, type GlobSpec, type ScanMatch, type ScanRequest, type Scanner} from './scanner.js'
import {ALWAYS_SKIPPED_FOLDERS, asBytes, asText, entriesOfBytes, entriesOfText, join, type ListedEntry, type NameOrBytes, ruleText} from './walk-names.js'

/** A folder waiting to be walked. */
export interface WalkFolder {
  /**
   * Its absolute real path with a final `/`: text when that is the exact decoding of its bytes,
   * else the bytes (a Buffer sent to another thread arrives as a Uint8Array).
   */
  prefix: string | Uint8Array
  /** Its workspace-relative path in the display form (`''` for the workspace root). */
  shown: string
  /** Its workspace-relative path as ignore rules see it (see walk-names.ts `ruleText`). */
  ruled: string
  /** The ids of the ignore files whose rules apply inside it (see `IgnoreFileRules`), outermost first. */
  rules: string[]
}

/** The usable rules of one ignore file, as they travel between threads. */
export interface IgnoreFileRules {
  /** Unique within one search. */
  id: string
  /** The workspace-relative folder its patterns are relative to, as ignore rules see it. */
  folder: string
  /** Its usable lines (see ignore-file.ts `IgnoreFileText.text`). */
  text: string
}

/** What a walk task is asked to do. */
export interface WalkRequest {
  /** Tells one search's ignore files from another's in a worker's cache. */
  searchId: number
  /** Unique within its search: ids of the ignore files the task reads start with it. */
  taskId: number
  /** Folders to walk, in walk order (consecutive in the preorder of the whole walk). */
  folders: WalkFolder[]
  /** Every ignore file the folders' `rules` name. */
  ignoreFiles: IgnoreFileRules[]
  /** What each file is scanned for, as for a batch (see ScanRequest); `maxMatches` bounds the task. */
  scan: Omit<ScanRequest, 'files' | 'paths' | 'isThroughCheckedFolders'>
  /**
   * When set, only folders that are one of these workspace-relative paths (display form), lie
   * below one, or lie above one are walked (see glob-filter.ts `folderFilterBases`).
   */
  folderBases?: string[]
  /** Wall time (ms) after which the task stops at the next folder and returns its frontier. */
  budgetMs: number
}

/** What a walk task found, in walk order. */
export interface WalkResult {
  /** Workspace-relative paths (display form) of the files the fields below refer to by index. */
  paths: string[]
  matches: ScanMatch[]
  /** Files whose contents were searched. */
  filesSearched: number
  /** Files skipped as binary. */
  binaryFiles: number
  /** Indices into `paths` of files larger than the limit. */
  tooLarge: number[]
  /** Indices into `paths` of files that could not be read, and why. */
  unreadable: Array<[index: number, why: string]>
  /** The ignore files this task read, for the tasks of its frontier. */
  ignoreFiles: IgnoreFileRules[]
  /** Ignore files that had rules left out: their workspace-relative path (display form) and what was left out. */
  notes: Array<[path: string, skipped: string]>
  /** The folders not reached, in walk order. */
  frontier: WalkFolder[]
  /** Whether the task stopped at `maxMatches`. */
  stoppedEarly: boolean
}

/** A subfolder listed by this task, waiting to be opened through its parent, which it holds. */
interface ListedFolder extends WalkFolder {
  parent: FolderLease
  name: NameOrBytes
}

/** What one walk task works on: its request, its result so far, the ignore files known, its stack of folders. */
interface TaskState {
  request: WalkRequest
  result: WalkResult
  /** The ignore files sent with the request and read by the task, by id. */
  sent: Map<string, IgnoreFileRules>
  stack: Array<WalkFolder | ListedFolder>
  /** Ignore files the task has read (for their ids). */
  readIgnoreFiles: number
}

/** Runs walk tasks; keeps the ignore rules of the latest searches between tasks. */
export interface Walker {
  walk(request: WalkRequest): WalkResult
}

/** Searches whose compiled ignore rules a worker keeps at most. */
const CACHED_SEARCHES = 4

/**
 * Creates a walker that scans with `scanner`. Each folder handed over is opened by its path and
 * checked through its descriptor to be that very folder (`/proc/self/fd/N`): a folder swapped for
 * a link since it was listed is left out. Folders found by the task itself are opened through
 * their parent's descriptor without following a link, as `walkFiles` does. Files are opened
 * through their folder's descriptor, so none is ever read outside (see scanner.ts).
 */
export function createWalker(scanner: Scanner): Walker {
  /** Compiled ignore rules by search id, then by the ids of their ignore files joined. */
  const cache = new Map<number, Map<string, IgnoreRules>>()

  /** The rules of the ignore files `ids` (outermost first), compiled once per search and worker. */
  function rulesOf(searchId: number, ids: string[], files: Map<string, IgnoreFileRules>): IgnoreRules {
    let compiled = cache.get(searchId)
    if (!compiled) {
      compiled = new Map([['', IgnoreRules.none()]])
      cache.set(searchId, compiled)
      if (cache.size > CACHED_SEARCHES) cache.delete(cache.keys().next().value as number)
    }
    let key = ''
    let rules = compiled.get('') as IgnoreRules
    for (const id of ids) {
      key = key === '' ? id : `${key}\n${id}`
      let next = compiled.get(key)
      if (!next) {
        const file = files.get(id)
        if (!file) throw new Error(`walk task: ignore file ${id} was not sent`)
        next = rules.withFile(file.folder, file.text)
        compiled.set(key, next)
      }
      rules = next
    }
    return rules
  }

  let testedGlob: GlobSpec | undefined
  let tester: ((path: string) => boolean) | undefined

  /** The test of paths against `glob` (compiled once per glob, as the scanner does), or undefined for none. */
  function globTester(glob: GlobSpec | undefined): ((path: string) => boolean) | undefined {
    if (glob === undefined) return undefined
    if (glob !== testedGlob) {
      tester = createGlobTester(glob)
      testedGlob = glob
    }
    return tester
  }

  return {
    walk(request) {
      const started = performance.now()
      const sent = new Map(request.ignoreFiles.map((file) => [file.id, file]))
      const result: WalkResult = {
        paths: [],
        matches: [],
        filesSearched: 0,
        binaryFiles: 0,
        tooLarge: [],
        unreadable: [],
        ignoreFiles: [],
        notes: [],
        frontier: [],
        stoppedEarly: false,
      }
      const bases = request.folderBases
      const mayContain = bases ? (folder: string) => mayHoldIncluded(bases, folder) : undefined
      const stack: Array<WalkFolder | ListedFolder> = [...request.folders].reverse()
      const task: TaskState = {request, result, sent, stack, readIgnoreFiles: 0}
      let walked = 0
      try {
        while (stack.length > 0) {
          const next = stack.at(-1) as WalkFolder | ListedFolder
          // Past the budget the rest is handed back, from the next folder on; a folder whose path
          // is too long to open by name is walked here first, through its parent's descriptor.
          if (walked > 0 && performance.now() - started >= request.budgetMs && canHandOver(next)) break
          const folder = stack.pop() as WalkFolder | ListedFolder
          walked++
          const lease = 'parent' in folder ? openChild(folder) : openHandedOver(folder.prefix)
          if (typeof lease === 'string') {
            noteUnreadableFolder(folder, lease, result)
            continue
          }
          try {
            if (request.scan.query === undefined && isLargeFolder(lease)) {
              const why = listLargeFolder(task, folder, lease)
              if (why !== undefined) noteUnreadableFolder(folder, why, result)
              if (result.stoppedEarly) break
              continue
            }
            const entries = listEntries(lease)
            if (typeof entries === 'string') {
              noteUnreadableFolder(folder, entries, result)
              continue
            }
            const hasGit = entries.some((entry) => entry.shown === '.git' && entry.dirent.isDirectory())
            const hasGitignore = entries.some((entry) => entry.shown === '.gitignore' && entry.dirent.isFile())
            const {ids, rules} = ownRules(task, folder, lease, hasGit, hasGitignore)

            const files: Array<string | Uint8Array> = []
            const shownFiles: string[] = []
            const children: ListedFolder[] = []
            const prefix = typeof folder.prefix === 'string' ? folder.prefix : asBytes(folder.prefix)
            for (const entry of entries) {
              const {shown, ruled} = pathsOf(folder, entry)
              if (entry.dirent.isDirectory()) {
                if (ALWAYS_SKIPPED_FOLDERS.has(entry.shown) || (mayContain && !mayContain(shown))) continue
                if (!rules.isIgnored(ruled, true)) children.push({prefix: join(prefix, entry.name, '/'), shown, ruled, rules: ids, parent: lease, name: entry.name})
              } else if (entry.dirent.isFile()) {
                if (!rules.isIgnored(ruled, false)) {
                  // Through the folder's descriptor, held open while its files are scanned: never by
                  // a path that a folder swapped for a link since the listing could lead outside.
                  files.push(lease.entry(typeof entry.name === 'string' ? entry.name : asBytes(entry.name)))
                  shownFiles.push(shown)
                }
              }
              // Symlinks, sockets, FIFOs and devices are skipped.
            }
            if (files.length > 0) scanFiles(request, files, shownFiles, result)
            for (let index = children.length - 1; index >= 0; index--) {
              lease.hold()
              stack.push(children[index] as ListedFolder)
            }
            if (result.stoppedEarly) break
          } finally {
            lease.release()
          }
        }
      } finally {
        // What is left: handed back in walk order, each subfolder's parent let go.
        for (let index = stack.length - 1; index >= 0; index--) {
          const folder = stack[index] as WalkFolder | ListedFolder
          if ('parent' in folder) folder.parent.release()
          result.frontier.push({prefix: folder.prefix, shown: folder.shown, ruled: folder.ruled, rules: folder.rules})
        }
      }
      return result
    },
  }

  /**
   * The ignore rules for the entries of `folder` (open as `lease`): those it inherits, then its own
   * ignore files, read and sent back with the result: .git/info/exclude (lower precedence), then
   * .gitignore, when the listing shows them.
   */
  function ownRules(task: TaskState, folder: WalkFolder, lease: FolderLease, hasGit: boolean, hasGitignore: boolean): {ids: string[]; rules: IgnoreRules} {
    const {request, result, sent} = task
    let ids = folder.rules
    const own: Array<[names: string[], name: string]> = []
    if (hasGit) own.push([['.git', 'info', 'exclude'], '.git/info/exclude'])
    if (hasGitignore) own.push([['.gitignore'], '.gitignore'])
    for (const [names, name] of own) {
      const read = readIgnoreFileBelow(lease, names)
      if (!read) continue
      if (read.skipped !== undefined) result.notes.push([folder.shown === '' ? name : `${folder.shown}/${name}`, read.skipped])
      const file: IgnoreFileRules = {id: `${request.taskId}.${task.readIgnoreFiles++}`, folder: folder.ruled, text: read.text}
      sent.set(file.id, file)
      result.ignoreFiles.push(file)
      ids = [...ids, file.id]
    }
    return {ids, rules: rulesOf(request.searchId, ids, sent)}
  }

  /**
   * Lists the files of the large folder `folder` (open as `lease`) that pass the ignore rules and
   * the glob, for a search without a query, in memory bounded by the matches still wanted rather
   * than by the folder: the folder is read in batches of LIST_READ_BATCH_ENTRIES, and only the
   * smallest names of the matching files are kept (SmallestNames), as `list` keeps its window.
   * Its subfolders are put on the walk's stack, in order. Returns why the folder could not be
   * read, if it could not.
   */
  function listLargeFolder(task: TaskState, folder: WalkFolder, lease: FolderLease): string | undefined {
    const {request, result} = task
    const typeOf = (name: string) => lstatSync(lease.entry(name), {throwIfNoEntry: false})
    let hasGit: boolean
    let hasGitignore: boolean
    try {
      hasGit = typeOf('.git')?.isDirectory() === true
      hasGitignore = typeOf('.gitignore')?.isFile() === true
    } catch (error) {
      return whyFolderUnreadable(error)
    }
    const {ids, rules} = ownRules(task, folder, lease, hasGit, hasGitignore)
    const wanted = request.scan.maxMatches - result.matches.length
    const passes = globTester(request.scan.glob)
    const kept = new SmallestNames<{key: string}>(wanted)
    const children: Array<{key: string; child: ListedFolder}> = []
    let matched = 0
    const prefix = typeof folder.prefix === 'string' ? folder.prefix : asBytes(folder.prefix)
    let dir: Dir | undefined
    try {
      dir = opendirSync(lease.self, {encoding: 'latin1', bufferSize: LIST_READ_BATCH_ENTRIES})
      for (let dirent = dir.readSync(); dirent !== null; dirent = dir.readSync()) {
        const key = dirent.name
        if (!dirent.isDirectory() && !dirent.isFile()) continue // symlinks, sockets, FIFOs and devices are skipped
        const entry = namedEntry(Buffer.from(key, 'latin1'))
        const {shown, ruled} = pathsOf(folder, entry)
        if (dirent.isDirectory()) {
          if (ALWAYS_SKIPPED_FOLDERS.has(entry.shown) || (request.folderBases && !mayHoldIncluded(request.folderBases, shown))) continue
          if (!rules.isIgnored(ruled, true)) children.push({key, child: {prefix: join(prefix, entry.name, '/'), shown, ruled, rules: ids, parent: lease, name: entry.name}})
        } else if (!rules.isIgnored(ruled, false) && (passes === undefined || passes(shown))) {
          matched++
          kept.offer({key})
        }
      }
    } catch (error) {
      return whyFolderUnreadable(error)
    } finally {
      dir?.closeSync()
    }
    for (const {key} of kept.sorted()) {
      const {shown} = pathsOf(folder, namedEntry(Buffer.from(key, 'latin1')))
      result.matches.push([result.paths.push(shown) - 1, 0, ''])
    }
    // As the scanner stops a batch: the matches still wanted are found, so the walk ends here.
    if (matched >= wanted) {
      result.stoppedEarly = true
      return undefined
    }
    children.sort((a, b) => (a.key < b.key ? -1 : a.key > b.key ? 1 : 0))
    for (let index = children.length - 1; index >= 0; index--) {
      lease.hold()
      task.stack.push((children[index] as {child: ListedFolder}).child)
    }
    return undefined
  }

  /** Scans `files` (shown as `shown`), adding what was found to `result` within the task's `maxMatches`. */
  function scanFiles(request: WalkRequest, files: Array<string | Uint8Array>, shown: string[], result: WalkResult): void {
    const scanned = scanner.scan({
      ...request.scan,
      files,
      isThroughCheckedFolders: true,
      ...(request.scan.glob ? {paths: shown} : {}),
      maxMatches: request.scan.maxMatches - result.matches.length,
    })
    // Only the paths of files named in the result travel back.
    const indices = new Map<number, number>()
    const indexOf = (fileIndex: number): number => {
      let index = indices.get(fileIndex)
      if (index === undefined) {
        index = result.paths.push(shown[fileIndex] as string) - 1
        indices.set(fileIndex, index)
      }
      return index
    }
    for (const [fileIndex, line, text] of scanned.matches) result.matches.push([indexOf(fileIndex), line, text])
    for (const fileIndex of scanned.tooLarge) result.tooLarge.push(indexOf(fileIndex))
    for (const [fileIndex, why] of scanned.unreadable) result.unreadable.push([indexOf(fileIndex), why])
    result.filesSearched += scanned.filesSearched
    result.binaryFiles += scanned.binaryFiles
    if (scanned.stoppedEarly || result.matches.length >= request.scan.maxMatches) result.stoppedEarly = true
  }
}

/**
 * The longest absolute path (bytes) of a folder handed to another task, which opens it by that
 * path: below the system's PATH_MAX (4096 on Linux), with room for a file name. Deeper folders
 * stay with the task that found them, which opens them through their parent's descriptor.
 */
export const MAX_HANDED_OVER_PATH_BYTES = 3072

/** Whether `folder` may go back to the server's thread for another task (see MAX_HANDED_OVER_PATH_BYTES). */
function canHandOver(folder: WalkFolder): boolean {
  return (typeof folder.prefix === 'string' ? Buffer.byteLength(folder.prefix) : folder.prefix.byteLength) <= MAX_HANDED_OVER_PATH_BYTES
}

/** An entry's workspace-relative path in the display form, and as ignore rules see it, below `folder`. */
function pathsOf(folder: WalkFolder, entry: Pick<ListedEntry, 'shown' | 'ruled'>): {shown: string; ruled: string} {
  const shown = folder.shown === '' ? entry.shown : `${folder.shown}/${entry.shown}`
  const ruled = entry.ruled === entry.shown && folder.ruled === folder.shown ? shown : folder.ruled === '' ? entry.ruled : `${folder.ruled}/${entry.ruled}`
  return {shown, ruled}
}

/** The forms of the name `bytes` the walk keeps (as `entriesOfBytes` gives them). */
function namedEntry(bytes: Buffer): Pick<ListedEntry, 'name' | 'shown' | 'ruled'> {
  return {name: asText(bytes), shown: displayName(bytes), ruled: ruleText(bytes)}
}

/**
 * Whether the open folder `lease` is large enough to be read in batches: its size (`st_size`) is
 * over LIST_SMALL_FOLDER_BYTES, as for `list` (see folder-window.ts `folderPass`).
 */
function isLargeFolder(lease: FolderLease): boolean {
  try {
    return fstatSync(lease.fd).size > LIST_SMALL_FOLDER_BYTES
  } catch {
    return false // listed at once, which reports why it cannot be
  }
}

/** Adds a folder that could not be walked to the task's unreadable entries: its path with a final `/`, and why. */
function noteUnreadableFolder(folder: WalkFolder, why: string, result: WalkResult): void {
  result.unreadable.push([result.paths.push(folder.shown === '' ? './' : `${folder.shown}/`) - 1, why])
}

/** Why a folder could not be opened or listed, in words (the scanner's words for files, see scanner.ts). */
function whyFolderUnreadable(error: unknown): string {
  const code = (error as {code?: unknown}).code
  if (code === 'ENOENT') return 'removed meanwhile'
  if (code === 'ENOTDIR' || code === 'ELOOP') return 'no longer a folder'
  if (code === 'EACCES' || code === 'EPERM') return 'no permission'
  if (code === 'ENAMETOOLONG') return 'its path is longer than the system takes'
  return 'a read error'
}

/**
 * Opens a folder handed over by its absolute path `prefix` (with a final `/`), checked through its
 * descriptor to be the folder at exactly that real path; else why not, in words (a folder on the
 * way swapped for a link, say, makes it "no longer a folder").
 */
function openHandedOver(prefix: string | Uint8Array): FolderLease | string {
  const bytes = asBytes(prefix)
  const real = bytes.length > 1 ? bytes.subarray(0, -1) : bytes
  let fd: number
  try {
    fd = openSync(real, FOLDER_OPEN_FLAGS)
  } catch (error) {
    return whyFolderUnreadable(error)
  }
  try {
    if (CAN_VERIFY_DESCRIPTORS && !readlinkSync(descriptorPath(fd), {encoding: 'buffer'}).equals(real)) {
      closeSync(fd)
      return 'no longer a folder'
    }
    return new FolderLease(fd, Buffer.from(real))
  } catch (error) {
    closeSync(fd)
    return whyFolderUnreadable(error)
  }
}

/** Opens a subfolder listed by this task through its parent's descriptor (letting the parent go); else why not. */
function openChild(folder: ListedFolder): FolderLease | string {
  try {
    return new FolderLease(openSync(folder.parent.entry(folder.name), FOLDER_OPEN_FLAGS), joinBytes(folder.parent.real, asBytes(folder.name)))
  } catch (error) {
    return whyFolderUnreadable(error)
  } finally {
    folder.parent.release()
  }
}

/** The entries of the open folder `lease`, sorted by name (bytes); else why it cannot be listed. */
function listEntries(lease: FolderLease): ListedEntry[] | string {
  try {
    const self = lease.selfText
    if (self !== undefined) {
      const entries = entriesOfText(readdirSync(self, {withFileTypes: true}))
      if (entries) return entries
    }
    return entriesOfBytes(readdirSync(lease.self, {withFileTypes: true, encoding: 'buffer'}))
  } catch (error) {
    return whyFolderUnreadable(error)
  }
}

/** The ignore file at `names` below the open folder `lease`, each folder on the way opened through its parent. */
function readIgnoreFileBelow(lease: FolderLease, names: string[]): ReturnType<typeof readIgnoreFileSync> {
  const opened: FolderLease[] = []
  let folder = lease
  try {
    for (const name of names.slice(0, -1)) {
      const child = new FolderLease(openSync(folder.entry(name), FOLDER_OPEN_FLAGS), joinBytes(folder.real, Buffer.from(name)))
      opened.push(child)
      folder = child
    }
    return readIgnoreFileSync(folder.entry(names.at(-1) as string))
  } catch {
    return undefined
  } finally {
    for (const child of opened) child.release()
  }
}
