/**
 * A workspace's journal of changes (DESIGN §4.10): the store behind `ChangeLog`. It lives in the
 * user's private state folder (state-folder.ts), one folder per workspace named by the SHA-256 of
 * the workspace's real path:
 *
 *     <state folder>/journals/<32 hex digits>/
 *       workspace          the workspace's real path (for people looking in)
 *       entries/<id>.json  the record of an applied change (journal-entry.ts)
 *       pending/<id>.json  the record of a change in progress, or one a crash cut short
 *       blobs/<sha256>     each distinct content a file had before a change, once
 *       last-id            the last id given, so ids are not given twice when old records go
 *       layout             "3": records of changes in progress are kept in pending/
 *
 * A change is recorded in `pending/` before any file is touched, and its record is moved to
 * `entries/` once the change is applied: the folder a record is in tells its state (the `state`
 * its text holds is the one it was written with). So the records a crash left are found by
 * listing `pending/`, a server starts without reading or listing the records of every change ever
 * made, and marking a change applied is one rename. A journal of an older layout (every record in
 * `entries/`, its state in its text or in a `.pending.json` name) is read once, its pending
 * records moved, and `layout` written.
 *
 * Folders are 0700, files 0600, every name is opened without following a link (through the
 * folder's descriptor, checked as the workspace's folders are), and a file appears whole under
 * its name (written to a temporary file, renamed; a record and its contents are flushed to disk
 * before the change they record touches a file). Several processes share a journal (the
 * servers on a workspace and `ak exec undo`): giving an id, dropping old records and removing
 * blobs no record needs happen under one lock (replace-lock.ts's), while content is written
 * before it is taken. Between changes, each process keeps a tally of the records and blobs
 * (journal-tally.ts), so that recording a change reads no other record while no other process
 * recorded one.
 *
 * The journal is bounded by `maxBytes` (blobs and records): before a change is recorded, the
 * oldest applied changes go until the new one fits; the newest change is kept whatever its size,
 * so the journal holds at most `maxBytes` plus one change. Records of changes in progress (or
 * left by a crash) are never dropped. With journaling off (`keep` false), a record lives only
 * while its change is made, so that a crash can still be repaired, and goes with its content once
 * the change is applied.
 */
import {constants, openSync, readdirSync, renameSync, unlinkSync, writeSync} from 'node:fs'
import {lstat} from 'node:fs/promises'
import path from 'node:path'
import {setImmediate as setImmediatePromise} from 'node:timers/promises'

import {NAMED_FILE_READ_FLAGS, type NamedFile, createNamedFile, createNamedFileSync, readNamedFile, readNamedFileSync} from '../../named-file.js'
import {ConfinedFolder} from '../files/confined-open.js'
import {removeStaleTemporaries} from '../files/atomic-write.js'
import {closeQuietly, lstatQuietly, removeQuietly} from '../files/quiet-calls.js'
import {fsyncDescriptor} from '../files/whole-content.js'
import {thisHolder} from '../files/lock-holder.js'
import {temporaryName, withReplaceLock} from '../files/replace-lock.js'
import {describeSystemError, errorCode, isSystemError} from '../fs-errors.js'
import {JOURNAL_DEFAULT_MAX_BYTES, JOURNAL_ENTRY_MAX_BYTES} from '../limits.js'
import {Workspace} from '../workspace.js'
import type {ChangeLog, FileChange, PendingChange, WrittenChange} from './change-log.js'
import {JOURNAL_ENTRY_VERSION, type JournalEntry, type StoredChange, isOwnerAlive, parseJournalEntry, pathOf} from './journal-entry.js'
import {RECORDED_MODE_BITS, sha256} from './file-digest.js'
import {JournalTally, type RoomMade, type TalliedRecord} from './journal-tally.js'
import {PRIVATE_FILE_MODE, StateFolderError, defaultStateFolder, openPrivateFolder, shownPath} from './state-folder.js'

/** Where a journal is kept and how much it may hold, as `createAgentExec` and `ak exec serve` take it. */
export interface JournalOptions {
  /** The state folder holding the journals of every workspace; default `$XDG_STATE_HOME/ak`, else `~/.local/state/ak`. */
  folder?: string
  /** Bytes the journal of one workspace keeps at most, besides its newest change; default JOURNAL_DEFAULT_MAX_BYTES. */
  maxBytes?: number
}

