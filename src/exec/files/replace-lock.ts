/**
 * The replace lock that ak servers sharing a workspace take around the last check and the rename
 * of an edit, so two servers editing one file cannot both find it unchanged and the later rename
 * silently drop the earlier edit. Edits within one server are already serialised (path-locks.ts);
 * other programs do not take this lock.
 *
 * A lock is a file beside the edited one, `.ak-edit-lock-<16 hex digits>` (see `lockName`),
 * holding `<pid> <16 random hex digits>` and, on Linux, `boot=<boot id> pidns=<inode> start=<ticks>`:
 * the holder's fields tell whether it still runs, from any PID namespace (see lock-holder.ts), the
 * random part tells one lock from the next. It appears with its content complete (written to a
 * temporary file, then linked to the lock's name, which fails if anything is there).
 *
 * A stale lock (its holder is gone, or it is older than EDIT_LOCK_STALE_MS; a holder that cannot
 * be checked from here, in another PID namespace or boot, is alive until then) is taken over, never
 * removed and then raced for: the one process that creates the claim file
 * `.ak-edit-lock-<16 hex>.<identity of that very lock>` (O_EXCL, so one process only) checks that
 * the lock is still the same one and renames a lock of its own over it. Every change to a lock
 * file other than its holder's release goes through its claim, and an identity never comes back
 * (it covers the inode, its change time and the random content), so the check cannot be outrun:
 * two servers never both believe they hold the lock. A claim left by a process killed mid-takeover
 * is itself stale and taken over the same way. The one case this cannot cover is a holder that is
 * alive but keeps the lock past EDIT_LOCK_STALE_MS (it holds it for a check and a rename, so only a
 * stopped process or a hung disk does that).
 *
 * Files found at these names are read by `readNamedFileSync` (no link followed, no FIFO waited
 * on, at most EDIT_LOCK_MAX_BYTES); anything but a regular file there is refused with an error that
 * names it. Taking, inspecting and releasing a lock are synchronous calls on small files, each of a
 * few microseconds: a round trip to the thread pool per call would cost more than the call, and an
 * edit takes two locks (the file's and the journal's).
 */
import {createHash, randomBytes} from 'node:crypto'
import {linkSync, renameSync, unlinkSync} from 'node:fs'
import {setTimeout as sleep} from 'node:timers/promises'

import {BadInputError} from '../../errors.js'
import {type NamedFile, createNamedFileSync, readNamedFileSync} from '../../named-file.js'
import {displayName} from '../display-name.js'
import {EDIT_LOCK_MAX_BYTES, EDIT_LOCK_STALE_MS, EDIT_LOCK_WAIT_MS} from '../limits.js'
import type {ConfinedFolder} from './confined-open.js'
import {removeQuietly} from './quiet-calls.js'
import {describeSystemError, errorCode} from '../fs-errors.js'
import {formatHolder, holderState, parseHolder, thisHolder} from './lock-holder.js'

/** Lock files: `.ak-edit-lock-<first 16 hex digits of the SHA-256 of the locked name>`. */
export const LOCK_NAME = /^\.ak-edit-lock-[0-9a-f]{16}$/
/** Claim files of a takeover: a lock's name, a dot, and 16 hex digits of the identity of the lock claimed. */
export const CLAIM_NAME = /^\.ak-edit-lock-[0-9a-f]{16}\.[0-9a-f]{16}$/

/** Temporary files of edits and locks: `.ak-edit-<pid of the server>-<16 random hex digits>.tmp`. */
export const TEMPORARY_NAME = /^\.ak-edit-(\d+)-[0-9a-f]{16}\.tmp$/

/** Bytes of a lock file's name (`.ak-edit-lock-` and 16 hex digits): a claim's name starts with them. */
const LOCK_NAME_BYTES = 30
/** Claims of claims taken over in a row before giving up (each needs a process killed mid-takeover). */
const MAX_CLAIM_DEPTH = 4
/** Longest pause between two attempts to take a held lock, in ms (pauses double from 1 ms). */
const MAX_RETRY_PAUSE_MS = 50
/** Errors of a rename over a lock that say it cannot be replaced (immutable, read-only, someone else's, a mount point). */
const UNREMOVABLE_CODES = new Set(['EPERM', 'EACCES', 'EROFS', 'EBUSY'])

/** The lock file's name for the entry `name` (fixed length, whatever the name's). */
function lockName(name: Buffer): Buffer {
  return Buffer.from(`.ak-edit-lock-${createHash('sha256').update(name).digest('hex').slice(0, 16)}`)
}

