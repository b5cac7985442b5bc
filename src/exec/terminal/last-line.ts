import {completeUtf8Length, leadingContinuationBytes} from './utf8-bytes.js'

/**
 * Bytes at the end of each output chunk read for the last line: a line longer than this shows
 * its end only, and a chunk costs at most this much decoding whatever its size.
 */
export const LAST_LINE_SCAN_BYTES = 1024

/**
 * The last line a command printed, for a task's status message (DESIGN §4.11): the line being
 * written when it is not blank, else the last non-blank complete line; `\r` ends a line too, so a
 * progress bar shows its latest state. Only the last LAST_LINE_SCAN_BYTES of each chunk are
 * decoded, so following a command that prints gigabytes costs next to nothing; what it keeps is
 * bounded by `maxChars`.
 */
export class LastLine {
  private current = ''
  private lastComplete = ''

  /** @param maxChars characters kept of a line (its end). */
  constructor(private readonly maxChars: number = LAST_LINE_SCAN_BYTES) {}

  /** The last line, or '' before any non-blank output. */
  get value(): string {
    return this.current.trim() === '' ? this.lastComplete : this.current
  }

  /** Takes a chunk of output as bytes (UTF-8, possibly split inside a character at either end). */
  pushBytes(chunk: Buffer): void {
    let start = Math.max(0, chunk.length - LAST_LINE_SCAN_BYTES)
    if (start > 0) {
      // The line's start is not seen: what is known of it is this chunk's end.
      this.current = ''
      start += leadingContinuationBytes(chunk.subarray(start))
    }
    const scanned = chunk.subarray(start)
    this.push(scanned.toString('utf8', 0, completeUtf8Length(scanned)))
  }

  /** Takes a chunk of decoded output. */
  push(text: string): void {
    const parts = text.split(/\r\n|\r|\n/)
    for (let index = 0; index < parts.length - 1; index++) {
      const line = this.current + parts[index]!
      if (line.trim() !== '') this.lastComplete = this.bounded(line)
      this.current = ''
    }
    this.current = this.bounded(this.current + parts.at(-1)!)
  }

  private bounded(line: string): string {
    return line.length <= this.maxChars ? line : line.slice(line.length - this.maxChars)
  }
}
