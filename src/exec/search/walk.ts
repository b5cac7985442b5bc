import type {Dirent} from 'node:fs'
import {lstat, readdir, readFile} from 'node:fs/promises'
import path from 'node:path'

import {IgnoreRules} from './ignore-rules.js'

/** Folder names never searched, at any depth, whatever the ignore files say. */
export const ALWAYS_SKIPPED_FOLDERS: ReadonlySet<string> = new Set(['.git', 'node_modules'])

/**
 * Walks the files below one folder of the workspace the way `git` sees them, yielding the
 * workspace-relative paths (`/` separators) of the regular files of each folder, one folder at a
 * time: a folder's files sorted by name, then its subfolders in name order, depth first.
 *
 * Skipped: whatever the `.gitignore` files of the workspace (nested ones included) and
 * `.git/info/exclude` ignore (see `IgnoreRules`); `.git` and `node_modules` folders; and every
 * symlink, to a file or a folder, so the walk never leaves the workspace or loops (git does not
 * follow them either). Only ignore files inside the workspace are read: never global git
 * config, never a parent folder's above the workspace root; a symlinked `.gitignore` is not
 * read (git refuses them too). Folders that cannot be read are skipped.
 *
 * A start folder that is itself ignored (or lies in `node_modules`) is walked anyway, because
 * it was asked for by name; the rules from above it are then dropped and only the ignore files
 * at and below it apply.
 *
 * @param root the workspace's real path.
 * @param start workspace-relative folder to walk (`.` for the root), already confined.
 * @param mayContain when given, subfolders (workspace-relative) it refuses are not walked.
 */
export async function* walkFiles(root: string, start: string, mayContain?: (folder: string) => boolean): AsyncGenerator<string[]> {
  const prefetch = new ListingPrefetch(root)
  const first = start === '.' ? '' : start
  const stack: PendingFolder[] = [{folder: first, rules: await rulesAbove(root, start), listing: prefetch.list(first)}]
  while (stack.length > 0) {
    const {folder, rules: outer, listing} = stack.pop() as PendingFolder
    const entries = await (listing ?? prefetch.list(folder))
    if (!entries) continue
    const hasGitFolder = entries.some((entry) => entry.name === '.git' && entry.isDirectory())
    const hasGitignore = entries.some((entry) => entry.name === '.gitignore' && entry.isFile())
    const rules = await withFolderRules(root, folder, outer, hasGitFolder, hasGitignore)
    const files: string[] = []
    const folders: string[] = []
    for (const entry of entries) {
      const relative = folder === '' ? entry.name : `${folder}/${entry.name}`
      if (entry.isDirectory()) {
        if (ALWAYS_SKIPPED_FOLDERS.has(entry.name) || (mayContain && !mayContain(relative))) continue
        if (!rules.isIgnored(relative, true)) folders.push(relative)
      } else if (entry.isFile()) {
        if (!rules.isIgnored(relative, false)) files.push(relative)
      }
      // Symlinks, sockets, FIFOs and devices are skipped.
    }
    if (files.length > 0) yield files
    // Subfolders are read ahead (within a budget) while this folder's files are being searched.
    const pending = folders.map((child) => ({folder: child, rules, listing: prefetch.tryList(child)}))
    for (let index = pending.length - 1; index >= 0; index--) stack.push(pending[index] as PendingFolder)
  }
}

/** A folder waiting to be walked, its listing possibly already on its way. */
interface PendingFolder {
  folder: string
  rules: IgnoreRules
  listing: Promise<Dirent[] | undefined> | undefined
}

/** Folder listings read ahead of the walk, at most this many at once. */
const PREFETCH_LISTINGS = 64

/**
 * Reads folder listings, sorted by name; up to `PREFETCH_LISTINGS` ahead of the walk, so the
 * file system works on several folders at once while the walk order stays depth first.
 */
class ListingPrefetch {
  private outstanding = 0

  constructor(private readonly root: string) {}

  /** The sorted listing of `folder`, or undefined when it cannot be read. */
  list(folder: string): Promise<Dirent[] | undefined> {
    return readdir(path.join(this.root, folder), {withFileTypes: true}).then(
      (entries) => entries.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0)),
      () => undefined,
    )
  }

  /** Starts reading `folder` now if the budget allows. */
  tryList(folder: string): Promise<Dirent[] | undefined> | undefined {
    if (this.outstanding >= PREFETCH_LISTINGS) return undefined
    this.outstanding++
    return this.list(folder).finally(() => this.outstanding--)
  }
}

/**
 * The rules of the folders from the workspace root down to (not including) `start`, whose own
 * ignore files are read when it is walked. Restarts from no rules below a folder that is
 * ignored or always skipped, since `start` was named explicitly.
 */
async function rulesAbove(root: string, start: string): Promise<IgnoreRules> {
  if (start === '.' || start === '') return IgnoreRules.none()
  let rules = IgnoreRules.none()
  let folder = ''
  for (const name of start.split('/')) {
    rules = await withFolderRules(root, folder, rules, await isRealFolder(root, folder, '.git'), await isRealFile(root, folder, '.gitignore'))
    folder = folder === '' ? name : `${folder}/${name}`
    if (ALWAYS_SKIPPED_FOLDERS.has(name) || rules.isIgnored(folder, true)) rules = IgnoreRules.none()
  }
  return rules
}

/** `rules` followed by a folder's `.git/info/exclude` (lower precedence) and its `.gitignore`. */
async function withFolderRules(root: string, folder: string, rules: IgnoreRules, hasGitFolder: boolean, hasGitignore: boolean): Promise<IgnoreRules> {
  let result = rules
  if (hasGitFolder && (await isRealFile(root, folder, '.git/info/exclude'))) {
    const text = await readText(path.join(root, folder, '.git', 'info', 'exclude'))
    if (text !== undefined) result = result.withFile(folder, text)
  }
  if (hasGitignore) {
    const text = await readText(path.join(root, folder, '.gitignore'))
    if (text !== undefined) result = result.withFile(folder, text)
  }
  return result
}

async function readText(file: string): Promise<string | undefined> {
  try {
    return await readFile(file, 'utf8')
  } catch {
    return undefined
  }
}

/** Whether `folder/name` is a real file, no symlink anywhere in `name`'s own components. */
async function isRealFile(root: string, folder: string, name: string): Promise<boolean> {
  let current = path.join(root, folder)
  const parts = name.split('/')
  for (const [index, part] of parts.entries()) {
    current = path.join(current, part)
    try {
      const info = await lstat(current)
      if (index < parts.length - 1 ? !info.isDirectory() : !info.isFile()) return false
    } catch {
      return false
    }
  }
  return true
}

async function isRealFolder(root: string, folder: string, name: string): Promise<boolean> {
  try {
    return (await lstat(path.join(root, folder, name))).isDirectory()
  } catch {
    return false
  }
}
