/**
 * The one commit path of the file tools: every change `edit` makes (a text replacement, or a
 * patch of many files) is a list of file operations that this engine checks all first, then
 * commits together, all or nothing (DESIGN §4.3, §4.10):
 *
 * 1. Resolve every path inside the workspace (confinement, DESIGN §4.2; a Delete File's last
 *    name is not followed, so a symlink is deleted itself) and refuse a path named twice.
 * 2. Hold the server's lock of every real path (path-locks.ts), in one order, so two calls of
 *    this server never interleave on a file.
 * 3. Read every file through its verified folder and decide every new content in memory: each
 *    hunk's place, each size limit, each refusal (folders, binary, read-only) comes before any write.
 * 4. Record the change in the change log (the journal, src/exec/journal/).
 * 5. Create missing folders and write every new content to a temporary file beside its target,
 *    flushed to disk while the record is flushed too (the waits on the disk overlap); nothing is
 *    renamed before the record is durable.
 * 6. Hold the replace lock of every file (replace-lock.ts, shared with other ak servers), check
 *    that no file changed since it was read, then rename and unlink, keeping what each replaced
 *    aside (a hard link, or the original renamed) until all succeeded (a change of one file that
 *    replaces it keeps nothing aside: its rename is the last step that can fail).
 * 7. Remove what was kept aside, then mark the record committed.
 *
 * A failure in 5–7 undoes what was done (the originals come back from what was kept aside, else
 * from the content read in 3) and abandons the record. A crash in 5–7 leaves the record pending:
 * the next server on the workspace rolls it back before it serves (change-recovery.ts).
 */
import {accessSync, closeSync, constants, fstatSync, linkSync, lstatSync, openSync, renameSync, type Stats, unlinkSync} from 'node:fs'
import {link, mkdir, readlink, rename, rmdir, symlink, unlink} from 'node:fs/promises'

import {BadInputError, LimitReachedError, NotFoundError, OutsideWorkspaceError} from '../../errors.js'
import {escapeControls} from '../../text-escape.js'
import type {ToolContext} from '../context.js'
import {parseDisplayPath} from '../display-name.js'
import {errorCode, explainFsError} from '../fs-errors.js'
import {type ChangeLog, type FileChange, SYMLINK_TYPE_BITS} from '../journal/change-log.js'
import {sha256} from '../journal/file-digest.js'
import {
  EDIT_MAX_BYTES_IN_FLIGHT,
  EDIT_MAX_DIFF_CHARS,
  EDIT_MAX_FILE_BYTES,
  EDIT_PATCH_MAX_BYTES,
  EDIT_PATCH_MAX_OPERATIONS,
} from '../limits.js'
import {runtimeService} from '../runtime.js'
import {type AllowedProtectedPaths, assertWritableEntry, assertWritablePath, type WriteAction} from '../protected-paths.js'
import {joinBytes, parentOf, type ResolvedPath, type Workspace} from '../workspace.js'
import {type KeptAttributes, NEW_FILE_MODE, PERMISSION_BITS, removeStaleTemporaries, syncFolder, writeTemporary} from './atomic-write.js'
import {recoverInterruptedChanges} from './change-recovery.js'
import {ConfinedFolder, FILE_OPEN_FLAGS} from './confined-open.js'
import {unifiedDiff} from './edit-diff.js'
import {lstatQuietly, removeQuietly} from './quiet-calls.js'
import {readWholeContent} from './whole-content.js'
import type {FileOperation, FileOutcome} from './file-operations.js'
import {applyHunks} from './patch-apply.js'
import {ByteBudget, EDIT_BYTES_SERVICE, EDIT_LOCKS_SERVICE, PathLocks} from './path-locks.js'
import {temporaryName, withReplaceLock} from './replace-lock.js'
import {applyTextEdit, type ChangedSpan} from './text-edit.js'

/** Write permission bits (owner, group, others). */
const WRITE_BITS = 0o222
/** Errors of `link` that mean the file system (or its policy) gives no hard link here. */
const NO_HARD_LINK_CODES = new Set(['EPERM', 'ENOTSUP', 'EOPNOTSUPP', 'ENOSYS', 'EXDEV', 'EMLINK'])

const utf8 = new TextDecoder('utf-8', {fatal: true, ignoreBOM: true})

/** A path a change touches, resolved. */
interface Target {
  /** The path as the caller gave it (for messages). */
  requested: string
  /** The real path (for a new file: its deepest existing folder's real path and the names below). */
  real: Buffer
  relative: string
  /** The deepest existing folder on the way to the file. */
  folderReal: Buffer
  /** Folders to create below `folderReal`, outermost first. */
  missing: Buffer[]
  /** The file's own name. */
  name: Buffer
  exists: boolean
  /** The path as `Workspace.resolve` gave it (for the protected-path check). */
  resolved: ResolvedPath
}