/** A journal's settings: where and how big, or `false` to keep no history (changes are still made crash-safe). */
export type JournalSetting = JournalOptions | false

/** The journal's folder below the state folder. */
const JOURNALS = 'journals'
const ENTRIES = 'entries'
const PENDING = 'pending'
const BLOBS = 'blobs'
const LAST_ID = 'last-id'
const LAYOUT = 'layout'
/** What `layout` holds in a journal whose records of changes in progress are kept in `pending/`. */
const PENDING_FOLDER_LAYOUT = '3'
/** The name whose edit lock guards ids, dropping and blob removal (the lock file is `.ak-edit-lock-…` beside it). */
const LOCK_SUBJECT = Buffer.from('journal')
const ENTRY_NAME = /^([1-9]\d{0,15})\.json$/
/** How an older layout (2) named a pending record in `entries/`. */
const PENDING_NAME = /^([1-9]\d{0,15})\.pending\.json$/
const BLOB_NAME = /^[0-9a-f]{64}$/
/** Records read from disk in a row before other work gets a turn (a first read of a long journal). */
const READS_BETWEEN_YIELDS = 256

/** The name of a workspace's journal folder: 32 hex digits of the SHA-256 of its real path. */
export function journalName(workspaceRoot: string): string {
  return sha256(Buffer.from(workspaceRoot)).slice(0, 32)
}

/** The open folders of a journal. */
interface OpenFolders {
  root: ConfinedFolder
  entries: ConfinedFolder
  pending: ConfinedFolder
  blobs: ConfinedFolder
}

/** A record as read, with the bytes its file takes. */
interface ReadEntry {
  entry: JournalEntry
  bytes: number
}

/**
 * The journal of one workspace. Nothing is made on disk until the first change is recorded;
 * reading a journal that does not exist finds no changes.
 */
export class Journal implements ChangeLog {
  readonly folder: string
  readonly maxBytes: number
  readonly keep: boolean
  private opened: Promise<OpenFolders> | undefined
  /** Applied records read, by file name (see readEntries). */
  private readonly committedEntries = new Map<string, ReadEntry>()
  /** Blob sizes seen (a blob's name is its content's digest, so its size never changes). */
  private readonly blobSizes = new Map<string, number>()
  /** What this process knows of the records and blobs, between changes (journal-tally.ts). */
  private tally: JournalTally | undefined
  /** How many times the records were read in full to record a change (for tests and benches). */
  fullReads = 0

  /**
   * @param workspaceRoot the workspace's real path (Workspace.root)
   * @param setting where and how big (JournalOptions), or false to keep no history
   */
  constructor(
    readonly workspaceRoot: string,
    setting: JournalSetting = {},
    env: NodeJS.ProcessEnv = process.env,
  ) {
    const options = setting === false ? {} : setting
    this.folder = path.resolve(options.folder ?? defaultStateFolder(env))
    this.keep = setting !== false
    this.maxBytes = setting === false ? 0 : (options.maxBytes ?? JOURNAL_DEFAULT_MAX_BYTES)
  }

  /** The journal's folder for this workspace (it may not exist yet). */
  get path(): string {
    return path.join(this.folder, JOURNALS, journalName(this.workspaceRoot))
  }

  /**
   * Opens the journal's folders, making them (private) when `create`.
   * @returns undefined when the journal does not exist and `create` is false
   * @throws StateFolderError when the state folder fails the checks of state-folder.ts
   */
  private async open(create: boolean): Promise<OpenFolders | undefined> {
    if (this.opened) return this.opened
    const real = await openPrivateFolder(this.folder, [JOURNALS, journalName(this.workspaceRoot)], {create})
    if (real === undefined) return undefined
    if (!create && (await lstat(path.join(real, ENTRIES)).catch(() => undefined)) === undefined) return undefined
    const opening = (async () => {
      // The journal's folder is its own confinement root: its entries are reached through verified descriptors.
      const confinement = await Workspace.open(real)
      const root = await ConfinedFolder.open(confinement, confinement.rootBytes, 'the journal', 'write')
      try {
        const sub = async (name: string) => {
          await openPrivateFolder(real, [name], {create: true})
          return ConfinedFolder.open(confinement, root.childReal(Buffer.from(name)), 'the journal', 'write', root.entry(Buffer.from(name)))
        }
        const folders = {root, entries: await sub(ENTRIES), pending: await sub(PENDING), blobs: await sub(BLOBS)}
        await removeStaleTemporaries(folders.root)
        await removeStaleTemporaries(folders.pending)
        await removeStaleTemporaries(folders.blobs)
        if ((await lstat(root.entry(Buffer.from('workspace'))).catch(() => undefined)) === undefined) {
          await writeFileAtomically(root, Buffer.from('workspace'), Buffer.from(`${this.workspaceRoot}\n`), undefined)
        }
        if (!hasPendingFolderLayout(folders)) await withReplaceLock(folders.root, LOCK_SUBJECT, () => this.movePendingRecords(folders))
        return folders
      } catch (error) {
        await root.close()
        throw error
      }
    })()
    this.opened = opening
    opening.catch(() => {
      if (this.opened === opening) this.opened = undefined
    })
    return opening
  }