/** A fresh temporary name, hidden, recognisable and naming this process (see atomic-write.ts). */
export function temporaryName(): Buffer {
  return Buffer.from(`.ak-edit-${process.pid}-${randomBytes(8).toString('hex')}.tmp`)
}

export {isRunning} from './lock-holder.js'

/** A lock (or claim) file as found: its identity and whether it may be taken over. */
interface FoundLock {
  /** 16 hex digits naming this very file: its device, inode, change time and content. */
  identity: string
  isStale: boolean
}

/** A lock this process holds: the name and the exact content it wrote. */
interface HeldLock {
  name: Buffer
  content: string
}

/** The error for a lock name where something other than a regular file lies. */
function notALockError(lock: Buffer, what: string, edited: Buffer | undefined): BadInputError {
  const of = edited ? ` beside "${displayName(edited)}"` : ''
  return new BadInputError(
    `The edit lock file "${displayName(lock)}"${of} is ${what}, not a lock an ak server wrote, so the file cannot be edited safely. ` +
      'Remove it and retry the edit. Nothing was changed.',
  )
}

/**
 * Looks at the lock (or claim) file `name` of `folder`: undefined when nothing is there.
 * @throws BadInputError when something other than a regular file is there (see `notALockError`)
 */
function inspectLock(folder: ConfinedFolder, name: Buffer, edited: Buffer | undefined): FoundLock | undefined {
  let found: NamedFile
  try {
    found = readNamedFileSync(folder.entry(name), EDIT_LOCK_MAX_BYTES)
  } catch (error) {
    const of = edited ? ` beside "${displayName(edited)}"` : ''
    throw new BadInputError(
      `The edit lock file "${displayName(name)}"${of} cannot be read (${describeSystemError(error as NodeJS.ErrnoException)}), ` +
        'so the file cannot be edited safely. Check its owner and permissions, or remove it, and retry the edit. Nothing was changed.',
    )
  }
  if (found.kind === 'missing') return undefined
  if (found.kind === 'not-a-file') throw notALockError(name, found.what, edited)
  const {info, bytes} = found
  const identity = createHash('sha256').update(`${info.dev}:${info.ino}:${info.ctimeNs}:${found.size}:`).update(bytes).digest('hex').slice(0, 16)
  const ageMs = Date.now() - Number(info.mtimeMs)
  // A lock whose content names no holder (cut short, or not ak's) is stale only by its age, as is
  // one whose holder cannot be checked from here.
  const holder = found.isCut ? undefined : parseHolder(bytes.toString('utf8').trim().split(/\s+/))
  const isGone = holder !== undefined && holderState(holder) === 'gone'
  return {identity, isStale: isGone || ageMs > EDIT_LOCK_STALE_MS}
}

/** The error for a stale lock that cannot be replaced. */
function unremovableError(lock: Buffer, edited: Buffer | undefined, code: string | undefined): BadInputError {
  const of = edited ? ` beside "${displayName(edited)}"` : ''
  const why =
    code === 'EROFS' ? 'it is on a read-only file system' : code === 'EBUSY' ? 'it is a mount point' : 'the server may not replace it (it is immutable, or someone else owns it in a sticky folder)'
  return new BadInputError(
    `The edit lock file "${displayName(lock)}"${of} was left by an ak server that is gone, but it cannot be removed: ${why}. ` +
      'Remove it by hand (as its owner, after `chattr -i` or unmounting if need be) and retry the edit. Nothing was changed.',
  )
}

/**
 * Writes `content` to a new temporary file of `folder` and gives it the name `name`: by `link`,
 * which fails with EEXIST if anything is there (`replace` false), or by `rename` over what is there.
 * Where the file system has no hard links, `name` is created directly with O_EXCL.
 * @returns false when `name` was taken (EEXIST)
 */
function placeLock(folder: ConfinedFolder, name: Buffer, content: string, replace: boolean): boolean {
  const temporary = temporaryName()
  createNamedFileSync(folder.entry(temporary), content, {mode: 0o644})
  try {
    if (replace) {
      renameSync(folder.entry(temporary), folder.entry(name))
      return true
    }
    try {
      linkSync(folder.entry(temporary), folder.entry(name))
      return true
    } catch (error) {
      if (errorCode(error) === 'EEXIST') return false
      if (!['EPERM', 'ENOTSUP', 'EOPNOTSUPP', 'ENOSYS'].includes(errorCode(error) ?? '')) throw error
    }
    try {
      createNamedFileSync(folder.entry(name), content, {mode: 0o644})
      return true
    } catch (error) {
      if (errorCode(error) === 'EEXIST') return false
      throw error
    }
  } finally {
    // Renamed over the lock, or never made.
    removeQuietly(folder.entry(temporary))
  }
}

