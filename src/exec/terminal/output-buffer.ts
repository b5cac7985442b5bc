import {codePointCount} from '../code-points.js'
import {OUTPUT_BUFFER_CHARS} from './limits.js'

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

/**
 * A bounded buffer of a command's decoded output between two answers: it keeps the first half of
 * its capacity (the head) and the last half (the tail) and only counts what falls between, so a
 * command that prints gigabytes holds at most `capacityChars` characters in the server. A
 * surrogate pair is never split at either edge.
 */
export class OutputBuffer {
  private head = ''
  private tailChunks: string[] = []
  private tailChars = 0
  private droppedChars = 0
  private droppedLines = 0
  private readonly headCapacity: number
  private readonly tailCapacity: number

  /** @param capacityChars characters kept at most (UTF-16 code units), head and tail together. */
  constructor(capacityChars: number = OUTPUT_BUFFER_CHARS) {
    this.headCapacity = Math.floor(capacityChars / 2)
    this.tailCapacity = capacityChars - this.headCapacity
  }

  /** Adds decoded text at the end. */
  append(text: string): void {
    if (this.tailChars === 0) {
      let take = Math.min(this.headCapacity - this.head.length, text.length)
      // A high surrogate at the edge stays with its low half (with take 0, charCodeAt(-1) is NaN).
      if (take < text.length && isHighSurrogate(text.charCodeAt(take - 1))) take--
      this.head += text.slice(0, take)
      text = text.slice(take)
    }
    if (text.length === 0) return
    this.tailChunks.push(text)
    this.tailChars += text.length
    this.trimTail()
  }

  /** Returns everything kept since the last `take` and empties the buffer. */
  take(): BufferedOutput {
    const output: BufferedOutput = {
      head: this.head,
      droppedChars: this.droppedChars,
      droppedLines: this.droppedLines,
      tail: this.tailChunks.join(''),
    }
    this.head = ''
    this.tailChunks = []
    this.tailChars = 0
    this.droppedChars = 0
    this.droppedLines = 0
    return output
  }

  private trimTail(): void {
    while (this.tailChars > this.tailCapacity) {
      const first = this.tailChunks[0]!
      const excess = this.tailChars - this.tailCapacity
      if (first.length <= excess) {
        this.tailChunks.shift()
        this.drop(first, first.length)
        continue
      }
      let cut = excess
      if (isLowSurrogate(first.charCodeAt(cut))) cut++
      this.drop(first, cut)
      this.tailChunks[0] = first.slice(cut)
    }
  }

  /** Drops the first `units` UTF-16 units of `chunk` (never half a surrogate pair), counting what they held. */
  private drop(chunk: string, units: number): void {
    this.droppedChars += codePointCount(chunk, 0, units)
    this.droppedLines += countLineBreaks(chunk, 0, units)
    this.tailChars -= units
  }
}