  /**
   * Opens the journal to record a change.
   * @throws StateFolderError saying why the state folder cannot be used and what to do
   */
  private async openForWriting(): Promise<OpenFolders> {
    try {
      return (await this.open(true)) as OpenFolders
    } catch (error) {
      if (error instanceof StateFolderError) {
        throw new StateFolderError(
          `ak records every change to the workspace's files before making it, so that it can be undone, and cannot record it: ${error.message} Nothing was changed.`,
        )
      }
      const why = isSystemError(error) ? describeSystemError(error) : (error as Error).message
      throw new StateFolderError(
        `ak records every change to the workspace's files before making it, so that it can be undone, and cannot write its journal in ${shownPath(this.folder)} ` +
          `(${why}). Make that folder writable, or set XDG_STATE_HOME to a folder that is. Nothing was changed.`,
      )
    }
  }

  async begin(tool: string, changes: FileChange[], details: {undoes?: number[]} = {}): Promise<PendingChange> {
    const {change, flushed} = await this.beginWritten(tool, changes, details)
    try {
      await flushed
    } catch (error) {
      await change.abandon().catch(() => undefined)
      throw error
    }
    return change
  }

  async beginWritten(tool: string, changes: FileChange[], details: {undoes?: number[]} = {}): Promise<WrittenChange> {
    const folders = await this.openForWriting()
    const stored: StoredChange[] = changes.map((change) => ({
      path: change.path.toString('base64'),
      operation: change.operation,
      ...(change.movedWith ? {movedWith: change.movedWith.toString('base64')} : {}),
      before: change.before ? {sha256: sha256(change.before.content), mode: change.before.mode & RECORDED_MODE_BITS, size: change.before.content.length} : null,
      after: change.after ? {sha256: change.after.sha256, mode: change.after.mode & RECORDED_MODE_BITS} : null,
    }))
    const contents = new Map<string, Buffer>()
    changes.forEach((change, index) => {
      if (change.before) contents.set(stored[index]!.before!.sha256, change.before.content)
    })
    // Each file written below is flushed to disk by one of these, all at once at the end.
    const flushes = new Flushes()
    try {
      // Written before the lock is taken; written again under it if a concurrent clean-up removed one meanwhile.
      for (const [digest, content] of contents) await this.writeBlob(folders, digest, content, flushes)
      const entry = await withReplaceLock(folders.root, LOCK_SUBJECT, async () => {
        const tally = await this.currentTally(folders)
        const id = tally.nextId()
        const record: JournalEntry = {
          version: JOURNAL_ENTRY_VERSION,
          id,
          tool,
          time: new Date().toISOString(),
          state: 'pending',
          holder: thisHolder(),
          ...(details.undoes ? {undoes: details.undoes} : {}),
          changes: stored,
        }
        const text = Buffer.from(JSON.stringify(record))
        const needed = new Map([...contents].map(([digest, content]) => [digest, content.length]))
        const bytes = text.length
        this.remove(folders, tally.makeRoom(needed, bytes, this.keep ? this.maxBytes : Number.POSITIVE_INFINITY))
        for (const [digest, content] of contents) await this.writeBlob(folders, digest, content, flushes)
        await writeFileAtomically(folders.pending, entryName(id), text, flushes)
        writeLastId(folders, id)
        tally.add(id, {bytes, digests: [...contents.keys()], isApplied: false}, needed)
        return record
      })
      const flushed = flushes.run()
      // Awaited by the caller before it changes a file; a failure is the caller's to report.
      flushed.catch(() => undefined)
      return {change: this.pendingChange(folders, entry, changes), flushed}
    } catch (error) {
      flushes.drop()
      throw error
    }
  }

