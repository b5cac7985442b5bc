/**
 * Settling the changes a crash left pending (DESIGN §4.10), before a server serves or `ak exec
 * history`/`undo` reads the journal: a change whose files are all as it left them was applied
 * (only its mark was lost), and is marked applied; one whose files are all as before never took
 * effect, and is forgotten. One found half-applied (a multi-file change cut short) is left for the
 * change engine, which rolls it back.
 */
import type {Logger} from '../../log.js'
import type {Workspace} from '../workspace.js'
import type {ChangeLog, PendingChange} from './change-log.js'
import {isStateOf, readFileState} from './file-state.js'
import {digestOf} from './file-digest.js'

/** What settling found: how many changes were applied, never applied, or left half-applied. */
export interface SettledChanges {
  applied: number
  unapplied: number
  halfApplied: PendingChange[]
}

/**
 * Marks each change a crash left pending as applied or forgets it, as the module comment says.
 * Changes a live process is making are not touched (ChangeLog.pending leaves them out).
 * @returns what was found; the half-applied ones are still pending
 */
export async function settleCrashedChanges(changeLog: ChangeLog, workspace: Workspace, log?: Logger): Promise<SettledChanges> {
  const settled: SettledChanges = {applied: 0, unapplied: 0, halfApplied: []}
  for (const pending of await changeLog.pending()) {
    const states = await Promise.all(pending.changes.map((change) => readFileState(workspace, change.path).catch(() => undefined)))
    const isAfter = pending.changes.every((change, index) => states[index] && isStateOf(states[index], change.after))
    const isBefore = pending.changes.every((change, index) => states[index] && isStateOf(states[index], change.before && digestOf(change.before.content, change.before.mode)))
    if (isAfter) {
      await pending.commit()
      settled.applied++
    } else if (isBefore) {
      await pending.abandon()
      settled.unapplied++
    } else {
      settled.halfApplied.push(pending)
      log?.warn(`change ${pending.id} was cut short by a crash and is half-applied; it stays pending in the journal`)
    }
  }
  return settled
}
