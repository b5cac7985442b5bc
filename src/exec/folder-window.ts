/**
 * A window of one folder's entries in sorted order, found in memory bounded by the window rather
 * than by the folder (DESIGN §7: `list` of a huge folder costs what its answer holds).
 *
 * The folder is read in batches (`opendir`), and each pass over it keeps only the smallest
 * entries above a lower bound, at most `LIST_MAX_HELD_NAMES` of them, in a heap. A window within
 * the first `LIST_MAX_HELD_NAMES` entries takes one pass. A window further on takes more: the
 * first pass also keeps a random sample of names, whose order estimates where the window begins;
 * a second pass counts the names up to the sample name just before that and keeps the names
 * above it; further passes step on from the last name kept, until the window is held. Between
 * batches the event loop runs, so other calls are answered while a huge folder is read.
 *
 * Names are bytes throughout (held as Latin-1 strings, see PassEntry) and are compared as bytes,
 * as `list` sorts them (`Buffer.compare`).
 */
import type {Dirent} from 'node:fs'
import {opendir, readdir} from 'node:fs/promises'

import {LIST_MAX_HELD_NAMES, LIST_READ_BATCH_ENTRIES, LIST_SAMPLE_NAMES, LIST_SMALL_FOLDER_BYTES} from './limits.js'
import {SmallestNames} from './smallest-names.js'

/** What the folder's listing says an entry is (`d_type`); `unknown` when the file system does not say. */
export type FolderEntryType = 'folder' | 'file' | 'symlink' | 'other' | 'unknown'

/** One entry of a folder: its name as bytes, and its type as the listing gives it. */
export interface FolderEntry {
  name: Buffer
  type: FolderEntryType
}

/**
 * An entry as a pass gives it: its name's bytes as a Latin-1 string (one character per byte, so
 * comparing two such strings compares the names' bytes), and its type. A string is a fraction of
 * a small Buffer's memory, and holding one keeps no shared allocation alive (a name Buffer is cut
 * from an 8 KiB pool, which it would keep whole).
 */
export interface PassEntry {
  key: string
  type: FolderEntryType
}

/**
 * One pass over a folder's entries, in the order the system gives them: calls `visit` for each,
 * and resolves when the folder is read to its end.
 */
export type FolderPass = (visit: (entry: PassEntry) => void) => Promise<void>

/** The entries of the window asked for, sorted, and how many entries the folder has. */
export interface FolderWindow {
  entries: FolderEntry[]
  /** Entries the folder has (as the last pass counted them). */
  total: number
  /** Passes over the folder it took. */
  passes: number
}

/** How many names a pass may hold, and how many the first pass samples (for tests to make small). */
export interface FolderWindowLimits {
  maxHeld: number
  sampleSize: number
}

const DEFAULT_LIMITS: FolderWindowLimits = {maxHeld: LIST_MAX_HELD_NAMES, sampleSize: LIST_SAMPLE_NAMES}

function typeOf(dirent: Dirent): FolderEntryType {
  if (dirent.isDirectory()) return 'folder'
  if (dirent.isFile()) return 'file'
  if (dirent.isSymbolicLink()) return 'symlink'
  if (dirent.isFIFO() || dirent.isSocket() || dirent.isCharacterDevice() || dirent.isBlockDevice()) return 'other'
  return 'unknown'
}

/**
 * The pass over the folder at `path` (bytes; `/proc/self/fd/N` for a verified folder): read with
 * `opendir` in batches of `LIST_READ_BATCH_ENTRIES`, each batch fetched off the main thread; or,
 * when the folder's `sizeBytes` (its `st_size`) is at most `LIST_SMALL_FOLDER_BYTES`, with one
 * `readdir`. A folder's size grows with its entries on the usual file systems (ext4, XFS, Btrfs,
 * tmpfs: at least a byte per entry), so such a folder holds few enough to read at once.
 * @throws the system's error when the folder cannot be opened or read.
 */
