/**
 * Reading the last lines of a file, as `read` does for a negative `offset` (-5 = the last five
 * lines): the file is scanned backwards from its end for line breaks, one chunk at a time, so a
 * log of any size costs the bytes of the lines asked for, not a scan of the whole file, and
 * memory stays at one chunk. The lines are then read forwards from where the first of them
 * starts, through the same line window as any other read (clipping, answer budget).
 */
import type {FileHandle} from 'node:fs/promises'

import {LineWindow, type WindowLine, type WindowResult} from './line-window.js'

const NEWLINE = 0x0a

/** Options of a read from the end. Counts are in lines, characters (code points) and bytes. */
export interface ReadFromEndOptions {
  /** How many lines before the end the window starts (5 = the fifth line from the end); at least 1. */
  linesFromEnd: number
  /** Lines to show at most. */
  limit: number
  maxLineChars: number
  maxAnswerChars: number
  maxClippedScanBytes: number
  /** Bytes read at a time, backwards and then forwards. */
  chunkBytes: number
  /**
   * When the window starts within this many bytes of the file's start, the lines before it are
   * counted too, so the answer can number lines from the start.
   */
  maxCountBytes: number
  signal: AbortSignal
}

/** What a read from the end found. */
export interface ReadFromEndResult {
  /**
   * The window. Lines are numbered from the start (1 = first line) when `isCounted`; otherwise
   * from the end (-1 = last line), which are also the offsets that read them again.
   */
  window: WindowResult
  /** Whether the lines before the window were counted (line numbers are then from the start). */
  isCounted: boolean
}

/**
 * Reads the window of the file open as `handle` (its `size` bytes) that starts `linesFromEnd`
 * lines before its end. A file with fewer lines starts at its first line. A last line break ends
 * the last line (it does not start an empty one), as everywhere else in `read`.
 */
export async function readFromEnd(handle: FileHandle, size: number, options: ReadFromEndOptions): Promise<ReadFromEndResult> {
  const buffer = Buffer.allocUnsafe(options.chunkBytes)
  const readAt = async (position: number, length: number): Promise<Buffer> => {
    options.signal.throwIfAborted()
    const {bytesRead} = await handle.read(buffer, 0, length, position)
    return buffer.subarray(0, bytesRead)
  }

  let end = size
  if (size > 0 && (await readAt(size - 1, 1))[0] === NEWLINE) end = size - 1
  // Find the line break before the wanted first line: the linesFromEnd-th one back from `end`.
  let position = end
  let breaksSeen = 0
  let start = 0
  let isFound = false
  while (position > 0 && !isFound) {
    const from = Math.max(0, position - options.chunkBytes)
    const chunk = await readAt(from, position - from)
    for (let at = chunk.lastIndexOf(NEWLINE); at !== -1; at = at > 0 ? chunk.lastIndexOf(NEWLINE, at - 1) : -1) {
      breaksSeen++
      if (breaksSeen === options.linesFromEnd) {
        start = from + at + 1
        isFound = true
        break
      }
    }
    position = from
  }

  // Lines before `start`: known when the scan reached the file's start, or cheap to count.
  let linesBefore: number | undefined = isFound ? undefined : 0
  if (isFound && start <= options.maxCountBytes) {
    linesBefore = 0
    for (let from = 0; from < start; from += options.chunkBytes) {
      const chunk = await readAt(from, Math.min(options.chunkBytes, start - from))
      for (let at = chunk.indexOf(NEWLINE); at !== -1; at = chunk.indexOf(NEWLINE, at + 1)) linesBefore++
    }
  }

  const window = new LineWindow({
    offset: 1,
    limit: options.limit,
    maxLineChars: options.maxLineChars,
    maxAnswerChars: options.maxAnswerChars,
    maxClippedScanBytes: options.maxClippedScanBytes,
  })
  for (let from = start; from < size; ) {
    const chunk = await readAt(from, Math.min(options.chunkBytes, size - from))
    if (chunk.length === 0) break
    from += chunk.length
    if (!window.push(chunk)) break
  }
  const result = window.finish()
  const shownLines = isFound ? options.linesFromEnd : breaksSeen + (size > 0 ? 1 : 0)
  const firstNumber = linesBefore === undefined ? -shownLines : linesBefore + 1
  const lines: WindowLine[] = result.lines.map((line) => ({...line, number: firstNumber + line.number - 1}))
  const totalLines = linesBefore === undefined || result.end !== 'eof' ? undefined : linesBefore + (result.totalLines ?? 0)
  return {window: {lines, end: result.end, totalLines}, isCounted: linesBefore !== undefined}
}
