/**
 * Protected paths inside the sandbox's writable roots (DESIGN §4.8, §4.9): before each sandboxed
 * command, the protected paths of src/exec/protected-paths.ts found in every writable root are
 * bound read-only over themselves, after the root's own writable bind, so that a command writes
 * the project's files but never something git, an editor or an agent runs later outside the
 * sandbox. A bind mount holds the object itself: it cannot be written, renamed, removed or
 * replaced from inside (EROFS or EBUSY), whatever path reaches it (a symlinked folder, a renamed
 * parent).
 *
 * - A git folder (`.git`, a `gitdir:` target, the git folders of submodules and linked work trees
 *   below it) is bound writable over itself, so that it cannot be renamed away and replaced, and
 *   its GIT_CONTROL_ENTRIES (config, hooks, info, commondir…) are bound read-only. Git still writes
 *   objects, refs, the index, logs and COMMIT_EDITMSG, so `git add` and `git commit` work; `git
 *   config` fails (its rename over the config gets EBUSY) and so does writing a hook.
 * - A folder the walk finds that git takes for a git folder by its own rule (a `HEAD` beside
 *   `objects/` and `refs/`: a bare repository, at any depth or at a root) is bound as a git folder.
 * - A `.git` file (a submodule's or linked work tree's pointer) and every other protected name are
 *   bound read-only as they are, at any depth (the walk finds nested projects and repositories,
 *   up to PROTECTED_WALK_MAX_FOLDERS folders, skipping `node_modules`, and reads again only the
 *   folders that changed since the last walk: folder-digests.ts).
 * - A protected path that does not exist cannot be bound, so for the names at a writable root (and
 *   the control entries of its git folders) an empty placeholder is made on the host and bound
 *   read-only (as Codex's sandbox binds /dev/null there): an empty folder of mode 0555 for a
 *   folder, or `.git` itself (git then looks past it, as when it is missing); an empty file of mode
 *   0444 for a file, except `commondir`, which holds `.` (git reads it, and `.` names the git folder
 *   itself). Placeholders are removed when the last command that needs them ends, of this server
 *   or of another one on the workspace: a server removes one only once no sandbox it can see
 *   still mounts it (mount-points.ts, removeUnused). One left by a killed server is recognized
 *   and removed the same way.
 * - Placeholders are made and removed through a descriptor of the folder that holds them, opened
 *   without following a link at its name and verified (its /proc/self/fd link) to be the very
 *   folder the plan found, never by path: a running command that swaps a folder for a link to the
 *   outside meanwhile makes the next command fail with SandboxProtectionError (a placeholder it
 *   cannot remove that way is left for a later command to recognize), and nothing is made or
 *   removed outside. Each folder is opened once for all the placeholders it holds (they gather in
 *   a root and its `.git`), and every step is a synchronous call: each is one short system call,
 *   where a round trip to the thread pool per step made them cost milliseconds per command.
 * - A protected name that is a symbolic link cannot be protected by a bind (the mount would cover
 *   its target, and the link itself could be replaced), so the command is refused until it is
 *   replaced by what it points to or allowed.
 * - The folder a git folder's `core.hooksPath` names (git-hooks-path.ts, resolved against the work
 *   tree of a `.git` folder or `.git` file), when it is a folder inside the roots other than a root
 *   itself, is bound read-only. One that does not exist yet is not held by a placeholder.
 * - Paths the operator allowed (AllowedProtectedPaths) are left writable; one inside a protected
 *   folder is bound writable again after it, if it exists when the command starts.
 *
 * No bind can hold a folder that does not exist when the command starts: a new repository (`git
 * init n` with `core.fsmonitor`, then `git add n`), a new bare one, or a protected name in a new
 * folder. What the command leaves of those is neutralised after it, and at each answer while it
 * runs, by sandbox-leftovers.ts, judged against this plan (ProtectedMounts.baseline).
 */