/** What one path held before the change. */
interface Before {
  info: Stats
  data: Buffer
  /** The path is a symbolic link (only a Delete File takes one): `data` is its target. */
  isLink: boolean
}

/** One path the change touches, with what it holds before and after. */
interface Slot extends Target {
  operation: FileChange['operation']
  /** The other end of a move. */
  movedWith?: Slot
  before?: Before
  /** The new content and the attributes it keeps; undefined when the path goes away. */
  after?: {data: Buffer; keep?: KeptAttributes}
  /** The folder the file lies in, open, once it exists. */
  folder?: ConfinedFolder
  temporary?: Buffer
  /** Where the original is kept until the change is committed (a hard link, or the original renamed). */
  aside?: Buffer
}

/** A slot's outcome, before its diff is made. */
interface Pending {
  slot: Slot
  outcome: Omit<FileOutcome, 'diff'>
  /** Renders the diff within `budget` characters. */
  diff(budget: number): string
}

/** The path as bytes relative to the workspace root, as the change log records it. */
function recordedPath(workspace: Workspace, real: Buffer): Buffer {
  const root = workspace.rootBytes
  return real.subarray(root.length === 1 ? 1 : root.length + 1)
}

/**
 * Resolves a path to change through symlinks (a symlink inside the workspace changes its target).
 * @throws as `Workspace.resolve`, and BadInputError for a path that names a folder
 */
async function resolveTarget(workspace: Workspace, requested: string): Promise<Target> {
  const resolved = await workspace.resolve(requested)
  const shown = escapeControls(requested)
  if (resolved.namesFolder) throw new BadInputError(`"${shown}" names a folder (it ends in "/" or "."); edit changes files. Pass the file's path.`)
  if (resolved.exists) {
    return {
      requested,
      real: resolved.real,
      relative: resolved.relative,
      folderReal: parentOf(resolved.real),
      missing: [],
      name: resolved.real.subarray(resolved.real.lastIndexOf(0x2f) + 1),
      exists: true,
      resolved,
    }
  }
  const folderReal = resolved.missing.reduce((real) => parentOf(real), resolved.real)
  return {
    requested,
    real: resolved.real,
    relative: resolved.relative,
    folderReal,
    missing: resolved.missing.slice(0, -1),
    name: resolved.missing.at(-1) as Buffer,
    exists: false,
    resolved,
  }
}

/**
 * Resolves the path of a Delete File without following its last name: its folder is resolved,
 * and the entry in it is what gets deleted (a symlink itself, never its target).
 * @throws NotFoundError when nothing is there; BadInputError when the path names a folder
 */
async function resolveEntry(workspace: Workspace, requested: string): Promise<Target> {
  const shown = escapeControls(requested)
  const cut = requested.lastIndexOf('/')
  const written = requested.slice(cut + 1)
  if (written === '' || written === '.' || written === '..') {
    throw new BadInputError(`"${shown}" names a folder; Delete File deletes files, never folders. Pass a file's path.`)
  }
  const folderPath = cut === -1 ? '.' : cut === 0 ? '/' : requested.slice(0, cut)
  const folder = await workspace.resolve(folderPath, {mustExist: true}).catch((error: unknown) => {
    if (error instanceof NotFoundError) throw new NotFoundError(`Nothing exists at "${shown}" in the workspace, so it cannot be deleted. Check the path with the list tool.`)
    // The refusal names the path as given, as every refusal does, not its folder.
    if (error instanceof OutsideWorkspaceError) throw new OutsideWorkspaceError(requested)
    throw error
  })
  const name = parseDisplayPath(written)
  const real = joinBytes(folder.real, name)
  const relative = workspace.relativeOf(real)
  return {requested, real, relative, folderReal: folder.real, missing: [], name, exists: true, resolved: {real, relative, exists: true, missing: []}}
}

/** A folder's open form per real path, opened once for the whole change. */
class Folders {
  private readonly open = new Map<string, ConfinedFolder>()
  /** Opens under way, so that operations read at the same time share one. */
  private readonly opening = new Map<string, Promise<ConfinedFolder>>()

  constructor(private readonly workspace: Workspace) {}

