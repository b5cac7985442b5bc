/**
 * Per-path serialisation of file edits inside one server: an edit holds the lock of the file's
 * real path from reading the file to renaming the new content over it, so two edits of the same
 * file (from one connection or several) never both read the old text and lose one change.
 * Other processes writing the file are not covered; the "changed on disk" check catches most
 * of those (see isUnchanged in change-engine.ts).
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

/** The runtime service key of the edit byte budget (shared by all connections of a runtime). */
export const EDIT_BYTES_SERVICE = 'edit-bytes'

/**
 * A budget of bytes that tasks take while they run: a task waits (in arrival order) until its
 * bytes fit in what is left, except that a task always runs when no other holds bytes, so one
 * larger than the whole budget still runs, alone.
 */
export class ByteBudget implements RuntimeService {
  private inUse = 0
  private holders = 0
  private readonly waiting: Array<{bytes: number; start: () => void}> = []

  /** @param totalBytes bytes that running tasks may hold together */
  constructor(private readonly totalBytes: number) {}

  /** Bytes held by running tasks. */
  get bytesInUse(): number {
    return this.inUse
  }

  /** Runs `task` once `bytes` fit in the budget, holding them until it settles. */
  async hold<T>(bytes: number, task: () => Promise<T>): Promise<T> {
    if (this.waiting.length > 0 || !this.fits(bytes)) {
      await new Promise<void>((resolve) => {
        this.waiting.push({bytes, start: resolve})
      })
    } else {
      this.take(bytes)
    }
    try {
      return await task()
    } finally {
      this.inUse -= bytes
      this.holders--
      this.startWaiting()
    }
  }

  /** Nothing to free: tasks still running finish on their own. */
  async close(): Promise<void> {}

  private fits(bytes: number): boolean {
    return this.holders === 0 || this.inUse + bytes <= this.totalBytes
  }

  private take(bytes: number): void {
    this.inUse += bytes
    this.holders++
  }

  /** Starts waiting tasks, oldest first, while the oldest fits. */
  private startWaiting(): void {
    while (this.waiting.length > 0 && this.fits((this.waiting[0] as {bytes: number}).bytes)) {
      const next = this.waiting.shift() as {bytes: number; start: () => void}
      this.take(next.bytes)
      next.start()
    }
  }
}