import {
  type Dirent,
  type Stats,
  closeSync,
  constants,
  fchmodSync,
  lstatSync,
  mkdirSync,
  openSync,
  readFileSync,
  readdirSync,
  rmdirSync,
  unlinkSync,
  writeFileSync,
} from 'node:fs'
import {lstat, open, readdir, realpath} from 'node:fs/promises'
import path from 'node:path'

import {BadInputError} from '../../errors.js'
import type {Logger} from '../../log.js'
import {readNamedFileSync} from '../../named-file.js'
import {escapeControls} from '../../text-escape.js'
import type {LeftoverBaseline} from './sandbox-leftovers.js'
import {type FolderDigest, folderDigests} from './folder-digests.js'
import {mountedPaths} from './mount-points.js'
import {hooksFolderIn, readConfigSync} from '../git-hooks-path.js'
import {CAN_VERIFY_DESCRIPTORS, FOLDER_OPEN_FLAGS, descriptorPath, descriptorTarget} from '../files/confined-open.js'
import {
  ALLOW_PROTECTED_FLAG,
  type AllowedProtectedPaths,
  GIT_CONTROL_ENTRIES,
  GIT_HEAD_RULE,
  GIT_NAME,
  GIT_NESTED_FOLDERS,
  PROTECTED_NAMES,
  type ProtectedName,
  gitdirOf,
  protectedNameOf,
} from '../protected-paths.js'

/** Folders the walk for nested protected paths visits per writable root, at most (breadth first). */
export const PROTECTED_WALK_MAX_FOLDERS = 20_000
/** Folders the walk reads ahead of the one it looks at. */
const WALK_READ_AHEAD = 15
/** Entries looked at, at most, in each read-only protected folder for a file with more than one name (a hard link). */
export const HARD_LINK_SCAN_MAX_ENTRIES = 10_000
/** Depth of submodule git folders below `.git/modules` the walk looks into (a submodule's name may hold slashes). */
const GIT_MODULES_MAX_DEPTH = 8
/** Longest `.git` file read for its `gitdir:` line, in bytes. */
const GIT_FILE_MAX_BYTES = 4096

/** Mode of a placeholder folder: empty, and writable by nobody but root. */
const PLACEHOLDER_FOLDER_MODE = 0o555
/** Mode of a placeholder file. */
const PLACEHOLDER_FILE_MODE = 0o444
/** What a placeholder `commondir` holds: `.` names the git folder itself, so git reads it as if it were absent. */
const COMMONDIR_PLACEHOLDER = '.\n'

/** Thrown when a protected path cannot be protected in the sandbox; the command is not started. */
export class SandboxProtectionError extends BadInputError {}

/** A missing protected path to hold with a placeholder while commands run. */
interface Placeholder {
  path: string
  kind: 'folder' | 'file'
  content: string
}

/** What to bind over the writable roots, before placeholders are made. */
export interface ProtectedMountPlan {
  /** Paths bound read-only over themselves. */
  readOnly: string[]
  /** Paths bound writable over themselves (git folders, allowed paths inside protected folders). */
  writable: string[]
  /** Missing protected paths that get a placeholder, bound read-only. */
  placeholders: Placeholder[]
  /** Whether a walk stopped at PROTECTED_WALK_MAX_FOLDERS (deeper protected paths are not bound). */
  isWalkCut: boolean
  /** The git folders found (bound writable, or allowed): what the check after the command leaves alone (sandbox-leftovers.ts). */
  gitFolders: string[]
}

/** The protected names other than `.git`, which has rules of its own here (gitEntry). */
const NAMES_BUT_GIT = PROTECTED_NAMES.filter((rule) => rule.kind !== 'git')

function symlinkRefusal(file: string, workspace: string): SandboxProtectionError {
  const shown = escapeControls(path.relative(workspace, file) || file)
  return new SandboxProtectionError(
    `The sandbox cannot protect "${shown}": it is a symbolic link, and a read-only bind would cover only what it points to, ` +
      'while the link itself could be replaced. No command runs until it is fixed: replace the link by what it points to, ' +
      `or, if commands may change it, start the server with ${ALLOW_PROTECTED_FLAG} ${shown}.`,
  )
}