  async get(real: Buffer, requested: string): Promise<ConfinedFolder> {
    const key = real.toString('latin1')
    const known = this.open.get(key)
    if (known) return known
    let opening = this.opening.get(key)
    if (!opening) {
      opening = (async () => {
        const folder = await ConfinedFolder.open(this.workspace, real, requested, 'write')
        this.open.set(key, folder)
        await removeStaleTemporaries(folder)
        return folder
      })()
      this.opening.set(key, opening)
      // A failed open is tried again by the next operation that needs the folder (and reported there).
      opening.catch(() => this.opening.delete(key))
    }
    return opening
  }

  /** Remembers a folder opened elsewhere (one just created), to close it with the others. */
  add(real: Buffer, folder: ConfinedFolder): void {
    this.open.set(real.toString('latin1'), folder)
  }

  all(): ConfinedFolder[] {
    return [...this.open.values()]
  }

  async close(): Promise<void> {
    await Promise.all(this.all().map((folder) => folder.close()))
  }
}

/**
 * What lies at `slot` now: undefined when nothing does.
 * @throws BadInputError for a folder, a special file, a binary or read-only file where `editable`
 *   content is needed; LimitReachedError past EDIT_MAX_FILE_BYTES
 */
async function readBefore(folder: ConfinedFolder, slot: Target, use: 'edit' | 'replace' | 'delete'): Promise<Before | undefined> {
  const shown = escapeControls(slot.requested)
  const entry = folder.entry(slot.name)
  const found = lstatSync(entry, {throwIfNoEntry: false})
  if (!found) return undefined
  if (found.isDirectory()) {
    throw new BadInputError(
      use === 'delete'
        ? `"${shown}" is a folder; Delete File deletes files, never folders (as Codex). Delete the files in it one by one, or leave it.`
        : `"${shown}" is a folder, not a file. edit changes text files.`,
    )
  }
  if (found.isSymbolicLink()) {
    // A path resolved through its links names no link at its end; one there now was swapped in.
    if (use !== 'delete') throw new BadInputError(`"${shown}" changed while it was being edited (it became a symbolic link). Read it again and retry.`)
    return {info: found, data: await readlink(entry, {encoding: 'buffer'}), isLink: true}
  }
  if (!found.isFile()) {
    throw new BadInputError(`"${shown}" is not a regular file (a device, pipe or socket); edit changes regular files only.`)
  }
  const fd = openSync(entry, FILE_OPEN_FLAGS)
  try {
    const info = fstatSync(fd)
    if (!info.isFile() || info.ino !== found.ino) {
      throw new BadInputError(`"${shown}" changed on disk while it was being read (another program or server wrote it). Read it again and retry. Nothing was changed.`)
    }
    if (info.size > EDIT_MAX_FILE_BYTES) {
      throw new LimitReachedError(`"${shown}" has ${info.size} bytes; edit changes files of at most ${EDIT_MAX_FILE_BYTES} bytes. Change it with other means, or split it.`)
    }
    if (use !== 'delete') {
      // The file is replaced by rename, which its own permissions would not stop: honour them here.
      const isWritable = (info.mode & WRITE_BITS) !== 0 && isAccessible(entry, constants.W_OK)
      if (!isWritable) throw new BadInputError(`"${shown}" is read-only. Change its permissions first if it is meant to be edited.`)
    }
    return {info, data: await readWholeContent(fd, info.size), isLink: false}
  } finally {
    closeSync(fd)
  }
}

/**
 * The text of a file's content.
 * @throws BadInputError when it is binary or not UTF-8
 */
function textOf(data: Buffer, requested: string): string {
  const shown = escapeControls(requested)
  if (data.includes(0)) {
    throw new BadInputError(
      `"${shown}" looks like a binary file (it has a NUL byte); edit changes text files only. ` +
        'If it is text with a stray NUL, remove the NUL with another tool (for example exec_command at the terminal level).',
    )
  }
  try {
    return utf8.decode(data)
  } catch {
    throw new BadInputError(
      `"${shown}" is not valid UTF-8 text; edit changes UTF-8 text files only. ` +
        'Convert it to UTF-8 first (for example iconv -f latin1 -t utf-8 through exec_command at the terminal level).',
    )
  }
}

/** `text` as UTF-8. @throws LimitReachedError past EDIT_MAX_FILE_BYTES */
function encodeWithinLimit(text: string, requested: string): Buffer {
  const data = Buffer.from(text, 'utf8')
  if (data.length > EDIT_MAX_FILE_BYTES) {
    throw new LimitReachedError(`The edited "${escapeControls(requested)}" would have ${data.length} bytes; edit writes files of at most ${EDIT_MAX_FILE_BYTES} bytes.`)
  }
  return data
}

