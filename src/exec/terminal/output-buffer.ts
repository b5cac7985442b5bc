import {codePointCount} from '../code-points.js'
import {OUTPUT_BUFFER_CHARS} from './limits.js'
import {completeUtf8Length, countLineBreakBytes, countUtf8, leadingContinuationBytes} from './utf8-bytes.js'

/** What a command printed between two answers, as far as the buffer kept it. */
export interface BufferedOutput {
  /** The first characters printed (at most half the buffer). */
  head: string
  /** Characters (code points) dropped between `head` and `tail` because the buffer was full. */
  droppedChars: number
  /** Line breaks (`\n`) among the dropped characters. */
  droppedLines: number
  /** The last characters printed (at most half the buffer); follows `head` directly when nothing was dropped. */
  tail: string
}

/** An empty output. */
export const NO_OUTPUT: BufferedOutput = {head: '', droppedChars: 0, droppedLines: 0, tail: ''}

/** Total characters (code points) a command printed, kept or dropped. */
export function outputChars(output: BufferedOutput): number {
  return codePointCount(output.head) + output.droppedChars + codePointCount(output.tail)
}

/** Counts `\n` in `text` from `start` to `end` (UTF-16 offsets). */
export function countLineBreaks(text: string, start = 0, end = text.length): number {
  let count = 0
  for (let index = text.indexOf('\n', start); index !== -1 && index < end; index = text.indexOf('\n', index + 1)) count++
  return count
}

function isHighSurrogate(code: number): boolean {
  return code >= 0xd800 && code <= 0xdbff
}

function isLowSurrogate(code: number): boolean {
  return code >= 0xdc00 && code <= 0xdfff
}

const NO_BYTES = Buffer.alloc(0)

/**
 * A bounded buffer of a command's output between two answers: it keeps the first half of its
 * capacity (the head) and the last half (the tail), in characters (UTF-16 code units), and only
 * counts what falls between, so a command that prints gigabytes holds at most about
 * `capacityChars` characters in the server. A surrogate pair is never split at either edge.
 *
 * Output arrives as bytes (UTF-8, split anywhere). Only the head is decoded as it arrives; the
 * tail is kept as bytes and decoded when taken, and what is dropped is counted on the bytes
 * (see utf8-bytes.ts), so a flood of output makes no strings at all.
 */
export class OutputBuffer {
  private head = ''
  /** The start of a character split at the end of the last chunk, while the head is filling. */
  private pending: Buffer = NO_BYTES
  private isHeadFull = false
  private tailChunks: Buffer[] = []
  /** UTF-16 code units (`units`, what the capacity counts) and code points in each of tailChunks. */
  private tailChunkCounts: Array<{units: number; codePoints: number}> = []
  private tailChars = 0
  private droppedChars = 0
  private droppedLines = 0
  private hasEnded = false
  private headCapacity: number
  private tailCapacity: number
  /** The head's capacity from the next take() on (setCapacity cannot grow a head that is full). */
  private nextHeadCapacity: number

  /** @param capacityChars characters kept at most (UTF-16 code units), head and tail together. */
  constructor(capacityChars: number = OUTPUT_BUFFER_CHARS) {
    this.headCapacity = Math.floor(capacityChars / 2)
    this.tailCapacity = capacityChars - this.headCapacity
    this.nextHeadCapacity = this.headCapacity
  }

  /**
   * Changes the capacity (characters, UTF-16 code units, head and tail together) from now on.
   * Shrinking drops at once what no longer fits, counted as when the buffer fills, so the next
   * take() answers what a buffer of the new capacity would have kept of the same output. Growing
   * keeps more of what comes next: in the tail at once, in the head from the next take() when the
   * head is already full (what fell between head and tail is gone).
   */
  setCapacity(capacityChars: number): void {
    const headCapacity = Math.floor(capacityChars / 2)
    // The tail may hold a little more than its capacity (whole chunks); what the old capacity
    // would not have kept must not come back with a larger one.
    this.trimTail()
    this.tailCapacity = capacityChars - headCapacity
    this.nextHeadCapacity = headCapacity
    if (!this.isHeadFull || headCapacity < this.headCapacity) this.headCapacity = headCapacity
    const chunks: Buffer[] = []
    if (this.head.length > this.headCapacity) {
      let take = this.headCapacity
      if (take > 0 && isHighSurrogate(this.head.charCodeAt(take - 1))) take--
      chunks.push(Buffer.from(this.head.slice(take), 'utf8'))
      this.head = this.head.slice(0, take)
      this.isHeadFull = true
      if (this.pending.length) chunks.push(this.pending)
      this.pending = NO_BYTES
    }
    if (!this.isHeadFull) return
    // Through pushTail again, which drops from the front what the new capacity cannot hold.
    chunks.push(...this.tailChunks)
    this.tailChunks = []
    this.tailChunkCounts = []
    this.tailChars = 0
    for (const chunk of chunks) this.pushTail(chunk)
  }