function hardLinkRefusal(file: string, names: number, workspace: string): SandboxProtectionError {
  const shown = escapeControls(path.relative(workspace, file) || file)
  return new SandboxProtectionError(
    `The sandbox cannot protect "${shown}": it is a hard link (one file with ${names} names), and a read-only bind holds only ` +
      'this name, so a command could change the file through another one. No command runs until it is fixed: give it a copy of ' +
      `its own (cp -p "${shown}" "${shown}.copy" && mv "${shown}.copy" "${shown}"), or, if commands may change it, start the ` +
      `server with ${ALLOW_PROTECTED_FLAG} ${shown}.`,
  )
}

async function lstatOrUndefined(file: string) {
  return lstat(file).catch((error: NodeJS.ErrnoException) => {
    if (error.code === 'ENOENT' || error.code === 'ENOTDIR') return undefined
    throw error
  })
}

/**
 * lstatOrUndefined, synchronously: for the paths each command looks at (the protected names at a
 * root, a git folder's control entries, the entries of read-only protected folders), one short
 * system call each, where a round trip to the thread pool each made them cost milliseconds per
 * command.
 */
function lstatSyncOrUndefined(file: string): Stats | undefined {
  try {
    return lstatSync(file)
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT' || (error as NodeJS.ErrnoException).code === 'ENOTDIR') return undefined
    throw error
  }
}

/** Reads at most `limit` bytes of the regular file `file`, never through a link or blocking; undefined when it cannot. */
async function readSmallFile(file: string, limit: number): Promise<string | undefined> {
  const handle = await open(file, constants.O_RDONLY | constants.O_NOFOLLOW | constants.O_NONBLOCK).catch(() => undefined)
  if (!handle) return undefined
  try {
    const info = await handle.stat()
    if (!info.isFile()) return undefined
    const buffer = Buffer.alloc(Math.min(info.size, limit))
    const {bytesRead} = await handle.read(buffer, 0, buffer.length, 0)
    return buffer.subarray(0, bytesRead).toString('utf8')
  } finally {
    await handle.close()
  }
}

/**
 * Finds the protected paths of `roots` (real paths of writable roots) and decides how to bind
 * each (see the module comment). `workspace` is the real path the operator's `allowed` paths are
 * relative to.
 * @throws SandboxProtectionError when a protected name is a symbolic link, or a protected file a hard link
 */