  async prepare(): Promise<void> {
    try {
      const folders = await this.open(false)
      if (folders && this.keep && !this.tally) await withReplaceLock(folders.root, LOCK_SUBJECT, () => this.currentTally(folders))
    } catch {
      // The first change reads them itself, and reports what fails.
    }
  }

  async pending(): Promise<PendingChange[]> {
    const folders = await this.open(false)
    if (!folders) return []
    const crashed = (await this.readEntries(folders, {pendingOnly: true})).filter(({entry}) => entry.state === 'pending' && !isOwnerAlive(entry))
    const result: PendingChange[] = []
    for (const {entry} of crashed) {
      const changes: FileChange[] = []
      for (const change of entry.changes) {
        changes.push({
          path: pathOf(change),
          operation: change.operation,
          ...(change.movedWith === undefined ? {} : {movedWith: Buffer.from(change.movedWith, 'base64')}),
          before: change.before ? {content: await this.readBlob(change.before.sha256), mode: change.before.mode} : null,
          after: change.after,
        })
      }
      result.push(this.pendingChange(folders, entry, changes))
    }
    return result
  }

  /** Every record of the journal, oldest first (none when it does not exist). */
  async entries(): Promise<JournalEntry[]> {
    const folders = await this.open(false)
    if (!folders) return []
    return (await this.readEntries(folders)).map(({entry}) => entry)
  }

  /** Bytes the journal takes: its blobs and records. */
  async size(): Promise<number> {
    const folders = await this.open(false)
    if (!folders) return 0
    const entries = await this.readEntries(folders)
    const blobs = await this.blobSizesOf(folders)
    return entries.reduce((sum, {bytes}) => sum + bytes, 0) + [...blobs.values()].reduce((sum, size) => sum + size, 0)
  }

  /**
   * The content kept under `digest`, checked against it.
   * @throws StateFolderError when it is missing or damaged
   */
  async readBlob(digest: string): Promise<Buffer> {
    const folders = await this.open(false)
    const found = folders ? await readNamedFile(folders.blobs.entry(Buffer.from(digest)), Number.MAX_SAFE_INTEGER) : {kind: 'missing' as const}
    if (found.kind !== 'file' || sha256(found.bytes) !== digest) {
      throw new StateFolderError(`The journal in ${shownPath(this.path)} lost the content ${digest.slice(0, 12)}… (it is ${found.kind === 'file' ? 'damaged' : 'missing'}); that change cannot be undone.`)
    }
    return found.bytes
  }

  /** Closes the journal's folders. */
  async close(): Promise<void> {
    const opened = this.opened
    this.opened = undefined
    const folders = await opened?.catch(() => undefined)
    if (!folders) return
    await Promise.all([folders.root.close(), folders.entries.close(), folders.pending.close(), folders.blobs.close()])
  }

  private pendingChange(folders: OpenFolders, entry: JournalEntry, changes: FileChange[]): PendingChange {
    let settled = false
    const settle = async (commit: boolean) => {
      if (settled) return
      settled = true
      if (commit && this.keep) {
        // Not synced: a commit lost in a crash is found again by recovery (every file as after).
        try {
          renameSync(folders.pending.entry(entryName(entry.id)), folders.entries.entry(entryName(entry.id)))
        } catch (error) {
          // Gone meanwhile (removed by hand): recorded again, as applied, unless it is applied already.
          if (errorCode(error) !== 'ENOENT') throw error
          if (!lstatQuietly(folders.entries.entry(entryName(entry.id)))) {
            await writeFileAtomically(folders.entries, entryName(entry.id), Buffer.from(JSON.stringify({...entry, state: 'committed'})), undefined)
          }
        }
        this.tally?.commit(entry.id)
        return
      }
      try {
        unlinkSync(folders.pending.entry(entryName(entry.id)))
      } catch (error) {
        if (errorCode(error) !== 'ENOENT') throw error
      }
      this.tally?.forget(entry.id)
      if (!this.keep) {
        await withReplaceLock(folders.root, LOCK_SUBJECT, async () => {
          this.remove(folders, (await this.currentTally(folders)).makeRoom(new Map(), 0, Number.POSITIVE_INFINITY))
        })
      }
    }
    return {id: String(entry.id), changes, commit: () => settle(true), abandon: () => settle(false)}
  }

