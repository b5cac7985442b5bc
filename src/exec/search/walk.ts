import type {Dirent} from 'node:fs'
import {lstat, open, readdir} from 'node:fs/promises'

import {displayName} from '../display-name.js'
import {CAN_VERIFY_DESCRIPTORS, FILE_OPEN_FLAGS, FOLDER_OPEN_FLAGS, descriptorPath, verifyOpened} from '../files/confined-open.js'
import {joinBytes, type Workspace} from '../workspace.js'
import {IgnoreRules} from './ignore-rules.js'

/** Folder names never searched, at any depth, whatever the ignore files say. */
export const ALWAYS_SKIPPED_FOLDERS: ReadonlySet<string> = new Set(['.git', 'node_modules'])

/** Largest ignore file read (bytes); a larger one is read up to this size. */
const MAX_IGNORE_FILE_BYTES = 1024 * 1024

/** One file the walk found. */
export interface WalkedFile {
  /** Workspace-relative path as bytes (`/` separators): what to open, below the root. */
  bytes: Buffer
  /** The same path in the display form (see display-name.ts): what ignore rules, globs and answers see. */
  shown: string
}

/**
 * Walks the files below one folder of the workspace the way `git` sees them, yielding the
 * workspace-relative paths of the regular files of each folder, one folder at a time: a folder's
 * files sorted by name (bytes), then its subfolders in name order, depth first.
 *
 * Names are bytes from start to end (DESIGN §4.2): a folder is listed and re-entered by the bytes
 * of its name, never by a decoded form, so a name that is not valid UTF-8 can neither vanish nor
 * lead somewhere else. Each folder is opened without following a symlink, verified inside the
 * workspace through its descriptor (see confined-open.ts) and listed through that descriptor,
 * so a folder swapped for a link to the outside is not walked.
 *
 * Skipped: whatever the `.gitignore` files of the workspace (nested ones included) and
 * `.git/info/exclude` ignore (see `IgnoreRules`), matched against the display form; `.git` and
 * `node_modules` folders; and every symlink, to a file or a folder, so the walk never leaves the
 * workspace or loops (git does not follow them either). Only ignore files inside the workspace
 * are read: never global git config, never a parent folder's above the workspace root; a
 * symlinked `.gitignore` is not read (git refuses them too). Folders that cannot be read are skipped.
 *
 * A start folder that is itself ignored (or lies in `node_modules`) is walked anyway, because
 * it was asked for by name; the rules from above it are then dropped and only the ignore files
 * at and below it apply.
 *
 * @param workspace the workspace.
 * @param start workspace-relative folder to walk as bytes (empty for the root), already confined.
 * @param mayContain when given, subfolders (workspace-relative, display form) it refuses are not walked.
 */
export async function* walkFiles(
  workspace: Workspace,
  start: Buffer,
  mayContain?: (folder: string) => boolean,
): AsyncGenerator<WalkedFile[]> {
  const reader = new FolderReader(workspace)
  const first: WalkedFile = {bytes: start, shown: start.length === 0 ? '' : displayName(start)}
  const stack: PendingFolder[] = [{folder: first, rules: await rulesAbove(reader, start), listing: reader.list(start)}]
  while (stack.length > 0) {
    const {folder, rules: outer, listing} = stack.pop() as PendingFolder
    const entries = await (listing ?? reader.list(folder.bytes))
    if (!entries) continue
    const hasGitFolder = entries.some((entry) => entry.shown === '.git' && entry.dirent.isDirectory())
    const hasGitignore = entries.some((entry) => entry.shown === '.gitignore' && entry.dirent.isFile())
    const rules = await withFolderRules(reader, folder, outer, hasGitFolder, hasGitignore)
    const files: WalkedFile[] = []
    const folders: WalkedFile[] = []
    for (const entry of entries) {
      const child: WalkedFile = {
        bytes: folder.bytes.length === 0 ? entry.name : joinBytes(folder.bytes, entry.name),
        shown: folder.shown === '' ? entry.shown : `${folder.shown}/${entry.shown}`,
      }
      if (entry.dirent.isDirectory()) {
        if (ALWAYS_SKIPPED_FOLDERS.has(entry.shown) || (mayContain && !mayContain(child.shown))) continue
        if (!rules.isIgnored(child.shown, true)) folders.push(child)
      } else if (entry.dirent.isFile()) {
        if (!rules.isIgnored(child.shown, false)) files.push(child)
      }
      // Symlinks, sockets, FIFOs and devices are skipped.
    }
    if (files.length > 0) yield files
    // Subfolders are read ahead (within a budget) while this folder's files are being searched.
    const pending = folders.map((child) => ({folder: child, rules, listing: reader.tryList(child.bytes)}))
    for (let index = pending.length - 1; index >= 0; index--) stack.push(pending[index] as PendingFolder)
  }
}

/** A folder waiting to be walked, its listing possibly already on its way. */
interface PendingFolder {
  folder: WalkedFile
  rules: IgnoreRules
  listing: Promise<ListedEntry[] | undefined> | undefined
}

/** One entry of a folder listing: its name as bytes and in the display form. */
interface ListedEntry {
  dirent: Dirent<Buffer>
  name: Buffer
  shown: string
}

/** Folder listings read ahead of the walk, at most this many at once. */
const PREFETCH_LISTINGS = 64