export async function planProtectedMounts(roots: readonly string[], workspace: string, allowed: AllowedProtectedPaths): Promise<ProtectedMountPlan> {
  const plan: ProtectedMountPlan = {readOnly: [], writable: [], placeholders: [], isWalkCut: false, gitFolders: []}
  const gitFolders = new Set<string>()
  const isInsideRoots = (file: string) => roots.some((root) => file === root || file.startsWith(root.endsWith('/') ? root : `${root}/`))
  const relative = (file: string) => path.relative(workspace, file)
  const isAllowed = (file: string) => {
    const inWorkspace = relative(file)
    return !inWorkspace.startsWith('..') && !path.isAbsolute(inWorkspace) && inWorkspace !== '' && allowed.covers(inWorkspace)
  }
  /** Allowed paths below the protected folder `file` that exist: bound writable again. */
  const reopenAllowedBelow = async (file: string) => {
    for (const allowedPath of allowed.below(relative(file))) {
      const inside = path.join(workspace, allowedPath)
      const info = await lstatOrUndefined(inside)
      if (info && !info.isSymbolicLink()) plan.writable.push(inside)
    }
  }
  const protect = async (file: string) => {
    plan.readOnly.push(file)
    await reopenAllowedBelow(file)
  }

  /** The folder core.hooksPath names in a git folder's `config` (resolved against `base`), bound read-only when it is a folder inside the roots. */
  const hooksPathFolder = async (config: string | undefined, base: string) => {
    const hooks = hooksFolderIn(config, base)
    const real = hooks === undefined ? undefined : await realpath(hooks).catch(() => undefined)
    if (real === undefined || roots.includes(real) || !isInsideRoots(real) || isAllowed(real)) return
    if ((await lstatOrUndefined(real))?.isDirectory()) await protect(real)
  }

  const gitFolder = async (folder: string, depth = 0, base?: string): Promise<void> => {
    // Read once: for core.hooksPath, and for whether it turns config.worktree on.
    const config = readConfigSync(path.join(folder, 'config'))
    if (base !== undefined) await hooksPathFolder(config, base)
    if (gitFolders.has(folder) || isAllowed(folder)) return
    gitFolders.add(folder)
    plan.gitFolders.push(folder)
    plan.writable.push(folder)
    for (const entry of GIT_CONTROL_ENTRIES) {
      const file = path.join(folder, entry.name)
      if (isAllowed(file)) continue
      const placeholder: Placeholder = {path: file, kind: entry.kind === 'folder' ? 'folder' : 'file', content: entry.name === 'commondir' ? COMMONDIR_PLACEHOLDER : ''}
      const info = lstatSyncOrUndefined(file)
      if (info?.isSymbolicLink()) throw symlinkRefusal(file, workspace)
      if (info && !isPlaceholder(placeholder)) await protect(file)
      else if (entry.name !== 'config.worktree') plan.placeholders.push(placeholder)
      // config.worktree is held only when the (protected) config turns it on.
      else if (config && /worktreeconfig\s*=\s*(true|yes|on|1)\b/i.test(config)) plan.placeholders.push(placeholder)
    }
    for (const nested of GIT_NESTED_FOLDERS) await nestedGitFolders(path.join(folder, nested), depth)
  }

  /** The git folders below `modules/` or `worktrees/` (a folder holding HEAD is one). */
  const nestedGitFolders = async (folder: string, depth: number): Promise<void> => {
    if (depth >= GIT_MODULES_MAX_DEPTH) return
    const entries = await readdir(folder, {withFileTypes: true}).catch(() => [] as Dirent[])
    for (const entry of entries) {
      if (!entry.isDirectory()) continue
      const child = path.join(folder, entry.name)
      if (await lstatOrUndefined(path.join(child, GIT_HEAD_RULE.name))) await gitFolder(child, depth + 1)
      else await nestedGitFolders(child, depth + 1)
    }
  }

  const gitEntry = async (file: string, isRoot: boolean): Promise<void> => {
    if (isAllowed(file)) return
    const info = lstatSyncOrUndefined(file)
    const placeholder: Placeholder = {path: file, kind: 'folder', content: ''}
    if (!info || (isRoot && isPlaceholder(placeholder))) {
      if (isRoot) plan.placeholders.push(placeholder)
      return
    }
    if (info.isSymbolicLink()) throw symlinkRefusal(file, workspace)
    if (info.isDirectory()) return gitFolder(file, 0, path.dirname(file))
    await protect(file)
    // A .git file points git at its git folder; protect that one too when a command could write it.
    const gitdir = gitdirOf((await readSmallFile(file, GIT_FILE_MAX_BYTES)) ?? '', path.dirname(file))
    if (gitdir === undefined) return
    const target = await realpath(gitdir).catch(() => undefined)
    if (target && isInsideRoots(target) && (await lstatOrUndefined(target))?.isDirectory()) await gitFolder(target, 0, path.dirname(file))
  }

  const protectedEntry = async (file: string, rule: ProtectedName, isRoot: boolean, info?: Pick<Dirent, 'isSymbolicLink'>): Promise<void> => {
    if (isAllowed(file)) return
    const stats = info ?? lstatSyncOrUndefined(file)
    const placeholder: Placeholder = {path: file, kind: rule.kind === 'file' ? 'file' : 'folder', content: ''}
    // A placeholder (another command's, or one a killed server left) is taken as one, not as the user's.
    if (!stats || (isRoot && isPlaceholder(placeholder))) {
      if (isRoot) plan.placeholders.push(placeholder)
      else await reopenAllowedBelow(file)
      return
    }
    if (stats.isSymbolicLink()) throw symlinkRefusal(file, workspace)
    await protect(file)
  }

  /**
   * A read-only protected file with another name (a hard link) could be written through that name:
   * judged on the object, each protected file, and each file in a protected folder (up to
   * HARD_LINK_SCAN_MAX_ENTRIES entries a folder), refuses the command unless it is allowed.
   */
  const refuseHardLinks = async () => {
    for (const file of plan.readOnly) {
      let budget = HARD_LINK_SCAN_MAX_ENTRIES
      const visit = async (entry: string): Promise<void> => {
        if (isAllowed(entry)) return
        // Synchronously: a protected folder holds a few entries (git's sample hooks), looked at before every command.
        const info = lstatSyncOrUndefined(entry)
        if (info?.isFile() && info.nlink > 1) throw hardLinkRefusal(entry, info.nlink, workspace)
        if (!info?.isDirectory()) return
        for (const name of await readdir(entry).catch(() => [] as string[])) {
          if (--budget < 0) return
          await visit(path.join(entry, name))
        }
      }
      await visit(file)
    }
  }

  for (const root of roots) {
    // The root's own protected names, present or not.
    await gitEntry(path.join(root, GIT_NAME), true)
    for (const rule of NAMES_BUT_GIT) await protectedEntry(path.join(root, rule.name), rule, true)
    // Nested ones, breadth first, from the folders' digests (unchanged folders are not read again).
    // The queue is never shifted (that moves every folder after the first): `visited` is where it starts.
    const queue = [root]
    const reading = new Map<string, Promise<FolderDigest>>()
    let visited = 0
    while (visited < queue.length) {
      if (visited >= PROTECTED_WALK_MAX_FOLDERS) {
        plan.isWalkCut = true
        break
      }
      const folder = queue[visited++] as string
      // The folders next in the queue are read ahead, side by side (the thread pool reads them at once).
      for (const next of queue.slice(visited - 1, visited + WALK_READ_AHEAD)) {
        if (!reading.has(next)) reading.set(next, folderDigests.read(next))
      }
      const digest = await (reading.get(folder) as Promise<FolderDigest>)
      reading.delete(folder)
      // A folder git takes for a git folder by its own rule (HEAD, objects/, refs/): a bare repository.
      const byName = new Map(digest.notable.map((entry) => [entry.name.toString(), entry]))
      const head = byName.get(GIT_HEAD_RULE.name)
      if (head && !head.isDirectory() && byName.get('objects')?.isDirectory() && byName.get('refs')?.isDirectory()) {
        await gitFolder(folder, 0, folder)
      }
      for (const entry of digest.notable) {
        const name = entry.name.toString()
        const rule = protectedNameOf(name)
        if (!rule || folder === root) continue // the root's are done above
        const file = path.join(folder, name)
        if (rule.kind === 'git') await gitEntry(file, false)
        else await protectedEntry(file, rule, false, entry)
      }
      for (const name of digest.folders) queue.push(path.join(folder, Buffer.from(name, 'latin1').toString()))
    }
  }
  await refuseHardLinks()
  return plan
}

