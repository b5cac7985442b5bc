import {createHash} from 'node:crypto'
import {lstat, open, readFile, unlink} from 'node:fs/promises'
import {setTimeout as sleep} from 'node:timers/promises'

import {BadInputError} from '../../errors.js'
import {displayName} from '../display-name.js'
import {EDIT_LOCK_STALE_MS, EDIT_LOCK_WAIT_MS} from '../limits.js'
import type {ConfinedFolder} from './confined-open.js'
import {errorCode} from './fs-errors.js'

/** Lock files: `.ak-edit-lock-<first 16 hex digits of the SHA-256 of the locked name>`. */
export const LOCK_NAME = /^\.ak-edit-lock-[0-9a-f]{16}$/

/** The lock file's name for the entry `name` (fixed length, whatever the name's). */
function lockName(name: Buffer): Buffer {
  return Buffer.from(`.ak-edit-lock-${createHash('sha256').update(name).digest('hex').slice(0, 16)}`)
}

/** Whether a process with this pid exists (EPERM: it exists but belongs to someone else). */
export function isRunning(pid: number): boolean {
  try {
    process.kill(pid, 0)
    return true
  } catch (error) {
    return errorCode(error) === 'EPERM'
  }
}

/**
 * Whether the lock file `lock` of `folder` was left by a process that is gone (or is older than
 * EDIT_LOCK_STALE_MS), and so may be removed. A lock still being written (no pid yet) is not stale.
 */
export async function isStaleLock(folder: ConfinedFolder, lock: Buffer): Promise<boolean> {
  try {
    const [info, text] = await Promise.all([lstat(folder.entry(lock)), readFile(folder.entry(lock), 'utf8')])
    if (Date.now() - info.mtimeMs > EDIT_LOCK_STALE_MS) return true
    const pid = Number(text.trim())
    return text.trim() !== '' && Number.isSafeInteger(pid) && pid > 0 && !isRunning(pid)
  } catch {
    return false // gone meanwhile: the next attempt finds out
  }
}

/**
 * Runs `critical` while holding the replace lock of the entry `name` in `folder`: a file created
 * with O_EXCL beside it, holding this process's pid, removed afterwards. ak servers take it
 * around the last check and the rename of a replacement, so two servers editing one file cannot
 * both find it unchanged and the later rename silently drop the earlier edit: the second finds the
 * first's new file and refuses. Edits within one server are already serialised (path-locks.ts);
 * other programs do not take this lock.
 *
 * A lock left by a process that is gone, or older than EDIT_LOCK_STALE_MS, is removed and taken.
 * @throws BadInputError when another process holds the lock for EDIT_LOCK_WAIT_MS
 */
export async function withReplaceLock<T>(folder: ConfinedFolder, name: Buffer, critical: () => Promise<T>): Promise<T> {
  const lock = lockName(name)
  const deadline = Date.now() + EDIT_LOCK_WAIT_MS
  for (let wait = 1; ; wait = Math.min(wait * 2, 50)) {
    try {
      const handle = await open(folder.entry(lock), 'wx', 0o644)
      try {
        await handle.writeFile(`${process.pid}\n`)
      } finally {
        await handle.close()
      }
      break
    } catch (error) {
      if (errorCode(error) !== 'EEXIST') throw error
    }
    if (await isStaleLock(folder, lock)) {
      await unlink(folder.entry(lock)).catch(() => undefined)
      continue
    }
    if (Date.now() >= deadline) {
      throw new BadInputError(
        `Another process has been editing "${displayName(name)}" for ${EDIT_LOCK_WAIT_MS / 1000} s (it holds the lock file ` +
          `${displayName(lock)} beside it). Retry the edit; if no ak server is running, remove that file.`,
      )
    }
    await sleep(wait)
  }
  try {
    return await critical()
  } finally {
    await unlink(folder.entry(lock)).catch(() => undefined)
  }
}