function keptOf(info: Stats): KeptAttributes {
  return {mode: info.mode & PERMISSION_BITS, uid: info.uid, gid: info.gid}
}

/** The text of a file for a diff, or undefined when it is not text. */
function diffText(data: Buffer): string | undefined {
  if (data.includes(0)) return undefined
  try {
    return utf8.decode(data)
  } catch {
    return undefined
  }
}

/** A diff of a whole text going away (a deleted file, or the old side of a replaced binary). */
function removalDiff(relative: string, before: string, budget: number): string {
  const span: ChangedSpan = {oldStart: 0, oldEnd: before.length, newStart: 0, newEnd: 0}
  return unifiedDiff(relative, before, '', [span], budget)
}

/** Whether this process may access `entry` as `mode` (constants.W_OK…) says. */
function isAccessible(entry: Buffer, mode: number): boolean {
  try {
    accessSync(entry, mode)
    return true
  } catch {
    return false
  }
}

/** Runs `task` holding every key of `locks`, taken one after another in sorted order (no deadlock between calls). */
async function holdAll<T>(locks: PathLocks, keys: string[], task: () => Promise<T>): Promise<T> {
  const sorted = [...new Set(keys)].sort()
  const hold = (index: number): Promise<T> => (index === sorted.length ? task() : locks.hold(sorted[index] as string, () => hold(index + 1)))
  return hold(0)
}

/** Runs `task` holding the replace lock of every slot's file, in sorted order (the same in every ak server). */
async function withReplaceLocks<T>(slots: Slot[], task: () => Promise<T>): Promise<T> {
  const sorted = [...slots].sort((a, b) => Buffer.compare(a.real, b.real))
  const hold = (index: number): Promise<T> => {
    const slot = sorted[index]
    return slot ? withReplaceLock(slot.folder as ConfinedFolder, slot.name, () => hold(index + 1)) : task()
  }
  return hold(0)
}

/** Whether the file at the slot is still the one read (same inode, size and times), or still absent. */
function isUnchanged(slot: Slot): boolean {
  const now = lstatSync((slot.folder as ConfinedFolder).entry(slot.name), {throwIfNoEntry: false})
  const was = slot.before?.info
  if (!was || !now) return !was && !now
  return now.ino === was.ino && now.dev === was.dev && now.size === was.size && now.mtimeMs === was.mtimeMs && now.ctimeMs === was.ctimeMs
}

/**
 * Puts back what a slot held before, from the content read (when what was kept aside is gone):
 * a file with its mode and owner, a symlink, or nothing.
 */
async function restoreFromContent(slot: Slot): Promise<void> {
  const folder = slot.folder as ConfinedFolder
  const entry = folder.entry(slot.name)
  const before = slot.before
  if (!before) {
    await unlink(entry).catch((error: unknown) => {
      if (errorCode(error) !== 'ENOENT') throw error
    })
    return
  }
  const temporary = before.isLink ? temporaryName() : await writeTemporary(folder, before.data, keptOf(before.info))
  if (before.isLink) await symlink(before.data, folder.entry(temporary))
  await rename(folder.entry(temporary), entry)
}

/** The change engine's answer: what happened to each file, in the order of the operations. */
export interface AppliedChange {
  outcomes: FileOutcome[]
}

/**
 * Checks and applies `operations` together, all or nothing (see the module comment).
 * @param tool the tool the change is recorded for (e.g. "edit")
 * @throws the errors of each check (BadInputError, NotFoundError, OutsideWorkspaceError,
 *   LimitReachedError) before anything is changed, and an explained file-system error when a
 *   write fails (everything is then as before)
 */