/** Placeholders this process holds, by path: how many commands use each. */
const heldPlaceholders = new Map<string, number>()
/** Placeholders are made and removed one step at a time, so a removal never races a command taking the same one. */
let placeholderTurn: Promise<unknown> = Promise.resolve()

/** Runs `step` after every placeholder step before it. */
function inTurn<T>(step: () => Promise<T>): Promise<T> {
  const result = placeholderTurn.then(step)
  placeholderTurn = result.catch(() => undefined)
  return result
}

/**
 * Whether what is at `at` (default: the placeholder's path; a path through a verified folder
 * descriptor when making or removing) is a placeholder of `placeholder`'s kind (made by this or a
 * killed server).
 */
function isPlaceholder(placeholder: Placeholder, at: string = placeholder.path): boolean {
  const info = lstatSyncOrUndefined(at)
  if (!info) return false
  if (placeholder.kind === 'folder') {
    if (!info.isDirectory() || (info.mode & 0o7777) !== PLACEHOLDER_FOLDER_MODE) return false
    return orUndefined(() => readdirSync(at))?.length === 0
  }
  if (!info.isFile() || (info.mode & 0o7777) !== PLACEHOLDER_FILE_MODE || info.size !== Buffer.byteLength(placeholder.content)) return false
  if (placeholder.content === '') return true
  const found = orUndefined(() => readNamedFileSync(at, GIT_FILE_MAX_BYTES))
  return found?.kind === 'file' && found.bytes.toString('utf8') === placeholder.content
}