  /** The last id given, as `last-id` says (0 when it says nothing). */
  private async lastId(folders: OpenFolders): Promise<number> {
    const found = readSmallFile(folders.root.entry(Buffer.from(LAST_ID)), 32)
    const value = found?.kind === 'file' ? Number(found.bytes.toString('latin1').trim()) : 0
    return Number.isSafeInteger(value) && value > 0 ? value : 0
  }

  /**
   * Every readable record, oldest first (with `pendingOnly`, only those in `pending/`: changes
   * in progress or cut short); damaged ones are left out, and so is a pending record whose applied
   * one is in `entries/` too (it is removed). An applied record never changes (ids are not given
   * twice), so each is read once per process and then taken from `committedEntries`: reading a
   * journal of thousands of changes again costs a folder listing. Records are read with
   * synchronous calls, yielding to other work every READS_BETWEEN_YIELDS.
   */
  private async readEntries(folders: OpenFolders, {pendingOnly = false} = {}): Promise<ReadEntry[]> {
    const entries: ReadEntry[] = []
    const applied = pendingOnly ? undefined : new Set(readdirSync(folders.entries.self))
    let reads = 0
    const read = async (folder: ConfinedFolder, name: string, isPending: boolean): Promise<ReadEntry | undefined> => {
      if (++reads % READS_BETWEEN_YIELDS === 0) await setImmediatePromise()
      const found = readSmallFile(folder.entry(Buffer.from(name)), JOURNAL_ENTRY_MAX_BYTES)
      if (found?.kind !== 'file' || found.isCut) return undefined
      const entry = parseJournalEntry(found.bytes.toString('utf8'))
      if (!entry || entryName(entry.id).toString() !== name) return undefined
      // The folder tells the state (see the module comment).
      entry.state = isPending ? 'pending' : 'committed'
      return {entry, bytes: found.size}
    }
    for (const name of readdirSync(folders.pending.self)) {
      if (!ENTRY_NAME.test(name)) continue
      if (applied ? applied.has(name) : lstatQuietly(folders.entries.entry(Buffer.from(name)))) {
        removeQuietly(folders.pending.entry(Buffer.from(name)))
        continue
      }
      const found = await read(folders.pending, name, true)
      if (found) entries.push(found)
    }
    if (applied) {
      for (const name of this.committedEntries.keys()) if (!applied.has(name)) this.committedEntries.delete(name)
      for (const name of applied) {
        if (!ENTRY_NAME.test(name)) continue
        const found = this.committedEntries.get(name) ?? (await read(folders.entries, name, false))
        if (!found) continue
        this.committedEntries.set(name, found)
        entries.push(found)
      }
    }
    return entries.sort((a, b) => a.entry.id - b.entry.id)
  }

  /**
   * Under the journal's lock, gives a journal of an older layout (every record in `entries/`, a
   * pending one told by its text, or by a `<id>.pending.json` name) the current one: each record
   * of a change in progress or cut short is moved to `pending/`, then `layout` is written (see the
   * module comment). Read once per journal.
   */
  private async movePendingRecords(folders: OpenFolders): Promise<void> {
    if (hasPendingFolderLayout(folders)) return
    // Layout 2 told a pending record by its name alone; before it, the text told.
    const isNamedLayout = readSmallFile(folders.root.entry(Buffer.from(LAYOUT)), 32)?.kind === 'file'
    const names = new Set(readdirSync(folders.entries.self))
    for (const name of names) {
      const named = PENDING_NAME.exec(name)
      const isApplied = ENTRY_NAME.test(name)
      if (!named && (!isApplied || isNamedLayout)) continue
      const found = readSmallFile(folders.entries.entry(Buffer.from(name)), JOURNAL_ENTRY_MAX_BYTES)
      const entry = found?.kind === 'file' && !found.isCut ? parseJournalEntry(found.bytes.toString('utf8')) : undefined
      if (!entry || (isApplied && entry.state !== 'pending')) continue
      if (named && names.has(`${named[1]}.json`)) {
        removeQuietly(folders.entries.entry(Buffer.from(name)))
        continue
      }
      this.committedEntries.delete(name)
      renameSync(folders.entries.entry(Buffer.from(name)), folders.pending.entry(entryName(entry.id)))
    }
    await writeFileAtomically(folders.root, Buffer.from(LAYOUT), Buffer.from(`${PENDING_FOLDER_LAYOUT}\n`), undefined)
  }

