/**
 * Settling a change a crash interrupted (DESIGN §4.10). The change engine records every change
 * before making it (change-engine.ts); a server killed between that record and its commit leaves
 * it pending in the change log. The next server on the workspace calls
 * `recoverInterruptedChanges` before it serves:
 *
 * 1. the temporary files and locks the dead server left in the folders of its pending changes are
 *    removed (a new content not yet renamed into place, an original kept aside, a replace lock);
 * 2. the journal settles what it can judge alone (`settleJournal`): a change whose files are all
 *    as it made them is marked applied (it was complete, only its mark was lost), one whose files
 *    are all as before is forgotten;
 * 3. each change still pending was cut short half-way: it is rolled back — every file it touched
 *    is put back as its record says it was (content, mode, a symlink as a symlink), a file it
 *    created is removed — and the record is abandoned.
 *
 * So after a `kill -9` at any moment, once the next server has started, every file is as before
 * the call, or (when the kill came after the last rename) every file is as the patch says.
 * A file that is neither as before nor as the change made it was changed since by something
 * else: it is left alone, with a warning, and its record stays pending. Folders the change
 * created are left (empty).
 *
 * The change log lists as pending only changes whose server is gone: one still running is in the
 * middle of its own commit.
 */
import type {Stats} from 'node:fs'
import {lstat, open, readdir, readlink, rename, symlink, unlink} from 'node:fs/promises'

import type {ExecRuntime} from '../context.js'
import {displayName} from '../display-name.js'
import {errorCode} from '../fs-errors.js'
import {type FileChange, type PendingChange, SYMLINK_TYPE_BITS, TYPE_BITS} from '../journal/change-log.js'
import {sha256} from '../journal/file-digest.js'
import {EDIT_MAX_FILE_BYTES} from '../limits.js'
import {runtimeService, settleJournal} from '../runtime.js'
import {joinBytes, parentOf, type Workspace} from '../workspace.js'
import {PERMISSION_BITS, removeStaleTemporaries, writeTemporary} from './atomic-write.js'
import {ConfinedFolder, FILE_OPEN_FLAGS} from './confined-open.js'
import {TEMPORARY_NAME, isRunning, temporaryName} from './replace-lock.js'

/** The runtime service key of the recovery (run once per runtime). */
const CHANGE_RECOVERY_SERVICE = 'change-recovery'

/** What lies at an entry now: nothing, a link (its target) or a regular file (its digest). */
type Found = {kind: 'none'} | {kind: 'link'; target: Buffer} | {kind: 'file'; info: Stats; sha256: string} | {kind: 'other'}

async function look(folder: ConfinedFolder, name: Buffer): Promise<Found> {
  const entry = folder.entry(name)
  const info = await lstat(entry).catch((error: unknown) => {
    if (errorCode(error) === 'ENOENT') return undefined
    throw error
  })
  if (!info) return {kind: 'none'}
  if (info.isSymbolicLink()) return {kind: 'link', target: await readlink(entry, {encoding: 'buffer'})}
  if (!info.isFile() || info.size > EDIT_MAX_FILE_BYTES) return {kind: 'other'}
  const handle = await open(entry, FILE_OPEN_FLAGS)
  try {
    const own = await handle.stat()
    return {kind: 'file', info: own, sha256: sha256(await handle.readFile())}
  } finally {
    await handle.close()
  }
}

/**
 * Puts one recorded path back as it was before its change.
 * @returns false when the path was changed since by something else (left alone)
 */
