/**
 * Where the search walk starts (see parallel-walk.ts): the folder to walk, and the rules of the
 * ignore files of the folders above it, read on the server's thread from the verified workspace
 * root down, each folder opened through its parent's descriptor without following a link.
 */
import {closeSync, openSync} from 'node:fs'

import {displayName} from '../display-name.js'
import {FOLDER_OPEN_FLAGS, verifyDescriptor} from '../files/confined-open.js'
import {joinBytes, splitPath, type Workspace} from '../workspace.js'
import {FolderLease} from './folder-lease.js'
import {type IgnoreFileNotes, type IgnoreFileText, readIgnoreFile} from './ignore-file.js'
import {IgnoreRules} from './ignore-rules.js'
import {ALWAYS_SKIPPED_FOLDERS, asBytes, asText, type NameOrBytes, ruleText, withSlash} from './walk-names.js'

const GIT = Buffer.from('.git')
const INFO = Buffer.from('info')
const EXCLUDE = Buffer.from('exclude')
const GITIGNORE = Buffer.from('.gitignore')

/**
 * What a parallel walk of `start` (workspace-relative bytes, already confined) starts from: the
 * ignore files of the folders above it whose rules apply there, outermost first (see `rulesAbove`),
 * each as its folder (as rules see it) and usable text, and `start` itself as a folder to walk.
 * Read on the calling thread, through folder descriptors from the verified root.
 */
export async function walkStart(
  workspace: Workspace,
  start: Buffer,
  notes?: IgnoreFileNotes,
): Promise<{ignoreFiles: Array<{folder: string; text: string}>; prefix: NameOrBytes; shown: string; ruled: string}> {
  const ignoreFiles: Array<{folder: string; text: string}> = []
  await rulesAbove(workspace, start, notes, ignoreFiles)
  return {
    ignoreFiles,
    prefix: asText(withSlash(start.length === 0 ? workspace.rootBytes : joinBytes(workspace.rootBytes, start))),
    shown: start.length === 0 ? '' : displayName(start),
    ruled: ruleText(start),
  }
}

/**
 * Opens the workspace root (verified inside through its descriptor) and walks down to `start`
 * through folder descriptors, gathering the rules of the folders above `start`, whose own ignore
 * files are read when it is walked. Restarts from no rules below a folder that is ignored or
 * always skipped, since `start` was named explicitly. Below a folder that cannot be opened for
 * reading (one its user may only pass through, mode 111), the ignore files on the way are read by
 * their paths instead; the walk task then opens `start` by its path and checks it (walk-task.ts).
 * @param kept receives each ignore file whose rules are in the result: its folder (as rules see
 *   it) and its usable text, outermost first.
 * @returns the rules that apply at `start`.
 */
async function rulesAbove(
  workspace: Workspace,
  start: Buffer,
  notes: IgnoreFileNotes | undefined,
  kept: Array<{folder: string; text: string}>,
): Promise<IgnoreRules> {
  let lease: FolderLease | undefined = openRoot(workspace)
  let real = workspace.rootBytes
  let rules = IgnoreRules.none()
  let ruled = ''
  let shown = ''
  try {
    for (const name of splitPath(start)) {
      rules = await withFolderRules(lease ?? real, {ruled, shown}, rules, notes, kept)
      const ruledName = ruleText(name)
      ruled = ruled === '' ? ruledName : `${ruled}/${ruledName}`
      shown = shown === '' ? displayName(name) : `${shown}/${displayName(name)}`
      if (ALWAYS_SKIPPED_FOLDERS.has(ruledName) || rules.isIgnored(ruled, true)) {
        rules = IgnoreRules.none()
        kept.splice(0)
      }
      real = joinBytes(real, name)
      const child: FolderLease | undefined = lease ? openChildFolder(lease, name) : undefined
      lease?.release()
      lease = child
    }
    return rules
  } finally {
    lease?.release()
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

/** The workspace root, open and verified inside. */
function openRoot(workspace: Workspace): FolderLease {
  return openFolderLease(workspace, workspace.rootBytes, '.')
}

/**
 * Opens the folder at the real path `real` (from `Workspace.resolve`) as a lease, verified inside
 * through its descriptor.
 * @throws OutsideWorkspaceError when it is not inside; the system's error when it cannot be opened.
 */
function openFolderLease(workspace: Workspace, real: Buffer, requested: string): FolderLease {
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
 * @param folder the folder open (its files read through its descriptor), or its real path when it
 *   could not be opened (its files read by path, never through a link at their last name)
 * @param shownFolder the folder as ignore rules see it (`ruled`) and in the display form (`shown`, for notes)
 * @param kept receives the folder and usable text of each ignore file that added rules
 * (Reading .git/info/exclude and .gitignore finds nothing where they are not regular files.)
 */
async function withFolderRules(
  folder: FolderLease | Buffer,
  shownFolder: {ruled: string; shown: string},
  rules: IgnoreRules,
  notes: IgnoreFileNotes | undefined,
  kept: Array<{folder: string; text: string}>,
): Promise<IgnoreRules> {
  let result = rules
  const files: Array<[Buffer[], string]> = [
    [[GIT, INFO, EXCLUDE], '.git/info/exclude'],
    [[GITIGNORE], '.gitignore'],
  ]
  for (const [names, name] of files) {
    const read =
      folder instanceof FolderLease
        ? await readIgnoreFileBelow(folder, names)
        : await readIgnoreFile(names.reduce((path, part) => joinBytes(path, part), folder)).catch(() => undefined)
    if (read === undefined) continue
    if (read.skipped !== undefined) notes?.add(shownFolder.shown === '' ? name : `${shownFolder.shown}/${name}`, read.skipped)
    result = result.withPatterns(shownFolder.ruled, read.patterns)
    if (read.patterns.length > 0) kept.push({folder: shownFolder.ruled, text: read.text})
  }
  return result
}
