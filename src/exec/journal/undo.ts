/**
 * `ak exec undo`: reverting recorded changes byte for byte, modes included (DESIGN §4.10). An undo
 * puts every file it reverts back as the journal says it was before the change, and only when
 * each file is still exactly as the change (or the last later change recorded) left it: a file
 * changed since by anything else is named and nothing is done, so an undo never overwrites later
 * work. It takes the replace lock of every file it touches (the lock ak servers take around an
 * edit's last check and rename), so it is safe while servers run, and is recorded in the journal
 * as a change of its own, which can be undone in turn.
 */
import {open, rename, symlink, unlink} from 'node:fs/promises'

import {AkError, NotFoundError} from '../../errors.js'
import {NAMED_FILE_CREATE_FLAGS} from '../../named-file.js'
import {openCreatingFolders} from '../files/atomic-write.js'
import {ConfinedFolder} from '../files/confined-open.js'
import {temporaryName, withReplaceLock} from '../files/replace-lock.js'
import {displayName} from '../display-name.js'
import {ALLOW_PROTECTED_FLAG, ALLOW_PROTECTED_SEPARATOR, AllowedProtectedPaths, writeProtectionOf} from '../protected-paths.js'
import {joinBytes, parentOf, type Workspace} from '../workspace.js'
import {type FileChange, type FileDigest, SYMLINK_TYPE_BITS, TYPE_BITS} from './change-log.js'
import {type FileState, isStateOf, readFileState} from './file-state.js'
import {formatBytes} from './history.js'
import type {Journal} from './journal.js'
import {type JournalEntry, type StoredContent, isOwnerAlive, pathOf, undoneIds} from './journal-entry.js'
import {settleCrashedChanges} from './recovery.js'
import {digestOf} from './file-digest.js'

/** An undo that cannot be done as asked; the message names each file and why. Exit code 1. */
export class UndoRefusedError extends AkError {}

/** What an undo does to one path. */
export interface UndoStep {
  /** The path relative to the workspace, as bytes. */
  path: Buffer
  /** What the path must hold now (what the last change recorded left): null for nothing. */
  expected: FileDigest | null
  /** What the path gets back: null to remove the file. */
  restore: StoredContent | null
  /** For a moved file, the other end of its move. */
  movedWith?: Buffer
}

/** What an undo will do: which changes it reverts and what happens to each path. */
export interface UndoPlan {
  /** The ids of the changes reverted, newest first. */
  ids: number[]
  /** The change `ak exec undo` without an id picked, or the oldest of the range. */
  entries: JournalEntry[]
  steps: UndoStep[]
}

function isSameDigest(a: FileDigest | null, b: FileDigest | null): boolean {
  return a === null || b === null ? a === b : a.sha256 === b.sha256 && a.mode === b.mode
}

/**
 * Plans the undo of the newest change still in effect (no `id`; undos themselves are skipped, so
 * repeated undos walk back through the changes), or of every change from the newest down to `id`
 * (undos included, so `ak exec undo <id of an undo>` reverts that undo).
 * Changes a crash left pending are settled first.
 * @throws NotFoundError when there is nothing to undo or no change `id` in the journal
 * @throws UndoRefusedError when a change in the range is being made now or was cut short, or a
 *   file was changed by something else between two changes of the range
 */