async function restore(workspace: Workspace, change: FileChange): Promise<boolean> {
  const real = joinBytes(workspace.rootBytes, change.path)
  const name = real.subarray(real.lastIndexOf(0x2f) + 1)
  const shown = displayName(change.path)
  let folder: ConfinedFolder
  try {
    folder = await ConfinedFolder.open(workspace, parentOf(real), shown, 'write')
  } catch (error) {
    // A file the change created, in a folder gone since: nothing to take back.
    if (change.before === null) return true
    throw error
  }
  try {
    const now = await look(folder, name)
    const isAsMade = now.kind === 'file' && change.after !== null && now.sha256 === change.after.sha256
    const before = change.before
    if (before === null) {
      if (isAsMade) await unlink(folder.entry(name))
      return now.kind === 'none' || isAsMade
    }
    const isLink = (before.mode & TYPE_BITS) === SYMLINK_TYPE_BITS
    if (isLink ? now.kind === 'link' && now.target.equals(before.content) : now.kind === 'file' && now.sha256 === sha256(before.content)) return true
    if (now.kind !== 'none' && !isAsMade) return false
    const temporary = isLink
      ? temporaryName()
      : await writeTemporary(folder, before.content, {
          mode: before.mode & PERMISSION_BITS,
          uid: now.kind === 'file' ? now.info.uid : (process.getuid?.() ?? 0),
          gid: now.kind === 'file' ? now.info.gid : (process.getgid?.() ?? 0),
        })
    if (isLink) await symlink(before.content, folder.entry(temporary))
    await rename(folder.entry(temporary), folder.entry(name))
    return true
  } finally {
    await clearLeftovers(folder)
    await folder.close()
  }
}

/**
 * Removes what a dead server left in `folder`: its temporary files and stale locks
 * (removeStaleTemporaries), and an original it had kept aside that was a symlink (a Delete File of
 * a link renames the link itself aside).
 */
async function clearLeftovers(folder: ConfinedFolder): Promise<void> {
  await removeStaleTemporaries(folder).catch(() => undefined)
  for (const name of await readdir(folder.self).catch(() => [] as string[])) {
    const match = TEMPORARY_NAME.exec(name)
    if (!match || Number(match[1]) === process.pid || isRunning(Number(match[1]))) continue
    const entry = folder.entry(Buffer.from(name))
    if ((await lstat(entry).catch(() => undefined))?.isSymbolicLink()) await unlink(entry).catch(() => undefined)
  }
}

/** Clears the leftovers of dead servers in every folder a pending change touched (step 1). */
async function clearPendingFolders(workspace: Workspace, pending: readonly PendingChange[]): Promise<void> {
  const folders = new Set<string>()
  for (const change of pending) for (const file of change.changes) folders.add(parentOf(joinBytes(workspace.rootBytes, file.path)).toString('latin1'))
  for (const real of folders) {
    const bytes = Buffer.from(real, 'latin1')
    const folder = await ConfinedFolder.open(workspace, bytes, workspace.relativeOf(bytes), 'write').catch(() => undefined)
    if (!folder) continue
    try {
      await clearLeftovers(folder)
    } finally {
      await folder.close()
    }
  }
}

/** Steps 1–3 of the module comment; never throws. */
async function settlePending(runtime: ExecRuntime): Promise<void> {
  const {changeLog, workspace, log} = runtime
  try {
    await clearPendingFolders(workspace, await changeLog.pending())
  } catch (error) {
    log.warn(`could not read the journal to clear what a stopped server left: ${error instanceof Error ? error.message : String(error)}`)
    return
  }
  await settleJournal(runtime, log)
  let pending
  try {
    pending = await changeLog.pending()
  } catch {
    return
  }
  for (const change of pending) {
    const left: string[] = []
    for (const file of [...change.changes].reverse()) {
      const isRestored = await restore(workspace, file).catch(() => false)
      if (!isRestored) left.push(displayName(file.path))
    }
    if (left.length === 0) {
      await change.abandon().catch(() => undefined)
      log.info(`rolled back change ${change.id}, which a stopped server left half-made: its ${change.changes.length} file(s) are as before it`)
    } else {
      log.warn(
        `change ${change.id}, left half-made by a stopped server, could not be rolled back for ${left.join(', ')}: ` +
          'those files were changed since by something else. They are left as they are; the change stays recorded.',
      )
    }
  }
}

/**
 * Settles the changes crashed servers left pending in the runtime's change log (see the module
 * comment), once per runtime; later calls wait for the first. Servers call it before they serve,
 * and the change engine before its first change (for a runtime made without a serving command).
 * Never throws: what cannot be settled is logged.
 */
export async function recoverInterruptedChanges(runtime: ExecRuntime): Promise<void> {
  const recovery = runtimeService(runtime, CHANGE_RECOVERY_SERVICE, () => {
    const done = settlePending(runtime)
    return {done, close: () => done}
  })
  await recovery.done
}
