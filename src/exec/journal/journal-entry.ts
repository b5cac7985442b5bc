/**
 * One record of a workspace's journal, as it is stored (a JSON file per change): which tool made
 * the change, when, which process (so a record left pending by a crash is told from one still in
 * progress), and for each file the digest and mode before and after. The content before lives in
 * the journal's blobs, named by its SHA-256.
 */
import {type LockHolder, holderState, parseHolder, thisHolder} from '../files/lock-holder.js'
import {JOURNAL_PENDING_STALE_MS} from '../limits.js'
import type {FileChange, FileDigest} from './change-log.js'

/**
 * The format of the records this code writes. Version 2 records are named by their state
 * (`<id>.pending.json`, `<id>.json`: journal.ts), their text keeping the state they were written
 * with; an ak that reads only version 1 (state in the text) leaves them alone rather than take an
 * applied change for one a crash cut short.
 */
export const JOURNAL_ENTRY_VERSION = 2
/** The record formats this code reads: version 1 as an older ak wrote them, and its own. */
const READABLE_VERSIONS: ReadonlySet<unknown> = new Set([1, JOURNAL_ENTRY_VERSION])

/** A file's content as the journal keeps it: its blob's name (SHA-256, hex), mode and size in bytes. */
export interface StoredContent {
  sha256: string
  mode: number
  size: number
}

/** One file of a stored change (see FileChange), with the path as base64 of its bytes. */
export interface StoredChange {
  path: string
  operation: FileChange['operation']
  movedWith?: string
  before: StoredContent | null
  after: FileDigest | null
}

/** A stored change. */
export interface JournalEntry {
  version: 1 | typeof JOURNAL_ENTRY_VERSION
  /** Ids grow with each change recorded in the journal (1, 2, …). */
  id: number
  /** The tool that made the change (`edit`, `undo`). */
  tool: string
  /** When the change was recorded, ISO 8601 in UTC. */
  time: string
  /** `pending` from just before the change until it is applied; `committed` after. */
  state: 'pending' | 'committed'
  /** The process that made the change, as lock-holder.ts names it (pid, boot, PID namespace, start time). */
  holder: LockHolder
  /** For an undo: the ids of the changes it reverted. */
  undoes?: number[]
  changes: StoredChange[]
}

/**
 * Whether the process that recorded `entry` may still be making it. A holder that cannot be
 * checked from here (another PID namespace) counts as alive until the record is
 * JOURNAL_PENDING_STALE_MS old; one of another boot is gone (a state folder belongs to one machine).
 */
export function isOwnerAlive(entry: Pick<JournalEntry, 'holder' | 'time'>, now = Date.now()): boolean {
  const state = holderState(entry.holder)
  if (state !== 'unknown') return state === 'running'
  const here = thisHolder().namespace
  if (here && entry.holder.namespace && here.bootId !== entry.holder.namespace.bootId) return false
  return now - Date.parse(entry.time) < JOURNAL_PENDING_STALE_MS
}

const SHA256_HEX = /^[0-9a-f]{64}$/
const OPERATIONS = new Set<string>(['added', 'updated', 'deleted', 'moved-from', 'moved-to'])

/** A recorded mode: permission bits, with the type bits of a symbolic link for a link. */
function isMode(value: unknown): value is number {
  if (!Number.isInteger(value) || (value as number) < 0) return false
  const type = (value as number) & 0o170000
  return (value as number) <= 0o177777 && (type === 0 || type === 0o120000)
}

function isDigest(value: unknown): value is FileDigest {
  const digest = value as FileDigest
  return typeof digest === 'object' && digest !== null && SHA256_HEX.test(String(digest.sha256)) && isMode(digest.mode)
}

function isStoredContent(value: unknown): value is StoredContent {
  return isDigest(value) && Number.isSafeInteger((value as StoredContent).size) && (value as StoredContent).size >= 0
}

function isStoredChange(value: unknown): value is StoredChange {
  const change = value as StoredChange
  return (
    typeof change === 'object' &&
    change !== null &&
    typeof change.path === 'string' &&
    change.path !== '' &&
    OPERATIONS.has(change.operation) &&
    (change.movedWith === undefined || typeof change.movedWith === 'string') &&
    (change.before === null || isStoredContent(change.before)) &&
    (change.after === null || isDigest(change.after))
  )
}

/**
 * Reads a stored record.
 * @returns the entry, or undefined when the text is not a record of a version this code reads
 *   (damaged, or written by a later version of ak)
 */
export function parseJournalEntry(text: string): JournalEntry | undefined {
  let value: JournalEntry
  try {
    value = JSON.parse(text) as JournalEntry
  } catch {
    return undefined
  }
  const isValid =
    typeof value === 'object' &&
    value !== null &&
    READABLE_VERSIONS.has(value.version) &&
    Number.isSafeInteger(value.id) &&
    value.id > 0 &&
    typeof value.tool === 'string' &&
    typeof value.time === 'string' &&
    (value.state === 'pending' || value.state === 'committed') &&
    typeof value.holder === 'object' &&
    value.holder !== null &&
    parseHolder([String(value.holder.pid)]) !== undefined &&
    (value.undoes === undefined || (Array.isArray(value.undoes) && value.undoes.every((id) => Number.isSafeInteger(id)))) &&
    Array.isArray(value.changes) &&
    value.changes.every(isStoredChange)
  return isValid ? value : undefined
}

/** The path of a stored change as bytes. */
export function pathOf(change: Pick<StoredChange, 'path'>): Buffer {
  return Buffer.from(change.path, 'base64')
}

/** Bytes of content a record keeps (the sizes of its files before the change). */
export function keptBytes(entry: JournalEntry): number {
  return entry.changes.reduce((sum, change) => sum + (change.before?.size ?? 0), 0)
}

/**
 * Which changes are in effect, given every record oldest first: a change is in effect until an
 * undo reverts it; an undo that is itself reverted puts back what it reverted.
 * @returns the ids of the records that an undo reverted and that stay reverted
 */
export function undoneIds(entries: readonly JournalEntry[]): Set<number> {
  const undone = new Set<number>()
  // For each undo, what it reverted and whether each was already reverted before it.
  const reverted = new Map<number, Array<[number, boolean]>>()
  for (const entry of entries) {
    if (!entry.undoes) continue
    const previous: Array<[number, boolean]> = []
    for (const id of entry.undoes) {
      previous.push([id, undone.has(id)])
      const revertedByIt = reverted.get(id)
      if (revertedByIt) {
        // Reverting an undo puts back what it had reverted.
        for (const [restored, wasUndone] of revertedByIt) {
          if (!entry.undoes.includes(restored)) {
            if (wasUndone) undone.add(restored)
            else undone.delete(restored)
          }
        }
      }
      undone.add(id)
    }
    reverted.set(entry.id, previous)
  }
  return undone
}
