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
  private readonly headCapacity: number
  private readonly tailCapacity: number

  /** @param capacityChars characters kept at most (UTF-16 code units), head and tail together. */
  constructor(capacityChars: number = OUTPUT_BUFFER_CHARS) {
    this.headCapacity = Math.floor(capacityChars / 2)
    this.tailCapacity = capacityChars - this.headCapacity
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
    this.tailChunks = []
    this.tailChunkCounts = []
    this.tailChars = 0
    this.droppedChars = 0
    this.droppedLines = 0
    return output
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