export function folderPass(path: Buffer, sizeBytes = 0): FolderPass {
  if (sizeBytes > 0 && sizeBytes <= LIST_SMALL_FOLDER_BYTES) {
    // A small folder is read in one call to the thread pool rather than four (open, a batch,
    // the empty batch that ends it, close); a size of 0 says nothing (some file systems report it).
    return async (visit) => {
      for (const dirent of await readdir(path, {withFileTypes: true, encoding: 'latin1'})) visit({key: dirent.name, type: typeOf(dirent)})
    }
  }
  return async (visit) => {
    const dir = await opendir(path, {encoding: 'latin1', bufferSize: LIST_READ_BATCH_ENTRIES})
    try {
      for (;;) {
        const dirent = await dir.read()
        if (dirent === null) break
        visit({key: dirent.name, type: typeOf(dirent)})
      }
    } finally {
      // Not awaited: the answer need not wait a round trip to the thread pool for the close.
      dir.close().catch(() => undefined)
    }
  }
}

function asEntries(kept: PassEntry[]): FolderEntry[] {
  return kept.map((entry) => ({name: Buffer.from(entry.key, 'latin1'), type: entry.type}))
}

/** What one pass found: the smallest names above its lower bound, and the counts. */
interface PassResult {
  total: number
  /** Names at or below the lower bound. */
  below: number
  /** The smallest names above the lower bound, ascending, at most the pass's capacity. */
  kept: PassEntry[]
}

async function passAbove(pass: FolderPass, lower: string | undefined, capacity: number, sample?: string[], sampleSize = 0): Promise<PassResult> {
  const heap = new SmallestNames<PassEntry>(capacity)
  let total = 0
  let below = 0
  await pass((entry) => {
    total++
    if (sample) {
      // Reservoir sampling (Vitter's algorithm R): every name has the same chance to be in the sample.
      if (sample.length < sampleSize) sample.push(entry.key)
      else {
        const slot = Math.floor(Math.random() * total)
        if (slot < sampleSize) sample[slot] = entry.key
      }
    }
    if (lower !== undefined && entry.key <= lower) below++
    else heap.offer(entry)
  })
  return {total, below, kept: heap.sorted()}
}

/**
 * The entries at sorted positions `first` to `first + limit - 1` (counting from 1) of a folder,
 * read through `pass`, holding at most `limits.maxHeld` entries (plus a sample of
 * `limits.sampleSize` names) at any time (see the module comment). A window past the last entry
 * is empty. Entries added or removed between passes may shift the window by as many entries.
 * @param limit at most `limits.maxHeld`
 * @throws what `pass` throws.
 */
export async function folderWindow(pass: FolderPass, first: number, limit: number, limits: FolderWindowLimits = DEFAULT_LIMITS): Promise<FolderWindow> {
  const {maxHeld, sampleSize} = limits
  if (limit > maxHeld) throw new RangeError(`folderWindow: a window of ${limit} entries is more than the ${maxHeld} a pass holds`)
  const wanted = first - 1 + limit
  if (wanted <= maxHeld) {
    const only = await passAbove(pass, undefined, wanted)
    return {entries: asEntries(only.kept.slice(first - 1)), total: only.total, passes: 1}
  }
  const sample: string[] = []
  let scan = await passAbove(pass, undefined, maxHeld, sample, sampleSize)
  let passes = 1
  if (scan.total > maxHeld && sample.length > 0) {
    // A sample name whose estimated position is half a pass's capacity before the window; when it
    // turns out to lie inside or after the window, one further back.
    sample.sort()
    const step = Math.max(1, Math.ceil(((maxHeld / 2) * sample.length) / scan.total))
    for (let index = Math.floor(((first - 1) * sample.length) / scan.total) - step; index >= 0; index -= step) {
      const tried = await passAbove(pass, sample[index], maxHeld)
      passes++
      if (tried.below <= first - 1) {
        scan = tried
        break
      }
    }
  }
  for (;;) {
    const start = Math.max(0, first - 1 - scan.below)
    if (scan.kept.length < maxHeld || start + limit <= scan.kept.length) {
      return {entries: asEntries(scan.kept.slice(start, start + limit)), total: scan.total, passes}
    }
    // The window starts past the names kept: step on from the last name before it.
    const lower = scan.kept[Math.min(start, scan.kept.length) - 1]!.key
    scan = await passAbove(pass, lower, maxHeld)
    passes++
  }
}
