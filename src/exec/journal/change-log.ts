/**
 * What the change engine (src/exec/files/) and the journal (src/exec/journal/) agree on: the
 * engine describes every file a change will touch, records it durably before touching any file,
 * and marks it done or abandoned afterwards. The journal keeps the content each file had before
 * (so a change can be undone, DESIGN §4.10), and its pending entries are what a crashed change
 * left half-applied (so the next server rolls it back before it serves).
 *
 * Where to find it: every tool call's `context.runtime.changeLog` (journal.ts's Journal, set up
 * by createExecRuntime from the `journal` option; with journaling off it still records pending
 * changes, and drops each at `commit`). At start, before serving,
 * `settleJournal` (runtime.ts, run by change-recovery.ts) marks applied each crashed change whose files are all as `after`
 * and forgets each whose files are all as `before`; the ones still in `pending()` afterwards
 * are half-applied, for the engine to roll back and then `abandon`.
 */

/** The file-type bits of a mode. */
export const TYPE_BITS = 0o170000
/** The file-type bits of a symbolic link, kept in a recorded mode so that a recorded link comes back as a link. */
export const SYMLINK_TYPE_BITS = 0o120000

/**
 * A file's permission bits (`mode & 0o7777`) and content; for a symbolic link, its mode with the
 * link's type bits (`0o120000 | permission bits`) and its target as the content.
 */
export interface FileContent {
  content: Buffer
  mode: number
}

/** A file's state after a change: the SHA-256 of its content (hex) and its permission bits. */
export interface FileDigest {
  sha256: string
  mode: number
}

/** What one change does to one path. A move is two changes: its source (after: null) and its destination. */
export interface FileChange {
  /** The path's real form relative to the workspace's real path, as bytes (names are bytes). */
  path: Buffer
  /** What the user sees happened to this path. */
  operation: 'added' | 'updated' | 'deleted' | 'moved-from' | 'moved-to'
  /** The other end of a move (the destination for `moved-from`, the source for `moved-to`). */
  movedWith?: Buffer
  /** The content and mode before the change; null when the path did not exist. */
  before: FileContent | null
  /** The content's digest and mode after the change; null when the path no longer exists. */
  after: FileDigest | null
}

/** A change recorded as pending: every file is as `before` or as `after`, or a crash interrupted it. */
export interface PendingChange {
  /** The entry's id, as `ak exec history` shows it. */
  readonly id: string
  readonly changes: readonly FileChange[]
  /** Marks the change as applied: from now on it is history. */
  commit(): Promise<void>
  /** Forgets the change: it was rolled back (or never started), every file is as `before`. */
  abandon(): Promise<void>
}

/**
 * A change recorded by `beginWritten`: written, and being flushed to disk. No file may be changed
 * before `flushed` resolves; if it rejects, abandon the change.
 */
export interface WrittenChange {
  change: PendingChange
  /** Resolves once the record and the content of every `before` are durable; rejects with the failed flush's system error (EIO…). */
  flushed: Promise<void>
}

/**
 * Where the change engine records changes. `begin` returns only once the entry and the content of
 * every `before` are durable (written and synced), so a crash after it cannot lose the record;
 * `beginWritten` returns once they are written (a crash of the process cannot lose them) and
 * flushes them meanwhile, so that the caller's own writes and flushes overlap with the record's.
 */
export interface ChangeLog {
  /**
   * Records a change about to be made by `tool` (e.g. "edit", "undo"). A change larger than the
   * journal's bound is still recorded (it is then the only one kept), so size never refuses it.
   * @param details for an undo, the ids of the changes it reverts (history shows them as undone)
   * @throws StateFolderError (an AkError) when the user's state folder cannot be used: the
   *   message says why and that nothing was changed
   */
  begin(tool: string, changes: FileChange[], details?: {undoes?: number[]}): Promise<PendingChange>
  /**
   * `begin`, returning as soon as the record is written: its flush to disk runs on, and the
   * caller waits for `flushed` before it changes any file.
   * @throws as `begin`
   */
  beginWritten(tool: string, changes: FileChange[], details?: {undoes?: number[]}): Promise<WrittenChange>
  /** Changes a crash left pending, oldest first (the next server rolls each back, then abandons it). */
  pending(): Promise<PendingChange[]>
  /**
   * Reads what recording the first change needs ahead of it (a journal's records, once per
   * process), while the server is idle, so that the first edit does not wait for it. Makes
   * nothing on disk. Never rejects.
   */
  prepare?(): Promise<void>
}