export async function applyChanges(operations: FileOperation[], {runtime, workspace}: Pick<ToolContext, 'runtime' | 'workspace'>, tool = 'edit'): Promise<AppliedChange> {
  if (operations.length > EDIT_PATCH_MAX_OPERATIONS) {
    throw new LimitReachedError(
      `The patch has ${operations.length} operations; one edit applies at most ${EDIT_PATCH_MAX_OPERATIONS}. Split it into several patches.`,
    )
  }
  await recoverInterruptedChanges(runtime)
  const resolved = await Promise.all(
    operations.map(async (operation) => {
      if (operation.kind === 'delete') return {operation, target: await resolveEntry(workspace, operation.path)}
      const target = await resolveTarget(workspace, operation.path)
      const destination = operation.kind === 'update' && operation.moveTo !== undefined ? await resolveTarget(workspace, operation.moveTo) : undefined
      return {operation, target, destination: destination && !destination.real.equals(target.real) ? destination : undefined}
    }),
  )
  const seen = new Map<string, string>()
  for (const {operation, target, destination} of resolved) {
    for (const one of destination ? [target, destination] : [target]) {
      const key = one.real.toString('latin1')
      const earlier = seen.get(key)
      if (earlier !== undefined) {
        throw new BadInputError(
          `"${escapeControls(one.requested)}" is named by two operations of the patch (the other named it "${escapeControls(earlier)}"). ` +
            'Change each file in one operation only. Nothing was changed.',
        )
      }
      seen.set(key, one.requested)
    }
    // Judged before anything is opened or made (DESIGN §4.9); the folders actually opened are judged again before each write.
    const action: WriteAction = operation.kind === 'delete' || destination ? 'delete' : target.exists ? 'change' : 'create'
    assertWritablePath(target.resolved, runtime.allowedProtected, action, target.requested)
    if (destination) assertWritablePath(destination.resolved, runtime.allowedProtected, 'move onto', destination.requested)
    if (operation.kind === 'create' && target.exists) {
      throw new BadInputError(`"${escapeControls(operation.path)}" already exists. To change it, pass the text to replace as old_text; an empty old_text only creates new files.`)
    }
    if ((operation.kind === 'replace-text' || operation.kind === 'update') && !target.exists) {
      throw new NotFoundError(`Nothing exists at "${escapeControls(operation.path)}" in the workspace, so it cannot be ${operation.kind === 'update' ? 'updated' : 'edited'}. Check the path with the list tool.`)
    }
  }
  const locks = runtimeService(runtime, EDIT_LOCKS_SERVICE, () => new PathLocks())
  const budget = runtimeService(runtime, EDIT_BYTES_SERVICE, () => new ByteBudget(EDIT_MAX_BYTES_IN_FLIGHT))
  return holdAll(locks, [...seen.keys()], async () => {
    const folders = new Folders(workspace)
    try {
      // The files are read, changed and written while their sizes are held from the server's budget.
      const sizes = await sizeOf(resolved, folders)
      const pending = await budget.hold(Math.min(sizes, EDIT_MAX_BYTES_IN_FLIGHT), async () => {
        const planned = await plan(resolved, folders)
        const slots = planned.flatMap(({slot}) => (slot.movedWith && slot.operation === 'moved-to' ? [slot.movedWith, slot] : [slot]))
        const total = slots.reduce((sum, slot) => sum + (slot.before?.data.length ?? 0) + (slot.after?.data.length ?? 0), 0)
        if (total > EDIT_PATCH_MAX_BYTES) {
          throw new LimitReachedError(
            `The patch reads and writes ${total} bytes of files; one edit changes at most ${EDIT_PATCH_MAX_BYTES} bytes in all (old and new contents together). Split it into several patches. Nothing was changed.`,
          )
        }
        await commit(slots, workspace, folders, runtime.changeLog, runtime.allowedProtected, tool)
        return planned
      })
      let left = EDIT_MAX_DIFF_CHARS
      const outcomes = pending.map(({outcome, diff}) => {
        const shown = left > 0 ? diff(left) : ''
        left -= shown.length
        return {...outcome, diff: shown}
      })
      return {outcomes}
    } finally {
      await folders.close()
    }
  })
}

/** The bytes of the files the operations read (those that exist), summed; a file that cannot be looked at counts 0. */
async function sizeOf(resolved: Array<{target: Target; destination?: Target | undefined}>, folders: Folders): Promise<number> {
  let total = 0
  for (const {target, destination} of resolved) {
    for (const one of destination ? [target, destination] : [target]) {
      if (!one.exists || one.missing.length > 0) continue
      const folder = await folders.get(one.folderReal, one.requested).catch(() => undefined)
      total += folder ? (lstatQuietly(folder.entry(one.name))?.size ?? 0) : 0
    }
  }
  return total
}

/**
 * Reads every file and decides every new content (step 3 of the module comment), nothing written.
 * @returns one entry per operation, in order; a move's entry is its destination slot (its
 *   `movedWith` is the source)
 */
async function plan(resolved: Array<{operation: FileOperation; target: Target; destination?: Target | undefined}>, folders: Folders): Promise<Pending[]> {
  // Files are read several at a time; a refusal names the first operation that fails, as a one-by-one reading would.
  const outcomes: Array<{pending: Pending} | {error: Error}> = new Array(resolved.length)
  await forEachAtOnce(
    resolved.map((item, index) => ({...item, index})),
    WRITES_AT_ONCE,
    async ({operation, target, destination, index}) => {
      outcomes[index] = await planOne(operation, target, destination, folders).then(
        (pending) => ({pending}),
        (error: unknown) => ({error: explainFsError(error, target.requested, 'write')}),
      )
    },
  )
  const failed = outcomes.find((outcome) => 'error' in outcome)
  if (failed && 'error' in failed) throw failed.error
  return outcomes.map((outcome) => (outcome as {pending: Pending}).pending)
}