  /** Bytes held now: at most the capacity's worth (up to 4 bytes a character) plus one chunk. */
  get heldBytes(): number {
    return this.head.length * 2 + this.pending.length + this.tailChunks.reduce((sum, chunk) => sum + chunk.length, 0)
  }

  /** Adds output bytes (UTF-8, possibly ending inside a character) at the end. */
  write(chunk: Buffer): void {
    if (chunk.length === 0) return
    if (this.isHeadFull) {
      this.pushTail(chunk)
      return
    }
    const bytes = this.pending.length ? Buffer.concat([this.pending, chunk]) : chunk
    const complete = completeUtf8Length(bytes)
    this.pending = complete === bytes.length ? NO_BYTES : Buffer.from(bytes.subarray(complete))
    const text = bytes.toString('utf8', 0, complete)
    let take = Math.min(this.headCapacity - this.head.length, text.length)
    if (take < text.length && take > 0 && isHighSurrogate(text.charCodeAt(take - 1))) take--
    this.head += text.slice(0, take)
    if (take === text.length) return
    this.isHeadFull = true
    this.pushTail(Buffer.from(text.slice(take), 'utf8'))
    if (this.pending.length) this.pushTail(this.pending)
    this.pending = NO_BYTES
  }

  /** Adds decoded text at the end. */
  append(text: string): void {
    this.write(Buffer.from(text, 'utf8'))
  }

  /** Marks the end of the output: a character left incomplete is shown as U+FFFD, as a decoder's end would. */
  end(): void {
    this.hasEnded = true
    if (this.pending.length) {
      const rest = this.pending
      this.pending = NO_BYTES
      this.isHeadFull ? this.pushTail(rest) : this.append(rest.toString('utf8'))
    }
  }

  /**
   * Returns everything kept since the last `take` and empties the buffer. A character still
   * incomplete at the end of the output so far stays for the next `take`, unless the output ended.
   */
  take(): BufferedOutput {
    let tail = ''
    let {droppedChars, droppedLines} = this
    if (this.tailChunks.length) {
      const bytes = this.tailChunks.length === 1 ? this.tailChunks[0]! : Buffer.concat(this.tailChunks)
      const complete = this.hasEnded ? bytes.length : completeUtf8Length(bytes)
      this.pending = complete === bytes.length ? NO_BYTES : Buffer.from(bytes.subarray(complete))
      tail = bytes.toString('utf8', 0, complete)
      if (tail.length > this.tailCapacity) {
        let cut = tail.length - this.tailCapacity
        if (isLowSurrogate(tail.charCodeAt(cut))) cut++
        droppedChars += codePointCount(tail, 0, cut)
        droppedLines += countLineBreaks(tail, 0, cut)
        tail = tail.slice(cut)
      }
    }
    const output: BufferedOutput = {head: this.head, droppedChars, droppedLines, tail}
    this.head = ''
    this.isHeadFull = false
    this.headCapacity = this.nextHeadCapacity
    this.tailChunks = []
    this.tailChunkCounts = []
    this.tailChars = 0
    this.droppedChars = 0
    this.droppedLines = 0
    return output
  }

  /** Drops from the tail's front, counted, what passes its capacity, never part of a character. */
  private trimTail(): void {
    const excess = this.tailChars - this.tailCapacity
    if (excess <= 0 || this.tailChunks.length === 0) return
    const bytes = this.tailChunks.length === 1 ? this.tailChunks[0]! : Buffer.concat(this.tailChunks)
    let end = 0
    for (let units = 0; end < bytes.length && units < excess; ) {
      const lead = bytes[end]!
      units += lead >= 0xf0 ? 2 : 1
      end += lead >= 0xf0 ? 4 : lead >= 0xe0 ? 3 : lead >= 0xc0 ? 2 : 1
    }
    end = Math.min(end, bytes.length)
    const dropped = bytes.subarray(0, end)
    this.droppedChars += countUtf8(dropped).codePoints
    this.droppedLines += countLineBreakBytes(dropped)
    const rest = Buffer.from(bytes.subarray(end))
    this.tailChunks = rest.length ? [rest] : []
    this.tailChunkCounts = rest.length ? [countUtf8(rest)] : []
    this.tailChars = rest.length ? this.tailChunkCounts[0]!.units : 0
  }

  /** Appends raw bytes to the tail and drops whole chunks from its front while the rest still fills it. */
  private pushTail(chunk: Buffer): void {
    const counts = countUtf8(chunk)
    this.tailChunks.push(chunk)
    this.tailChunkCounts.push(counts)
    this.tailChars += counts.units
    while (this.tailChunks.length > 1 && this.tailChars - this.tailChunkCounts[0]!.units >= this.tailCapacity) {
      const dropped = this.tailChunks.shift()!
      const {units, codePoints} = this.tailChunkCounts.shift()!
      this.droppedChars += codePoints
      this.droppedLines += countLineBreakBytes(dropped)
      this.tailChars -= units
      // The next chunk may start with the rest of a character whose lead byte was just dropped.
      const next = this.tailChunks[0]!
      const orphans = leadingContinuationBytes(next)
      if (orphans > 0) this.tailChunks[0] = next.subarray(orphans)
    }
  }
}