/** `call()`, or undefined when it throws. */
function orUndefined<T>(call: () => T): T | undefined {
  try {
    return call()
  } catch {
    return undefined
  }
}

/**
 * Opens `folder` (a real path), without following a link at its name, and checks that the
 * descriptor names exactly that folder (a folder higher up swapped for a link would make it name
 * another one); undefined when it does not, or cannot be verified (no /proc/self/fd). The caller
 * closes it.
 */
function openPlaceholderFolder(folder: string): number | undefined {
  if (!CAN_VERIFY_DESCRIPTORS) return undefined
  const fd = orUndefined(() => openSync(folder, FOLDER_OPEN_FLAGS))
  if (fd === undefined) return undefined
  if (orUndefined(() => descriptorTarget(fd).toString()) === folder) return fd
  closeSync(fd)
  return undefined
}

/** The placeholders of `placeholders` by the folder that holds them, in their order: each folder is opened and verified once. */
function byFolder(placeholders: readonly Placeholder[]): Map<string, Placeholder[]> {
  const folders = new Map<string, Placeholder[]>()
  for (const placeholder of placeholders) {
    const folder = path.dirname(placeholder.path)
    const group = folders.get(folder)
    if (group) group.push(placeholder)
    else folders.set(folder, [placeholder])
  }
  return folders
}

/** The path of the placeholder's entry through the verified descriptor `folder` of the folder that holds it. */
function throughFolder(folder: number, placeholder: Placeholder): string {
  return `${descriptorPath(folder)}/${path.basename(placeholder.path)}`
}

function changedRefusal(folder: string, workspace: string): SandboxProtectionError {
  const shown = escapeControls(path.relative(workspace, folder) || '.')
  return new SandboxProtectionError(
    `The sandbox cannot protect "${shown}": the folder changed (it was replaced, or is a link) while the command was being ` +
      'prepared, so it is not the folder the sandbox checked. No command ran. Run it again once nothing replaces folders in the ' +
      'workspace; a folder replaced by a link stays refused.',
  )
}

/**
 * Where Linux (4.7 and later) shows this process's umask, on a line `Umask:\t0022`.
 */
const PROC_STATUS = '/proc/self/status'

/**
 * Whether the process's umask clears none of the bits of PLACEHOLDER_FOLDER_MODE, so that a
 * folder is made with that very mode (no chmod needed, which costs a path lookup through the
 * folder's descriptor per placeholder); false when the umask cannot be read. Read from
 * PROC_STATUS, as `process.umask()` would set it twice to read it.
 */
function isUmaskClear(): boolean {
  const umask = /^Umask:\s*([0-7]+)$/m.exec(orUndefined(() => readFileSync(PROC_STATUS, 'utf8')) ?? '')?.[1]
  return umask !== undefined && (Number.parseInt(umask, 8) & PLACEHOLDER_FOLDER_MODE) === 0
}

/**
 * Makes the placeholder if nothing is there, in the folder open and verified at `folder`
 * (openPlaceholderFolder), setting a folder's mode again when `needsChmod` (isUmaskClear); false
 * when something else appeared there meanwhile.
 */
