import type {Writable} from 'node:stream'

/** A write waiting for the stream to drain. */
interface Waiter {
  resolve: () => void
  reject: (error: Error) => void
}

/**
 * Writes MCP frames (newline-delimited JSON) to one stream, stdout, for every answer a server
 * sends. The SDK's stdio transport adds a `drain` and an `error` listener for each write the
 * stream has not taken yet, so 64 answers written at once passed Node's limit of 10 listeners and
 * printed a MaxListenersExceededWarning. Here the writes that wait share one queue, and the stream
 * has one `drain` and one `error` listener for all of them, however many answers are written.
 *
 * A write resolves once the stream accepted it (below its high-water mark), or else on the next
 * `drain`; it rejects once the stream reported an error, and so does every later write. Frames
 * keep their order: the stream buffers them in the order they were written.
 */
export class FrameWriter {
  private waiting: Waiter[] = []
  private failure: Error | undefined

  constructor(private readonly stream: Writable) {
    stream.on('drain', () => this.release())
    stream.on('error', (error: Error) => this.fail(error))
  }

  /** Writes `frame` (one JSON-RPC message with its line break). */
  write(frame: string): Promise<void> {
    if (this.failure) return Promise.reject(this.failure)
    if (this.stream.write(frame)) return Promise.resolve()
    return new Promise((resolve, reject) => this.waiting.push({resolve, reject}))
  }

  /** Writes waiting for a drain, now. For tests. */
  get waitingCount(): number {
    return this.waiting.length
  }

  private release(): void {
    const waiting = this.waiting
    this.waiting = []
    for (const waiter of waiting) waiter.resolve()
  }

  private fail(error: Error): void {
    this.failure ??= error
    const waiting = this.waiting
    this.waiting = []
    for (const waiter of waiting) waiter.reject(error)
  }
}