async function planOne(operation: FileOperation, target: Target, destination: Target | undefined, folders: Folders): Promise<Pending> {
  const folder = target.missing.length === 0 ? await folders.get(target.folderReal, target.requested) : undefined
  // A folder still to be created holds nothing yet.
  const existing = folder ? await readBefore(folder, target, operation.kind === 'delete' ? 'delete' : operation.kind === 'add' ? 'replace' : 'edit') : undefined
  const slot: Slot = {...target, operation: 'updated', ...(folder ? {folder} : {}), ...(existing ? {before: existing} : {})}
  const relative = target.relative
  switch (operation.kind) {
    case 'create':
    case 'add': {
      if (existing && operation.kind === 'create') {
        throw new BadInputError(`"${escapeControls(operation.path)}" already exists. To change it, pass the text to replace as old_text; an empty old_text only creates new files.`)
      }
      const data = encodeWithinLimit(operation.contents, operation.path)
      slot.operation = 'added'
      slot.after = existing ? {data, keep: keptOf(existing.info)} : {data}
      const old = existing ? diffText(existing.data) : undefined
      return {
        slot,
        outcome: {action: 'added', path: relative, replaced: existing !== undefined, bytes: data.length, hardLinks: existing?.info.nlink ?? 1},
        diff: (budget) =>
          existing && old !== undefined
            ? unifiedDiff(relative, old, operation.contents, [{oldStart: 0, oldEnd: old.length, newStart: 0, newEnd: operation.contents.length}], budget)
            : unifiedDiff(relative, undefined, operation.contents, [], budget),
      }
    }
    case 'delete': {
      if (!existing) throw new NotFoundError(`Nothing exists at "${escapeControls(operation.path)}" in the workspace, so it cannot be deleted. Check the path with the list tool.`)
      slot.operation = 'deleted'
      const old = existing.isLink ? undefined : diffText(existing.data)
      return {
        slot,
        outcome: {action: 'deleted', path: relative, replaced: false, bytes: 0, hardLinks: existing.info.nlink},
        diff: (budget) => (old === undefined ? '' : removalDiff(relative, old, budget)),
      }
    }
    case 'replace-text': {
      if (!existing) throw new NotFoundError(`Nothing exists at "${escapeControls(operation.path)}" in the workspace. Check the path with the list tool.`)
      const text = textOf(existing.data, operation.path)
      const result = applyTextEdit(text, operation.request)
      const data = encodeWithinLimit(result.text, operation.path)
      slot.after = {data, keep: keptOf(existing.info)}
      return {
        slot,
        outcome: {
          action: 'updated',
          path: relative,
          replaced: false,
          bytes: data.length,
          hardLinks: existing.info.nlink,
          occurrences: result.count,
          lines: result.lines,
        },
        diff: (budget) => unifiedDiff(relative, text, result.text, result.spans, budget, {isComplete: result.spans.length === result.count}),
      }
    }
    case 'update': {
      if (!existing) throw new NotFoundError(`Nothing exists at "${escapeControls(operation.path)}" in the workspace, so it cannot be updated. Check the path with the list tool.`)
      const text = textOf(existing.data, operation.path)
      const result = applyHunks(text, operation.hunks, operation.path)
      const data = encodeWithinLimit(result.text, operation.path)
      const keep = keptOf(existing.info)
      if (!destination) {
        slot.after = {data, keep}
        return {
          slot,
          outcome: {action: 'updated', path: relative, replaced: false, bytes: data.length, hardLinks: existing.info.nlink, hunkLines: result.lines},
          diff: (budget) => unifiedDiff(relative, text, result.text, result.spans, budget),
        }
      }
      const destinationFolder = destination.missing.length === 0 ? await folders.get(destination.folderReal, destination.requested) : undefined
      const replaced = destinationFolder ? await readBefore(destinationFolder, destination, 'replace') : undefined
      const moved: Slot = {
        ...destination,
        operation: 'moved-to',
        movedWith: slot,
        after: {data, keep},
        ...(destinationFolder ? {folder: destinationFolder} : {}),
        ...(replaced ? {before: replaced} : {}),
      }
      slot.operation = 'moved-from'
      slot.movedWith = moved
      return {
        slot: moved,
        outcome: {
          action: 'moved',
          path: destination.relative,
          from: relative,
          replaced: replaced !== undefined,
          bytes: data.length,
          hardLinks: existing.info.nlink,
          hunkLines: result.lines,
        },
        diff: (budget) => unifiedDiff(destination.relative, text, result.text, result.spans, budget),
      }
    }
  }
}