export async function planUndo(journal: Journal, workspace: Workspace, id?: number): Promise<UndoPlan> {
  await settleCrashedChanges(journal, workspace)
  const entries = await journal.entries()
  let range: JournalEntry[]
  if (id === undefined) {
    const undone = undoneIds(entries)
    const newest = entries.filter((entry) => entry.state === 'committed' && !entry.undoes && !undone.has(entry.id)).at(-1)
    if (!newest) throw new NotFoundError('Nothing to undo: the journal holds no change of this workspace still in effect. `ak exec history` lists what it holds.')
    range = [newest]
  } else {
    if (!entries.some((entry) => entry.id === id)) {
      const kept = entries.length > 0 ? `it holds changes ${entries[0]!.id} to ${entries.at(-1)!.id}` : 'it holds none'
      throw new NotFoundError(`The journal holds no change ${id} for this workspace (${kept}; older ones were dropped to keep it within its size). \`ak exec history\` lists them.`)
    }
    range = entries.filter((entry) => entry.id >= id)
  }
  const unsettled = range.filter((entry) => entry.state === 'pending')
  if (unsettled.length > 0) {
    throw new UndoRefusedError(
      unsettled
        .map((entry) =>
          isOwnerAlive(entry)
            ? `Change ${entry.id} is being made now; retry once it is done.`
            : `Change ${entry.id} was cut short by a crash; start \`ak exec serve\` on the workspace once to roll it back, then retry.`,
        )
        .join('\n') + '\nNothing was changed.',
    )
  }
  const steps = new Map<string, UndoStep & {lastId: number}>()
  const problems: string[] = []
  for (const entry of range) {
    for (const change of entry.changes) {
      const before = change.before && {sha256: change.before.sha256, mode: change.before.mode}
      const step = steps.get(change.path)
      if (!step) {
        steps.set(change.path, {
          path: pathOf(change),
          expected: change.after,
          restore: change.before,
          ...(change.movedWith === undefined ? {} : {movedWith: Buffer.from(change.movedWith, 'base64')}),
          lastId: entry.id,
        })
        continue
      }
      if (!isSameDigest(step.expected, before)) {
        problems.push(`${displayName(step.path)}: changed by something other than ak between change ${step.lastId} and change ${entry.id}, so reverting both would lose that work.`)
      }
      step.expected = change.after
      step.lastId = entry.id
      delete step.movedWith
    }
  }
  if (problems.length > 0) throw new UndoRefusedError(`Cannot undo down to change ${id}:\n${problems.join('\n')}\nNothing was changed.`)
  const planned = [...steps.values()]
    .map(({lastId: _, ...step}) => step)
    .filter((step) => !isSameDigest(step.expected, step.restore && {sha256: step.restore.sha256, mode: step.restore.mode}))
    .sort((a, b) => Buffer.compare(a.path, b.path))
  return {ids: range.map((entry) => entry.id).reverse(), entries: range, steps: planned}
}

/** How a step reads: `restore a.txt (12 B, mode 644)`, `remove b.txt`, `move c.txt back to d.txt`. */
function describeStep(step: UndoStep, plan: UndoPlan): string | undefined {
  const shown = displayName(step.path)
  const partner = step.movedWith && plan.steps.find((other) => other.path.equals(step.movedWith!))
  if (partner) {
    // A move back is told once, on the side that goes.
    if (step.restore !== null) return undefined
    return `move ${shown} back to ${displayName(partner.path)}${partner.restore ? ` (${formatBytes(partner.restore.size)}, mode ${partner.restore.mode.toString(8)})` : ''}`
  }
  if (step.restore === null) return `remove ${shown} (the change created it)`
  const what = isLinkMode(step.restore.mode) ? 'a symbolic link' : `${formatBytes(step.restore.size)}, mode ${step.restore.mode.toString(8)}`
  return step.expected === null ? `recreate ${shown} (${what}; the change deleted it)` : `restore ${shown} as it was (${what})`
}

/** What the undo will do, for a person to confirm. */
export function describeUndoPlan(plan: UndoPlan): string {
  const which = plan.ids.length === 1 ? `change ${plan.ids[0]}` : `changes ${plan.ids.join(', ')}`
  const newest = plan.entries.at(-1)!
  const head = `Undo ${which} (${plan.ids.length === 1 ? `${newest.tool}, ` : ''}${newest.time.replace('T', ' ').replace(/\.\d+Z$/, 'Z')}):`
  const lines = plan.steps.map((step) => describeStep(step, plan)).filter((line): line is string => line !== undefined)
  if (lines.length === 0) return `${head}\n  nothing to do: every file is already as before it.\n`
  return `${head}\n${lines.map((line) => `  ${line}`).join('\n')}\n`
}

function isLinkMode(mode: number): boolean {
  return (mode & TYPE_BITS) === SYMLINK_TYPE_BITS
}

/** A path's folder, open, and what to make below it to reach the path. */
interface StepPlace {
  step: UndoStep
  folder: ConfinedFolder
  /** Folders missing between `folder` and the file (they are made only to restore a file). */
  missingFolders: Buffer[]
  name: Buffer
}

/**
 * Opens the deepest existing folder of each step's path. The path's own last name is never
 * followed (a link there is the entry undone, not its target); a folder on the way that is no
 * longer where the journal recorded it (it became a link) refuses the undo.
 * @throws UndoRefusedError naming the path
 */
async function openPlaces(workspace: Workspace, steps: UndoStep[]): Promise<StepPlace[]> {
  const places: StepPlace[] = []
  try {
    for (const step of steps) {
      const shown = displayName(step.path)
      const real = joinBytes(workspace.rootBytes, step.path)
      const folderReal = parentOf(real)
      const resolved = await workspace.resolve(workspace.relativeOf(folderReal)).catch(() => undefined)
      if (!resolved || !resolved.real.equals(folderReal)) {
        throw new UndoRefusedError(`Cannot undo: the folder of ${shown} is no longer where it was (a folder on the way became a link or a file). Nothing was changed.`)
      }
      const existing = resolved.missing.reduce((path) => parentOf(path), resolved.real)
      const name = real.subarray(real.lastIndexOf(0x2f) + 1)
      places.push({step, folder: await ConfinedFolder.open(workspace, existing, shown, 'write'), missingFolders: resolved.missing, name})
    }
    return places
  } catch (error) {
    await Promise.all(places.map((place) => place.folder.close()))
    throw error
  }
}