/**
 * Reads folders and small files of the workspace by their relative bytes, each opened without
 * following a symlink and verified inside; folder listings sorted by name (bytes), up to
 * `PREFETCH_LISTINGS` ahead of the walk, so the file system works on several folders at once
 * while the walk order stays depth first.
 */
class FolderReader {
  private outstanding = 0

  constructor(private readonly workspace: Workspace) {}

  /** The absolute path of a workspace-relative one. */
  full(relative: Buffer): Buffer {
    return relative.length === 0 ? this.workspace.rootBytes : joinBytes(this.workspace.rootBytes, relative)
  }

  /** The sorted listing of `folder`, or undefined when it cannot be read (or is no longer a folder inside). */
  async list(folder: Buffer): Promise<ListedEntry[] | undefined> {
    let handle
    try {
      handle = await open(this.full(folder), FOLDER_OPEN_FLAGS)
    } catch {
      return undefined
    }
    try {
      await verifyOpened(this.workspace, handle, displayName(folder))
      const dirents = await readdir(descriptorPathOr(handle.fd, this.full(folder)), {withFileTypes: true, encoding: 'buffer'})
      return dirents
        .map((dirent) => ({dirent, name: dirent.name, shown: displayName(dirent.name)}))
        .sort((a, b) => Buffer.compare(a.name, b.name))
    } catch {
      return undefined
    } finally {
      await handle.close().catch(() => undefined)
    }
  }

  /** Starts reading `folder` now if the budget allows. */
  tryList(folder: Buffer): Promise<ListedEntry[] | undefined> | undefined {
    if (this.outstanding >= PREFETCH_LISTINGS) return undefined
    this.outstanding++
    return this.list(folder).finally(() => this.outstanding--)
  }

  /** The text of the small regular file at `relative`, or undefined when it is not one (or not inside). */
  async readText(relative: Buffer): Promise<string | undefined> {
    let handle
    try {
      handle = await open(this.full(relative), FILE_OPEN_FLAGS)
    } catch {
      return undefined
    }
    try {
      await verifyOpened(this.workspace, handle, displayName(relative))
      if (!(await handle.stat()).isFile()) return undefined
      const buffer = Buffer.allocUnsafe(MAX_IGNORE_FILE_BYTES)
      const {bytesRead} = await handle.read(buffer, 0, buffer.length, 0)
      return buffer.toString('utf8', 0, bytesRead)
    } catch {
      return undefined
    } finally {
      await handle.close().catch(() => undefined)
    }
  }

  /** Whether `relative` is a real folder (not a symlink). */
  async isFolder(relative: Buffer): Promise<boolean> {
    return lstat(this.full(relative)).then((info) => info.isDirectory(), () => false)
  }
}

/** The path to list an open folder by: its descriptor where the system can name one, else its path. */
function descriptorPathOr(fd: number, path: Buffer): string | Buffer {
  return CAN_VERIFY_DESCRIPTORS ? descriptorPath(fd) : path
}

/**
 * The rules of the folders from the workspace root down to (not including) `start`, whose own
 * ignore files are read when it is walked. Restarts from no rules below a folder that is
 * ignored or always skipped, since `start` was named explicitly.
 */
async function rulesAbove(reader: FolderReader, start: Buffer): Promise<IgnoreRules> {
  if (start.length === 0) return IgnoreRules.none()
  let rules = IgnoreRules.none()
  let folder: WalkedFile = {bytes: Buffer.alloc(0), shown: ''}
  for (const name of splitNames(start)) {
    const gitFolder = joinRelative(folder.bytes, Buffer.from('.git'))
    const hasGitFolder = await reader.isFolder(gitFolder)
    const hasGitignore = true // read below only if it is a real regular file
    rules = await withFolderRules(reader, folder, rules, hasGitFolder, hasGitignore)
    const shownName = displayName(name)
    folder = {bytes: joinRelative(folder.bytes, name), shown: folder.shown === '' ? shownName : `${folder.shown}/${shownName}`}
    if (ALWAYS_SKIPPED_FOLDERS.has(shownName) || rules.isIgnored(folder.shown, true)) rules = IgnoreRules.none()
  }
  return rules
}

/** `rules` followed by a folder's `.git/info/exclude` (lower precedence) and its `.gitignore`. */
async function withFolderRules(
  reader: FolderReader,
  folder: WalkedFile,
  rules: IgnoreRules,
  hasGitFolder: boolean,
  hasGitignore: boolean,
): Promise<IgnoreRules> {
  let result = rules
  if (hasGitFolder) {
    const text = await reader.readText(joinRelative(folder.bytes, Buffer.from('.git/info/exclude')))
    if (text !== undefined) result = result.withFile(folder.shown, text)
  }
  if (hasGitignore) {
    const text = await reader.readText(joinRelative(folder.bytes, Buffer.from('.gitignore')))
    if (text !== undefined) result = result.withFile(folder.shown, text)
  }
  return result
}

/** `folder/name` for workspace-relative byte paths (`folder` empty for the root). */
function joinRelative(folder: Buffer, name: Buffer): Buffer {
  return folder.length === 0 ? name : joinBytes(folder, name)
}

/** The names of a relative byte path. */
function splitNames(relative: Buffer): Buffer[] {
  const names: Buffer[] = []
  let from = 0
  for (let index = 0; index <= relative.length; index++) {
    if (index === relative.length || relative[index] === 0x2f) {
      if (index > from) names.push(relative.subarray(from, index))
      from = index + 1
    }
  }
  return names
}
