/**
 * Per-path serialisation of file edits inside one server: an edit holds the lock of the file's
 * real path from reading the file to renaming the new content over it, so two edits of the same
 * file (from one connection or several) never both read the old text and lose one change.
 * Other processes writing the file are not covered; the "changed on disk" check catches most
 * of those (see replaceFileAtomically).
 */
import type {RuntimeService} from '../runtime.js'

/** The runtime service key of the edit locks (shared by all connections of a runtime). */
export const EDIT_LOCKS_SERVICE = 'edit-locks'

/**
 * Async mutexes keyed by a string (a real path). Waiters run in arrival order. An entry lives
 * only while a task holds or waits for its key, so the map never grows past the edits in flight.
 */
export class PathLocks implements RuntimeService {
  private readonly tails = new Map<string, Promise<void>>()

  /** Keys with a task holding or waiting for them. */
  get size(): number {
    return this.tails.size
  }

  /**
   * Runs `task` once every earlier task for `key` has ended (settled either way) and before any
   * later one starts. Returns what `task` returns or throws what it throws.
   */
  async hold<T>(key: string, task: () => Promise<T>): Promise<T> {
    const previous = this.tails.get(key) ?? Promise.resolve()
    let release!: () => void
    const done = new Promise<void>((resolve) => {
      release = resolve
    })
    // `previous` never rejects: every tail is a `done` promise, which only resolves.
    const tail = previous.then(() => done)
    this.tails.set(key, tail)
    try {
      await previous
      return await task()
    } finally {
      release()
      if (this.tails.get(key) === tail) this.tails.delete(key)
    }
  }

  /** Nothing to free: tasks still running finish on their own. */
  async close(): Promise<void> {}
}
