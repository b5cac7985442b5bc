import {DispatchFailedError} from '../errors.js'

/** Hands out at most `max` slots at once; further callers wait in order. */
export interface DispatchLimiter {
  readonly max: number
  /** Slots in use now. */
  readonly active: number
  /** Callers waiting for a slot now. */
  readonly waiting: number
  /**
   * Waits for a free slot and returns the function that frees it (call it exactly once). The
   * caller's place in line is taken when acquire is called, so call it before any `await` for
   * callers to be served in the order they arrived.
   * @throws DispatchFailedError when `signal` aborts while waiting.
   */
  acquire(signal: AbortSignal): Promise<() => void>
}

/** A limiter of `max` slots (a positive integer). */
export function createDispatchLimiter(max: number): DispatchLimiter {
  let active = 0
  const queue: Array<() => void> = []
  const release = (): void => {
    active -= 1
    queue.shift()?.()
  }
  const slot = (): (() => void) => {
    let released = false
    return () => {
      if (released) return
      released = true
      release()
    }
  }
  return {
    max,
    get active() {
      return active
    },
    get waiting() {
      return queue.length
    },
    acquire(signal) {
      if (signal.aborted) return Promise.reject(new DispatchFailedError('The call was cancelled while waiting for a free dispatch slot.'))
      if (active < max) {
        active += 1
        return Promise.resolve(slot())
      }
      return new Promise((resolve, reject) => {
        const grant = (): void => {
          signal.removeEventListener('abort', onAbort)
          active += 1
          resolve(slot())
        }
        const onAbort = (): void => {
          const index = queue.indexOf(grant)
          if (index !== -1) queue.splice(index, 1)
          reject(new DispatchFailedError('The call was cancelled while waiting for a free dispatch slot.'))
        }
        signal.addEventListener('abort', onAbort, {once: true})
        queue.push(grant)
      })
    },
  }
}