  /** The size of every blob, by digest. */
  private async blobSizesOf(folders: OpenFolders): Promise<Map<string, number>> {
    const sizes = new Map<string, number>()
    for (const name of readdirSync(folders.blobs.self)) {
      if (!BLOB_NAME.test(name)) continue
      let size = this.blobSizes.get(name)
      if (size === undefined) {
        const info = lstatQuietly(folders.blobs.entry(Buffer.from(name)))
        if (!info?.isFile()) continue
        size = info.size
        this.blobSizes.set(name, size)
      }
      sizes.set(name, size)
    }
    return sizes
  }

  /**
   * Under the journal's lock: the tally of the journal's records and blobs (journal-tally.ts),
   * read again in full when another process added a record since (`last-id` moved), a record
   * is already there under the next id (a crash came between a record and its `last-id`), or it
   * is time to.
   */
  private async currentTally(folders: OpenFolders): Promise<JournalTally> {
    const lastId = await this.lastId(folders)
    const known = this.tally
    if (known && !known.isStale(lastId)) {
      const next = known.nextId()
      if (!lstatQuietly(folders.entries.entry(entryName(next))) && !lstatQuietly(folders.pending.entry(entryName(next)))) return known
    }
    this.fullReads++
    const records = (await this.readEntries(folders)).map(({entry, bytes}): [number, TalliedRecord] => [
      entry.id,
      {
        bytes,
        digests: entry.changes.flatMap((change) => (change.before ? [change.before.sha256] : [])),
        isApplied: entry.state === 'committed',
      },
    ])
    this.tally = new JournalTally(lastId, records, await this.blobSizesOf(folders))
    return this.tally
  }

  /** Under the journal's lock: removes the records and blobs the tally decided to drop. */
  private remove(folders: OpenFolders, room: RoomMade): void {
    for (const id of room.records) {
      this.committedEntries.delete(entryName(id).toString())
      removeQuietly(folders.entries.entry(entryName(id)))
    }
    for (const digest of room.blobs) this.removeBlob(folders, digest)
  }

  private removeBlob(folders: OpenFolders, digest: string): void {
    this.blobSizes.delete(digest)
    removeQuietly(folders.blobs.entry(Buffer.from(digest)))
  }

  /**
   * Writes the blob `digest` unless a file of the right size is already there; either way it is
   * flushed to disk when `flushes` run.
   */
  private async writeBlob(folders: OpenFolders, digest: string, content: Buffer, flushes: Flushes): Promise<void> {
    const name = Buffer.from(digest)
    const info = lstatQuietly(folders.blobs.entry(name))
    if (info?.isFile() && info.size === content.length) {
      // Written by another change, maybe not flushed yet: flushed again (at once when it was).
      flushes.flushNamed(folders.blobs, name)
      return
    }
    await writeFileAtomically(folders.blobs, name, content, flushes)
    this.blobSizes.set(digest, content.length)
  }
}

/** The file name of a change's record once it is applied. */
function entryName(id: number): Buffer {
  return Buffer.from(`${id}.json`)
}

/**
 * Writes `last-id` in place (created if missing): the journal's only file not written whole and
 * renamed, since it is read and written under the journal's lock only, and a number of a few
 * bytes is written to the disk in one piece. Not flushed: after a crash, the records' own ids
 * count too.
 */
function writeLastId(folders: OpenFolders, id: number): void {
  const fd = openSync(folders.root.entry(Buffer.from(LAST_ID)), constants.O_WRONLY | constants.O_CREAT | constants.O_NOFOLLOW | constants.O_NONBLOCK, PRIVATE_FILE_MODE)
  try {
    // Ids only grow, so the new number covers the old one whole.
    writeSync(fd, `${id}\n`, 0)
  } finally {
    closeQuietly(fd)
  }
}