/**
 * One attempt to take the lock (or claim) `name` of `folder`: creates it, or takes it over when it
 * is stale (see the module comment). Never waits.
 * @param edited the entry the lock is for, for messages (undefined while clearing a folder)
 * @returns the lock now held, or undefined when another live process holds it or takes it over
 * @throws BadInputError when a special file lies at a lock name or a stale lock cannot be replaced
 */
function tryTakeLock(folder: ConfinedFolder, name: Buffer, edited: Buffer | undefined, depth = 0): HeldLock | undefined {
  const [pid, ...namespace] = formatHolder(thisHolder())
  const mine: HeldLock = {name, content: `${[pid, randomBytes(8).toString('hex'), ...namespace].join(' ')}\n`}
  if (placeLock(folder, name, mine.content, false)) return mine
  const found = inspectLock(folder, name, edited)
  if (!found?.isStale || depth >= MAX_CLAIM_DEPTH) return undefined
  // Only the process holding this lock's claim may replace it.
  const claim = tryTakeLock(folder, Buffer.from(`${name.subarray(0, LOCK_NAME_BYTES).toString()}.${found.identity}`), edited, depth + 1)
  if (!claim) return undefined
  try {
    if (inspectLock(folder, name, edited)?.identity !== found.identity) return undefined
    try {
      placeLock(folder, name, mine.content, true)
    } catch (error) {
      if (UNREMOVABLE_CODES.has(errorCode(error) ?? '')) throw unremovableError(name, edited, errorCode(error))
      throw error
    }
    return mine
  } finally {
    releaseLock(folder, claim)
  }
}

/**
 * Removes a lock this process holds, if it still holds it (its content is still the one written):
 * one that was taken over as stale meanwhile belongs to its new holder.
 */
function releaseLock(folder: ConfinedFolder, held: HeldLock): void {
  try {
    const found = readNamedFileSync(folder.entry(held.name), EDIT_LOCK_MAX_BYTES)
    if (found.kind === 'file' && found.bytes.toString('utf8') === held.content) unlinkSync(folder.entry(held.name))
  } catch {
    // Unreadable or gone: a lock this process cannot remove is stale once it is gone (see inspectLock).
  }
}

/**
 * Runs `critical` while holding the replace lock of the entry `name` in `folder` (see the module
 * comment), waiting for another process's lock up to EDIT_LOCK_WAIT_MS, with pauses between
 * attempts, and taking over a stale one.
 * @throws BadInputError when another process holds the lock for EDIT_LOCK_WAIT_MS, when something
 *   other than a lock file lies at its name, or when a stale lock cannot be removed
 */
export async function withReplaceLock<T>(folder: ConfinedFolder, name: Buffer, critical: () => Promise<T>): Promise<T> {
  const lock = lockName(name)
  const deadline = Date.now() + EDIT_LOCK_WAIT_MS
  let held: HeldLock | undefined
  for (let pauseMs = 1; !(held = tryTakeLock(folder, lock, name)); pauseMs = Math.min(pauseMs * 2, MAX_RETRY_PAUSE_MS)) {
    if (Date.now() >= deadline) {
      throw new BadInputError(
        `Another process has been editing "${displayName(name)}" for ${EDIT_LOCK_WAIT_MS / 1000} s (it holds the lock file ` +
          `${displayName(lock)} beside it). Retry the edit; if no ak server is running, remove that file.`,
      )
    }
    await sleep(pauseMs)
  }
  try {
    return await critical()
  } finally {
    releaseLock(folder, held)
  }
}

/**
 * Removes the lock or claim file `name` of `folder` if it is stale, by taking it over and
 * releasing it (never by a plain unlink, which could remove a lock just taken over by another
 * process). Best effort: anything that stands in the way leaves the file as it is.
 */
export async function removeStaleLock(folder: ConfinedFolder, name: Buffer): Promise<void> {
  try {
    const found = inspectLock(folder, name, undefined)
    if (!found?.isStale) return
    const held = tryTakeLock(folder, name, undefined)
    if (held) releaseLock(folder, held)
  } catch {
    // A special file, an unremovable lock: left for the edit that needs it to report.
  }
}
