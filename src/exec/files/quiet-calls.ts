/**
 * Synchronous file-system calls whose failure needs no answer, for the clean-up and look-ups
 * around a change (a temporary file removed, a descriptor closed, a name looked at): each takes
 * microseconds, less than a round trip to the thread pool.
 */
import {type Stats, closeSync, lstatSync, unlinkSync} from 'node:fs'

/** `lstat` of `entry`, undefined when it cannot be looked at (missing, or refused). */
export function lstatQuietly(entry: Buffer): Stats | undefined {
  try {
    return lstatSync(entry, {throwIfNoEntry: false})
  } catch {
    return undefined
  }
}

/** Removes `entry` if it is there; what cannot be removed is left (removeStaleTemporaries finds a temporary file later). */
export function removeQuietly(entry: Buffer): void {
  try {
    unlinkSync(entry)
  } catch {
    // Gone already, or left for the next clean-up.
  }
}

/** Closes `fd`, ignoring a failure (the descriptor is released either way). */
export function closeQuietly(fd: number): void {
  try {
    closeSync(fd)
  } catch {
    // Released by the kernel even when close reports an error.
  }
}