/** Whether the journal keeps its records of changes in progress in `pending/` (its `layout` says so). */
function hasPendingFolderLayout(folders: OpenFolders): boolean {
  const found = readSmallFile(folders.root.entry(Buffer.from(LAYOUT)), 32)
  return found?.kind === 'file' && found.bytes.toString('latin1').trim() === PENDING_FOLDER_LAYOUT
}

/**
 * Content up to this many bytes (records, `last-id`, small blobs) is written and read with
 * synchronous calls on the main thread: each takes microseconds, less than a round trip to the
 * thread pool. Larger content, and every flush to disk, goes through the thread pool.
 */
const SMALL_FILE_BYTES = 64 * 1024

/** `readNamedFileSync` of a journal file, undefined when it cannot be read (the caller skips it). */
function readSmallFile(entry: Buffer, maxBytes: number): NamedFile | undefined {
  try {
    return readNamedFileSync(entry, maxBytes)
  } catch {
    return undefined
  }
}

/**
 * The flushes to disk a change's record waits for: files written (and their folders) are flushed
 * together once everything is written, so that their waits on the disk overlap.
 */
class Flushes {
  private readonly descriptors: number[] = []
  private readonly folders = new Set<ConfinedFolder>()
  private readonly named: Array<{folder: ConfinedFolder; name: Buffer}> = []

  /** Takes over `fd` (a file just written) to flush and close it, and its folder (for its new name). */
  add(fd: number, folder: ConfinedFolder): void {
    this.descriptors.push(fd)
    this.folders.add(folder)
  }

  /** Flushes `folder` (a new name in it). */
  addFolder(folder: ConfinedFolder): void {
    this.folders.add(folder)
  }

  /** Flushes the file `name` of `folder` too (one written earlier, perhaps by another change). */
  flushNamed(folder: ConfinedFolder, name: Buffer): void {
    this.named.push({folder, name})
    this.folders.add(folder)
  }

  /**
   * Flushes every file and folder at once, then closes the descriptors.
   * @throws the system error of a failed flush (EIO…); a folder that refuses fsync counts as flushed
   */
  async run(): Promise<void> {
    const descriptors = this.descriptors.splice(0)
    try {
      await Promise.all([
        ...descriptors.map((fd) => fsyncDescriptor(fd)),
        ...this.named.map(({folder, name}) => flushByName(folder.entry(name))),
        // Some file systems refuse fsync on a folder; the renames are still atomic.
        ...[...this.folders].map((folder) => folder.handle.sync().catch(() => undefined)),
      ])
    } finally {
      for (const fd of descriptors) closeQuietly(fd)
    }
  }

  /** Closes every descriptor without flushing (the change was not recorded). */
  drop(): void {
    for (const fd of this.descriptors.splice(0)) closeQuietly(fd)
  }
}

/** Flushes the regular file at `entry` (opened without following a link); nothing there, nothing to flush. */
async function flushByName(entry: Buffer): Promise<void> {
  let fd: number
  try {
    fd = openSync(entry, NAMED_FILE_READ_FLAGS)
  } catch (error) {
    if (errorCode(error) === 'ENOENT') return
    throw error
  }
  try {
    await fsyncDescriptor(fd)
  } finally {
    closeQuietly(fd)
  }
}

/**
 * Gives `name` in `folder` the content `data` in one step: a new private temporary file (never
 * following or reusing anything there), renamed over it. With `flushes`, the file (and the folder,
 * for its new name) is flushed to disk when they run; without, it is not flushed.
 */
async function writeFileAtomically(folder: ConfinedFolder, name: Buffer, data: Uint8Array, flushes: Flushes | undefined): Promise<void> {
  const temporary = temporaryName()
  let fd: number | undefined
  try {
    if (data.length <= SMALL_FILE_BYTES) {
      fd = createNamedFileSync(folder.entry(temporary), data, {mode: PRIVATE_FILE_MODE, keepOpen: flushes !== undefined})
    } else {
      await createNamedFile(folder.entry(temporary), data, {mode: PRIVATE_FILE_MODE, sync: flushes !== undefined})
    }
    renameSync(folder.entry(temporary), folder.entry(name))
  } catch (error) {
    if (fd !== undefined) closeQuietly(fd)
    removeQuietly(folder.entry(temporary))
    throw error
  }
  if (fd !== undefined) flushes?.add(fd, folder)
  // A large file was flushed as it was written; its new name still needs the folder's flush.
  else flushes?.addFolder(folder)
}