function makePlaceholder(folder: number, placeholder: Placeholder, needsChmod: boolean): boolean {
  const entry = throughFolder(folder, placeholder)
  try {
    if (placeholder.kind === 'folder') {
      mkdirSync(entry, PLACEHOLDER_FOLDER_MODE)
      // The mode against a umask that clears some of its bits, on what was made (never through a
      // link swapped in at its name).
      const made = needsChmod ? orUndefined(() => openSync(entry, FOLDER_OPEN_FLAGS)) : undefined
      if (made !== undefined) {
        try {
          fchmodSync(made, PLACEHOLDER_FOLDER_MODE)
        } finally {
          closeSync(made)
        }
      }
    } else {
      const made = openSync(entry, constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL | constants.O_NOFOLLOW, PLACEHOLDER_FILE_MODE)
      try {
        if (placeholder.content !== '') writeFileSync(made, placeholder.content)
        fchmodSync(made, PLACEHOLDER_FILE_MODE)
      } finally {
        closeSync(made)
      }
    }
    return true
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error
    return isPlaceholder(placeholder, entry)
  }
}

/**
 * Removes the placeholders (each still one: isPlaceholder) through a verified descriptor of the
 * folder that holds them, opened once a folder; those of a folder that changed are left in place.
 */
function removePlaceholders(placeholders: readonly Placeholder[]): void {
  for (const [folderPath, group] of byFolder(placeholders)) {
    const folder = openPlaceholderFolder(folderPath)
    if (folder === undefined) continue
    try {
      for (const placeholder of group) {
        const entry = throughFolder(folder, placeholder)
        if (!isPlaceholder(placeholder, entry)) continue
        orUndefined(() => (placeholder.kind === 'folder' ? rmdirSync(entry) : unlinkSync(entry)))
      }
    } finally {
      closeSync(folder)
    }
  }
}

/** Tries to remove a placeholder another sandbox still mounts, at most: then its last holder removes it. */
const PLACEHOLDER_REMOVAL_TRIES = 5
/** Time before the first retry, in ms; each next one waits twice as long. */
const PLACEHOLDER_RETRY_MS = 250
/** Placeholders no command of this server holds that a sandbox still mounted at the last try, with the tries left. */
const pendingRemoval = new Map<string, {placeholder: Placeholder; triesLeft: number}>()
let retryTimer: NodeJS.Timeout | undefined
let retryDelayMs = PLACEHOLDER_RETRY_MS

/**
 * Removes the placeholders (`released`, and those pending) that no command of this server holds
 * and no sandbox mounts any more (mount-points.ts): a placeholder another server's running
 * command still mounts is left to that server, which removes it when its own command ends; one
 * this server's just-ended sandbox still mounted while its namespace went away is retried a few
 * times. Run in turn (inTurn).
 */
async function removeUnused(released: readonly Placeholder[]): Promise<void> {
  for (const placeholder of released) pendingRemoval.set(placeholder.path, {placeholder, triesLeft: PLACEHOLDER_REMOVAL_TRIES})
  for (const file of pendingRemoval.keys()) if (heldPlaceholders.has(file)) pendingRemoval.delete(file)
  if (pendingRemoval.size === 0) return
  const inUse = mountedPaths(new Set(pendingRemoval.keys()))
  const unused: Placeholder[] = []
  for (const [file, pending] of pendingRemoval) {
    if (inUse.has(file) && --pending.triesLeft > 0) continue
    pendingRemoval.delete(file)
    if (!inUse.has(file)) unused.push(pending.placeholder)
  }
  removePlaceholders(unused)
  if (pendingRemoval.size === 0) {
    retryDelayMs = PLACEHOLDER_RETRY_MS
    return
  }
  if (retryTimer) return
  retryTimer = setTimeout(() => {
    retryTimer = undefined
    void inTurn(() => removeUnused([]))
  }, retryDelayMs)
  retryDelayMs *= 2
  retryTimer.unref()
}

/** The bubblewrap arguments of a plan, and the placeholders to let go of when the command ends. */
export interface ProtectedMounts {
  /** `--bind`/`--ro-bind` arguments, parents before what lies in them; they follow the writable roots' binds. */
  args: string[]
  /** Removes the placeholders no other command of this server still uses. Idempotent. */
  release(): Promise<void>
  /** What the sandbox bound and held, and when it looked: what the check after the command judges against. */
  baseline: LeftoverBaseline
}

