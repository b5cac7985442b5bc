/**
 * `ak exec history`: the changes a workspace's journal holds, newest first, as a person reads them
 * and as JSON.
 */
import {displayName} from '../display-name.js'
import type {Workspace} from '../workspace.js'
import type {Journal} from './journal.js'
import {type JournalEntry, isOwnerAlive, keptBytes, pathOf, undoneIds} from './journal-entry.js'
import {settleCrashedChanges} from './recovery.js'

/** What became of a recorded change. */
export type ChangeState = 'applied' | 'undone' | 'in-progress' | 'interrupted'

/** One file of a change as history shows it. */
export interface HistoryFile {
  /** The path relative to the workspace, in the tools' display form. */
  path: string
  operation: JournalEntry['changes'][number]['operation']
  /** The other end of a move. */
  movedWith?: string
}

/** One change as history shows it. */
export interface HistoryChange {
  id: number
  /** When it was recorded, ISO 8601 UTC. */
  time: string
  tool: string
  state: ChangeState
  /** Bytes of content the journal keeps to undo it (the files' sizes before it). */
  bytes: number
  files: HistoryFile[]
  /** For an undo: the changes it reverted. */
  undoes?: number[]
  /** The undo that reverted it, while it stays reverted. */
  undoneBy?: number
}

/** What `ak exec history` prints. */
export interface History {
  workspace: string
  changes: HistoryChange[]
}

/**
 * The workspace's recorded changes, newest first. Changes a crash left pending are settled first
 * (recovery.ts), so a change that took effect is listed as applied; one cut short half-way stays
 * listed as interrupted until a server rolls it back.
 */
export async function readHistory(journal: Journal, workspace: Workspace): Promise<History> {
  await settleCrashedChanges(journal, workspace)
  const entries = await journal.entries()
  const undone = undoneIds(entries)
  const undoneBy = new Map<number, number>()
  for (const entry of entries) for (const id of entry.undoes ?? []) if (undone.has(id)) undoneBy.set(id, entry.id)
  const changes = entries.reverse().map((entry): HistoryChange => {
    const state: ChangeState =
      entry.state === 'pending' ? (isOwnerAlive(entry) ? 'in-progress' : 'interrupted') : undone.has(entry.id) ? 'undone' : 'applied'
    return {
      id: entry.id,
      time: entry.time,
      tool: entry.tool,
      state,
      bytes: keptBytes(entry),
      files: entry.changes.map((change) => ({
        path: displayName(pathOf(change)),
        operation: change.operation,
        ...(change.movedWith === undefined ? {} : {movedWith: displayName(Buffer.from(change.movedWith, 'base64'))}),
      })),
      ...(entry.undoes ? {undoes: entry.undoes} : {}),
      ...(undoneBy.has(entry.id) ? {undoneBy: undoneBy.get(entry.id)} : {}),
    }
  })
  return {workspace: workspace.root, changes}
}

/** A byte count for people: `512 B`, `3.1 KiB`, `12 MiB`. */
export function formatBytes(bytes: number): string {
  if (bytes < 1024) return `${bytes} B`
  const units = ['KiB', 'MiB', 'GiB']
  let value = bytes / 1024
  let unit = 0
  while (value >= 1024 && unit < units.length - 1) {
    value /= 1024
    unit++
  }
  return `${value < 10 ? value.toFixed(1) : Math.round(value)} ${units[unit]}`
}

/** How one file of a change reads: `updated a.txt`, `moved a.txt → b.txt`. */
export function describeFile(file: HistoryFile): string {
  if (file.operation === 'moved-to') return `moved ${file.movedWith ?? '?'} → ${file.path}`
  if (file.operation === 'moved-from') return ''
  return `${file.operation} ${file.path}`
}

/** The history as lines for a person: one line per change, newest first. */
export function formatHistory(history: History): string {
  if (history.changes.length === 0) return 'No changes recorded for this workspace.\n'
  const rows = history.changes.map((change) => {
    const when = change.time.replace('T', ' ').replace(/\.\d+Z$/, 'Z')
    const files = change.files.map(describeFile).filter(Boolean).join(', ')
    const state =
      change.state === 'undone'
        ? ` [undone by ${change.undoneBy}]`
        : change.state === 'in-progress'
          ? ' [being made now]'
          : change.state === 'interrupted'
            ? ' [cut short by a crash; a server on the workspace rolls it back]'
            : ''
    const tool = change.undoes ? `undo of ${change.undoes.join(', ')}` : change.tool
    return [String(change.id), when, tool, formatBytes(change.bytes), `${files}${state}`]
  })
  const widths = [0, 1, 2, 3].map((column) => Math.max(...rows.map((row) => row[column]!.length), ['ID', 'WHEN', 'TOOL', 'KEPT'][column]!.length))
  const line = (row: string[]) => row.map((cell, column) => (column < 4 ? cell.padEnd(widths[column]!) : cell)).join('  ').trimEnd()
  return `${[line(['ID', 'WHEN', 'TOOL', 'KEPT', 'FILES']), ...rows.map(line)].join('\n')}\n`
}