/** Runs `critical` holding the replace lock of every place whose folder exists, taken in path order. */
async function withLocks<T>(places: StepPlace[], critical: () => Promise<T>, index = 0): Promise<T> {
  if (index === places.length) return critical()
  const place = places[index]!
  if (place.missingFolders.length > 0) return withLocks(places, critical, index + 1)
  return withReplaceLock(place.folder, place.name, () => withLocks(places, critical, index + 1))
}

/** Why a file's state is not what the undo expects, as a phrase. */
function whyChanged(state: FileState, expected: FileDigest | null): string {
  if (state.kind === 'other') return `it is now ${state.what}`
  if (expected === null) return 'a file was put there since'
  if (state.kind === 'missing') return 'it was removed since'
  return state.mode !== expected.mode && isStateOf({...state, mode: expected.mode}, expected)
    ? `its mode changed since (now ${state.mode.toString(8)}, was ${expected.mode.toString(8)})`
    : 'its content changed since'
}

/** Gives `place` the content `content` with `mode` (a new file renamed over the path), owned as `owner`. */
async function writeBack(workspace: Workspace, place: StepPlace, content: Buffer, mode: number, owner?: {uid: number; gid: number}): Promise<void> {
  const folder = await reachFolder(workspace, place)
  const temporary = temporaryName()
  try {
    const handle = await open(folder.entry(temporary), NAMED_FILE_CREATE_FLAGS, 0o600)
    try {
      await handle.writeFile(content)
      if (owner) await handle.chown(owner.uid, owner.gid).catch(() => undefined)
      // After chown, which clears setuid and setgid bits, and past the umask that open applied.
      await handle.chmod(mode)
      await handle.sync()
    } finally {
      await handle.close()
    }
    await rename(folder.entry(temporary), folder.entry(place.name))
  } catch (error) {
    await unlink(folder.entry(temporary)).catch(() => undefined)
    throw error
  }
  await folder.handle.sync().catch(() => undefined)
}

/** Puts `place` in `state` (a file's content and mode, or nothing). */
async function putState(workspace: Workspace, place: StepPlace, state: {content: Buffer; mode: number} | null, owner?: {uid: number; gid: number}): Promise<void> {
  if (state === null) {
    // Nothing is there when a folder on the way is missing: `name` is not an entry of `folder` then.
    if (place.missingFolders.length > 0) return
    await unlink(place.folder.entry(place.name)).catch((error: NodeJS.ErrnoException) => {
      if (error.code !== 'ENOENT') throw error
    })
    await place.folder.handle.sync().catch(() => undefined)
    return
  }
  if ((state.mode & TYPE_BITS) === SYMLINK_TYPE_BITS) {
    await linkBack(workspace, place, state.content)
    return
  }
  await writeBack(workspace, place, state.content, state.mode & 0o7777, owner)
}

/** Opens (making them) the folders missing on the way to `place`. */
async function reachFolder(workspace: Workspace, place: StepPlace): Promise<ConfinedFolder> {
  if (place.missingFolders.length > 0) {
    place.folder = await openCreatingFolders(workspace, place.folder, place.missingFolders, displayName(place.step.path))
    place.missingFolders = []
  }
  return place.folder
}

/** Gives `place` back as a symbolic link to `target` (made under a temporary name, then renamed over the path). */
async function linkBack(workspace: Workspace, place: StepPlace, target: Buffer): Promise<void> {
  const folder = await reachFolder(workspace, place)
  const temporary = temporaryName()
  try {
    await symlink(target, folder.entry(temporary))
    await rename(folder.entry(temporary), folder.entry(place.name))
  } catch (error) {
    await unlink(folder.entry(temporary)).catch(() => undefined)
    throw error
  }
  await folder.handle.sync().catch(() => undefined)
}

/** What an undo did. */
export interface UndoResult {
  /** The id of the undo's own record (undo it to redo). */
  id: string
  /** The paths it changed, in the display form. */
  paths: string[]
}

/**
 * Refuses to write a protected path (DESIGN §4.9) the operator did not allow: a path the change
 * wrote while it was ordinary may be protected now (its folder became a repository, or a
 * core.hooksPath names it), and an undo must not put content there that runs outside ak when git
 * or another tool reads it. Judged on each place's folder as it is open now, with the folders the
 * undo would make.
 * @throws UndoRefusedError naming each protected path, the rule, and the flag that allows it
 */