/** The change-log entry of each slot (a move gives two). */
function changesOf(slots: Slot[], workspace: Workspace): FileChange[] {
  return slots.map((slot) => ({
    path: recordedPath(workspace, slot.real),
    operation: slot.operation,
    ...(slot.movedWith ? {movedWith: recordedPath(workspace, slot.movedWith.real)} : {}),
    before: slot.before
      ? {content: slot.before.data, mode: (slot.before.info.mode & PERMISSION_BITS) | (slot.before.isLink ? SYMLINK_TYPE_BITS : 0)}
      : null,
    after: slot.after ? {sha256: sha256(slot.after.data), mode: slot.after.keep?.mode ?? NEW_FILE_MODE & ~process.umask()} : null,
  }))
}

/** Files a change reads, or writes and syncs, at the same time. */
const WRITES_AT_ONCE = 8

/**
 * Runs `task` on every item, at most `limit` at a time; once one fails no new one starts, and the
 * first error is thrown after those running have ended (so each item's state is known).
 */
async function forEachAtOnce<T>(items: T[], limit: number, task: (item: T) => Promise<void>): Promise<void> {
  let next = 0
  let failure: {error: unknown} | undefined
  const worker = async () => {
    while (!failure && next < items.length) {
      const item = items[next++] as T
      await task(item).catch((error: unknown) => {
        failure ??= {error}
      })
    }
  }
  await Promise.all(Array.from({length: Math.min(limit, items.length)}, worker))
  if (failure) throw failure.error
}

/**
 * Commits the planned slots (steps 4–7 of the module comment).
 * @throws after undoing everything: BadInputError when a file changed since it was read, or the
 *   explained error of the write that failed
 */
async function commit(
  slots: Slot[],
  workspace: Workspace,
  folders: Folders,
  changeLog: ChangeLog,
  allowed: AllowedProtectedPaths,
  tool: string,
): Promise<void> {
  // Recorded first; its flush to disk runs while the new contents are written and flushed.
  const {change: record, flushed} = await changeLog.beginWritten(tool, changesOf(slots, workspace))
  const created: Array<{folder: ConfinedFolder; name: Buffer}> = []
  const undo: Array<() => Promise<void>> = []
  let step = 'create folders'
  let current: Slot | undefined
  try {
    for (const slot of slots) {
      current = slot
      if (!slot.folder) slot.folder = await createFolders(workspace, slot, folders, created)
    }
    step = 'write'
    // Written and synced several at a time: the disk flushes them together.
    await forEachAtOnce(
      slots.filter((slot) => slot.after),
      WRITES_AT_ONCE,
      async (slot) => {
        current = slot
        slot.temporary = await writeTemporary(slot.folder as ConfinedFolder, (slot.after as {data: Buffer}).data, slot.after?.keep)
      },
    )
    step = 'record'
    current = undefined
    // Nothing is renamed before the change is recorded durably.
    await flushed
    step = 'replace'
    current = undefined
    await withReplaceLocks(slots, async () => {
      for (const slot of slots) {
        if (!isUnchanged(slot)) {
          throw new BadInputError(
            `"${escapeControls(slot.requested)}" changed on disk while the edit was being made (another program or server wrote it). ` +
              'Read it again and retry. Nothing was changed.',
          )
        }
      }
      for (const slot of slots) {
        current = slot
        assertWritableEntry(workspace, slot.folder as ConfinedFolder, slot.name, allowed, actionOf(slot), slot.requested)
        await replaceSlot(slot, undo, slots.length > 1)
      }
    })
    step = 'finish'
    await forEachAtOnce(slots, WRITES_AT_ONCE, async (slot) => {
      const folder = slot.folder as ConfinedFolder
      if (slot.aside) unlinkSync(folder.entry(slot.aside))
      if (slot.temporary) removeQuietly(folder.entry(slot.temporary))
      slot.aside = undefined
      slot.temporary = undefined
    })
    await Promise.all(folders.all().map((folder) => syncFolder(folder)))
    await record.commit()
  } catch (error) {
    const isRolledBack = await rollBack(slots, undo, created)
    if (isRolledBack) await record.abandon().catch(() => undefined)
    // A record that could not be flushed: nothing was changed, and the error is the journal's.
    if (step === 'record') throw error
    const failed = explainFsError(error, current?.requested ?? slots[0]?.requested ?? '.', 'write')
    if (!isRolledBack) {
      throw new BadInputError(
        `${failed.message} Putting every file back as it was failed too (during "${step}"); the change stays recorded as pending, ` +
          'and the next ak server on this workspace rolls it back before it serves.',
      )
    }
    throw failed
  }
}