/** Components in `file`, to order binds parents first. */
function depthOf(file: string): number {
  return file.split('/').length
}

/**
 * Plans the protected mounts of `roots` and makes the placeholders the plan needs (shared with the
 * other running commands of this server). Call `release` once the command has ended (its sandbox,
 * and so its mounts, are gone).
 * @throws SandboxProtectionError when a protected name is a symbolic link
 */
export async function prepareProtectedMounts(
  roots: readonly string[],
  workspace: string,
  allowed: AllowedProtectedPaths,
  log?: Logger,
): Promise<ProtectedMounts> {
  // Planned in turn too: a placeholder another command lets go of meanwhile would be taken for the user's own.
  return inTurn(() => holdProtectedMounts(roots, workspace, allowed, log))
}

async function holdProtectedMounts(
  roots: readonly string[],
  workspace: string,
  allowed: AllowedProtectedPaths,
  log?: Logger,
): Promise<ProtectedMounts> {
  const since = Date.now()
  const plan = await planProtectedMounts(roots, workspace, allowed)
  const baseline: LeftoverBaseline = {
    roots,
    workspace,
    allowed,
    known: new Set([...plan.readOnly, ...plan.writable, ...plan.placeholders.map((placeholder) => placeholder.path), ...plan.gitFolders]),
    gitFolders: new Set(plan.gitFolders),
    since,
  }
  if (plan.isWalkCut) {
    log?.warn(
      `the sandbox looked for protected paths in ${PROTECTED_WALK_MAX_FOLDERS} folders of the workspace and stopped there: ` +
        'nested repositories and settings deeper in it are not kept read-only',
    )
  }
  const held: Placeholder[] = []
  const unheld: Placeholder[] = []
  const releaseHeld = async () => {
    for (const placeholder of held.splice(0)) {
      const count = (heldPlaceholders.get(placeholder.path) ?? 1) - 1
      if (count > 0) {
        heldPlaceholders.set(placeholder.path, count)
        continue
      }
      heldPlaceholders.delete(placeholder.path)
      unheld.push(placeholder)
    }
    await removeUnused(unheld.splice(0))
  }
  const binds: Array<{file: string; flag: '--bind' | '--ro-bind'}> = [
    ...plan.writable.map((file) => ({file, flag: '--bind' as const})),
    ...plan.readOnly.map((file) => ({file, flag: '--ro-bind' as const})),
  ]
  try {
    const needsChmod = plan.placeholders.length > 0 && !isUmaskClear()
    for (const [folderPath, group] of byFolder(plan.placeholders)) {
      // The folder is opened and verified once for the placeholders to make in it, if any.
      const folder = group.some((placeholder) => !heldPlaceholders.has(placeholder.path)) ? openPlaceholderFolder(folderPath) : undefined
      try {
        for (const placeholder of group) {
          const count = heldPlaceholders.get(placeholder.path) ?? 0
          if (count === 0) {
            if (folder === undefined) throw changedRefusal(folderPath, workspace)
            // Something a user made meanwhile is protected as it is instead (it exists now).
            if (!makePlaceholder(folder, placeholder, needsChmod)) {
              const info = lstatSyncOrUndefined(placeholder.path)
              if (info?.isSymbolicLink()) throw symlinkRefusal(placeholder.path, workspace)
              if (info) binds.push({file: placeholder.path, flag: '--ro-bind'})
              continue
            }
          }
          heldPlaceholders.set(placeholder.path, count + 1)
          held.push(placeholder)
          binds.push({file: placeholder.path, flag: '--ro-bind'})
        }
      } finally {
        if (folder !== undefined) closeSync(folder)
      }
    }
  } catch (error) {
    await releaseHeld()
    throw error
  }
  // Parents first; at one depth a writable git folder comes before the read-only entries in it.
  binds.sort((a, b) => depthOf(a.file) - depthOf(b.file))
  return {args: binds.flatMap(({file, flag}) => [flag, file, file]), release: () => inTurn(releaseHeld), baseline}
}