function refuseProtectedPlaces(workspace: Workspace, places: StepPlace[], allowed: AllowedProtectedPaths): void {
  const problems: string[] = []
  const named: string[] = []
  for (const place of places) {
    let real = place.folder.realNow
    for (const name of [...place.missingFolders, place.name]) {
      real = joinBytes(real, name)
      if (!workspace.isInside(real)) break
      const relative = workspace.relativeOf(real)
      const protection = writeProtectionOf(real, relative)
      if (!protection || allowed.covers(relative)) continue
      const shown = displayName(place.step.path)
      problems.push(`${shown}: a protected path${protection.path === shown ? '' : ` (it lies in ${protection.path})`}: ${protection.rule.runBy}.`)
      named.push(shown)
      break
    }
  }
  if (problems.length === 0) return
  throw new UndoRefusedError(
    `Cannot undo: it would write ${problems.length === 1 ? 'a path that is' : 'paths that are'} protected now, whose content other programs run:\n` +
      `${problems.join('\n')}\nNothing was changed. Look at what the change held first (\`ak exec history\`); if you mean to undo it anyway, ` +
      `run the undo again with ${ALLOW_PROTECTED_FLAG} ${named.join(ALLOW_PROTECTED_SEPARATOR)}.`,
  )
}

/**
 * Carries out `plan`: takes the replace locks of its files, refuses protected paths `allowed` does
 * not cover, checks that each file holds what the plan expects, records the undo in the journal
 * (before touching a file), and puts each file back. A failure half-way puts back the files
 * already changed and forgets the record.
 * @param allowed the protected paths the operator allows the undo to write (`--allow-protected`)
 * @throws UndoRefusedError naming each protected path, or each file changed since and why (nothing is changed)
 */
export async function applyUndo(journal: Journal, workspace: Workspace, plan: UndoPlan, allowed: AllowedProtectedPaths = AllowedProtectedPaths.NONE): Promise<UndoResult> {
  const places = await openPlaces(workspace, plan.steps)
  try {
    return await withLocks(places, async () => {
      refuseProtectedPlaces(workspace, places, allowed)
      const states: FileState[] = []
      const problems: string[] = []
      for (const place of places) {
        const state = place.missingFolders.length > 0 ? ({kind: 'missing'} as const) : await readFileState(workspace, place.step.path)
        states.push(state)
        if (!isStateOf(state, place.step.expected)) problems.push(`${displayName(place.step.path)}: ${whyChanged(state, place.step.expected)}.`)
      }
      if (problems.length > 0) {
        throw new UndoRefusedError(
          `Cannot undo: ${problems.length === 1 ? 'a file was' : 'files were'} changed since by something else, and undoing would lose that work:\n` +
            `${problems.join('\n')}\nNothing was changed. Look at ${problems.length === 1 ? 'it' : 'them'}, and undo by hand if need be.`,
        )
      }
      const restored = await Promise.all(places.map((place) => (place.step.restore ? journal.readBlob(place.step.restore.sha256) : null)))
      const changes: FileChange[] = places.map((place, index) => {
        const state = states[index]!
        const before = state.kind === 'file' || state.kind === 'link' ? {content: state.content, mode: state.mode} : null
        const restore = place.step.restore
        const partner = place.step.movedWith && places.some((other) => other.step.path.equals(place.step.movedWith!))
        const operation = partner ? (restore ? 'moved-to' : 'moved-from') : before === null ? 'added' : restore === null ? 'deleted' : 'updated'
        return {
          path: place.step.path,
          operation,
          ...(partner ? {movedWith: place.step.movedWith} : {}),
          before,
          after: restore && digestOf(restored[index]!, restore.mode),
        }
      })
      const pending = await journal.begin('undo', changes, {undoes: [...plan.ids].reverse()})
      const done: number[] = []
      try {
        for (const [index, place] of places.entries()) {
          const state = states[index]!
          const owner = state.kind === 'file' ? {uid: state.info.uid, gid: state.info.gid} : undefined
          const restore = place.step.restore
          await putState(workspace, place, restore && {content: restored[index]!, mode: restore.mode}, owner)
          done.push(index)
        }
      } catch (error) {
        for (const index of done.reverse()) {
          const state = states[index]!
          await putState(workspace, places[index]!, state.kind === 'file' || state.kind === 'link' ? {content: state.content, mode: state.mode} : null).catch(() => undefined)
        }
        await pending.abandon().catch(() => undefined)
        throw error
      }
      await pending.commit().catch(() => undefined)
      return {id: pending.id, paths: places.map((place) => displayName(place.step.path))}
    })
  } finally {
    await Promise.all(places.map((place) => place.folder.close()))
  }
}