/** Creates the folders `slot` needs (each verified inside the workspace), noting each one made. */
async function createFolders(workspace: Workspace, slot: Slot, folders: Folders, created: Array<{folder: ConfinedFolder; name: Buffer}>): Promise<ConfinedFolder> {
  let folder = await folders.get(slot.folderReal, slot.requested)
  let real = slot.folderReal
  for (const name of slot.missing) {
    const child = joinBytes(real, name)
    const known = folders.all().find((open) => open.real.equals(child))
    if (!known) {
      await mkdir(folder.entry(name)).then(
        () => created.push({folder, name}),
        (error: unknown) => {
          if (errorCode(error) !== 'EEXIST') throw error
        },
      )
    }
    const next = known ?? (await ConfinedFolder.open(workspace, child, slot.requested, 'write', folder.entry(name)))
    if (!known) folders.add(child, next)
    folder = next
    real = child
  }
  return folder
}

/** What a slot does to its path, in the words of the protected-path refusal. */
function actionOf(slot: Slot): WriteAction {
  if (slot.operation === 'deleted' || slot.operation === 'moved-from') return 'delete'
  if (slot.operation === 'moved-to') return 'move onto'
  return slot.before ? 'change' : 'create'
}

/**
 * Replaces one slot's file (inside the replace locks), pushing how to undo it. With `keepAside`
 * (a change of several files, where a later file may fail), a file replaced stays reachable under
 * a hard link until all are done; the only file of a change is replaced by the rename alone (an
 * undo after it puts its content back from what was read).
 */
async function replaceSlot(slot: Slot, undo: Array<() => Promise<void>>, keepAside: boolean): Promise<void> {
  const folder = slot.folder as ConfinedFolder
  const entry = folder.entry(slot.name)
  if (slot.before) {
    const aside = temporaryName()
    if (slot.after) {
      // The original stays reachable under a hard link until the change is committed.
      let isKept = keepAside
      try {
        if (isKept) linkSync(entry, folder.entry(aside))
      } catch (error) {
        if (!NO_HARD_LINK_CODES.has(errorCode(error) ?? '')) throw error
        isKept = false
      }
      if (isKept) slot.aside = aside
      renameSync(folder.entry(slot.temporary as Buffer), entry)
      slot.temporary = undefined
    } else {
      renameSync(entry, folder.entry(aside))
      slot.aside = aside
    }
    undo.push(async () => {
      if (slot.aside) await rename(folder.entry(slot.aside), entry)
      else await restoreFromContent(slot)
      slot.aside = undefined
    })
    return
  }
  // A new file: linked, which fails if anything appeared at the name meanwhile.
  await link(folder.entry(slot.temporary as Buffer), entry).catch(async (error: unknown) => {
    if (errorCode(error) === 'EEXIST') {
      throw new BadInputError(`"${escapeControls(slot.requested)}" appeared on disk while the edit was being made. Read it and retry. Nothing was changed.`)
    }
    if (!NO_HARD_LINK_CODES.has(errorCode(error) ?? '')) throw error
    // No hard links here: the rename is checked just before by isUnchanged.
    await rename(folder.entry(slot.temporary as Buffer), entry)
    slot.temporary = undefined
  })
  undo.push(() => unlink(entry))
}

/**
 * Undoes what was done, newest first, then removes temporary files and the folders made.
 * @returns false when something could not be put back (the record then stays pending)
 */
async function rollBack(slots: Slot[], undo: Array<() => Promise<void>>, created: Array<{folder: ConfinedFolder; name: Buffer}>): Promise<boolean> {
  let isComplete = true
  for (const step of undo.reverse()) {
    await step().catch(() => {
      isComplete = false
    })
  }
  for (const slot of slots) {
    const folder = slot.folder
    if (!folder) continue
    if (slot.temporary) await unlink(folder.entry(slot.temporary)).catch(() => undefined)
    if (slot.aside && isComplete) await unlink(folder.entry(slot.aside)).catch(() => undefined)
  }
  for (const {folder, name} of created.reverse()) await rmdir(folder.entry(name)).catch(() => undefined)
  return isComplete
}
