/**
 * The line-window reader behind the `read` tool: it takes a file's bytes chunk by chunk, from
 * the start, and keeps only the lines asked for. Lines before the window are counted, never
 * decoded or kept, so a deep offset costs a scan, not memory; it reports when it has seen enough
 * so the caller stops reading the file. No I/O here, so chunk boundaries can be tested at will.
 */

import {codePointCount} from '../code-points.js'

const NEWLINE = 0x0a
const CARRIAGE_RETURN = 0x0d
/** Columns the line number is right-aligned in, as `cat -n` does. */
const LINE_NUMBER_COLUMNS = 6
/** The most bytes a UTF-8 character takes. */
const MAX_UTF8_BYTES = 4

/** One line of the window. */
export interface WindowLine {
  /** 1-based line number in the file. */
  number: number
  /** The line's text without its line break (a trailing `\r` is dropped too), possibly clipped. */
  text: string
  /** Characters (code points) clipped from the end of the line; 0 when it is whole. */
  cutChars: number
  /** True when the line went on past the scan budget, so `cutChars` is a lower bound. */
  cutIsLowerBound: boolean
}

/** Why the window stopped. */
export type WindowEnd =
  /** The file ended. */
  | 'eof'
  /** `limit` lines were taken and at least one more byte follows. */
  | 'limit'
  /** The next line would have passed `maxAnswerChars`. */
  | 'chars'

/** What the window holds once it is done. */
export interface WindowResult {
  lines: WindowLine[]
  end: WindowEnd
  /** Lines in the whole file; known only when `end` is `eof`. */
  totalLines: number | undefined
}

/** Options of a line window. Counts are in lines, characters (code points) and bytes. */
export interface LineWindowOptions {
  /** First line to keep, 1-based. */
  offset: number
  /** Lines to keep at most. */
  limit: number
  /** Characters of one line kept before it is clipped. */
  maxLineChars: number
  /** Characters of the formatted answer (see `formatLineLength`) before the window stops. */
  maxAnswerChars: number
  /** Bytes scanned past the kept part of the window's last line to count what was clipped. */
  maxClippedScanBytes: number
}

/** Length in characters (code points) of one formatted line of the answer, newline included. */
export function formatLineLength(line: WindowLine): number {
  // Counted rather than formatted: this runs for every line of the window.
  const marker = line.cutChars > 0 || line.cutIsLowerBound ? clipMarker(line).length : 0
  return Math.max(LINE_NUMBER_COLUMNS, String(line.number).length) + 1 + codePointCount(line.text) + marker + 1
}

/** One line as `cat -n` shows it: the number right-aligned in six columns, a tab, the text. */
export function formatLine(line: WindowLine): string {
  const marker = line.cutChars > 0 || line.cutIsLowerBound ? clipMarker(line) : ''
  return `${String(line.number).padStart(LINE_NUMBER_COLUMNS)}\t${line.text}${marker}`
}

function clipMarker(line: WindowLine): string {
  const amount = line.cutIsLowerBound ? `at least ${line.cutChars}` : String(line.cutChars)
  return ` … [line clipped: ${amount} more characters]`
}

/** Whether `byte` starts a UTF-8 character (is not a continuation byte 10xxxxxx). */
function isLeadByte(byte: number): boolean {
  return (byte & 0xc0) !== 0x80
}

/**
 * Accepts a file's bytes in order and collects the lines of one window.
 * `push` returns false once the window is complete (the caller stops reading then);
 * `finish` returns the result (call it at end of file, or after `push` returned false).
 */
export class LineWindow {
  private readonly lines: WindowLine[] = []
  private readonly decoder = new TextDecoder('utf-8')
  /** Number of the line the next byte belongs to. */
  private lineNumber = 1
  /** Whether any byte of the current line has been seen (so that line exists). */
  private lineHasBytes = false
  private kept: Buffer[] = []
  private keptBytes = 0
  /** Lead bytes (that is, characters) seen past the kept bytes of the current line. */
  private droppedChars = 0
  private droppedBytes = 0
  private lastByte = -1
  private answerChars = 0
  private end: WindowEnd | undefined

  constructor(private readonly options: LineWindowOptions) {}

  /** The line number the window ends at (inclusive). */
  private get lastWanted(): number {
    return this.options.offset + this.options.limit - 1
  }

  private get keepLimitBytes(): number {
    return this.options.maxLineChars * MAX_UTF8_BYTES
  }

  /** Feeds the next bytes. Returns false once no more bytes are needed. */
  push(chunk: Uint8Array): boolean {
    if (this.end) return false
    let position = 0
    while (position < chunk.length) {
      if (this.lineNumber > this.lastWanted) {
        // Every wanted line is complete and here is one more byte: more lines follow.
        this.end = 'limit'
        return false
      }
      const newline = chunk.indexOf(NEWLINE, position)
      const stop = newline === -1 ? chunk.length : newline
      if (this.lineNumber >= this.options.offset) {
        this.take(chunk.subarray(position, stop))
        if (this.end) return false
      }
      if (stop > position) this.lineHasBytes = true
      if (newline === -1) break
      this.completeLine()
      if (this.end) return false
      position = newline + 1
    }
    return true
  }

  /** The window's lines and why it ended. Completes a last line that has no line break. */
  finish(): WindowResult {
    if (!this.end) {
      if (this.lineHasBytes) this.completeLine()
      this.end ??= 'eof'
    }
    const totalLines = this.end === 'eof' ? this.lineNumber - 1 : undefined
    return {lines: this.lines, end: this.end, totalLines}
  }

  /** Keeps or counts the bytes of the current (wanted) line. */
  private take(bytes: Uint8Array): void {
    if (bytes.length === 0) return
    this.lastByte = bytes[bytes.length - 1] as number
    const room = this.keepLimitBytes - this.keptBytes
    if (room > 0) {
      const keep = bytes.subarray(0, room)
      this.kept.push(Buffer.from(keep))
      this.keptBytes += keep.length
      bytes = bytes.subarray(keep.length)
    }
    for (const byte of bytes) if (isLeadByte(byte)) this.droppedChars++
    this.droppedBytes += bytes.length
    if (this.lineNumber === this.lastWanted && this.droppedBytes > this.options.maxClippedScanBytes) {
      // The last wanted line goes on and on: stop here rather than scan through all of it.
      this.emitLine(true)
      this.end = this.end ?? 'limit'
    }
  }

  private completeLine(): void {
    if (this.lineNumber >= this.options.offset) this.emitLine(false)
    this.lineNumber++
    this.lineHasBytes = false
  }

  /** Turns the kept bytes of the current line into a window line. */
  private emitLine(isCutShort: boolean): void {
    let bytes = this.kept.length === 1 ? (this.kept[0] as Buffer) : Buffer.concat(this.kept, this.keptBytes)
    let cutChars = this.droppedChars
    if (this.droppedBytes === 0 && bytes.at(-1) === CARRIAGE_RETURN) bytes = bytes.subarray(0, -1)
    else if (this.droppedBytes > 0 && this.lastByte === CARRIAGE_RETURN && !isCutShort) cutChars--
    if (this.droppedBytes > 0) {
      // The kept bytes may end inside a character: leave that character to the cut part.
      let end = bytes.length
      let back = 0
      while (end > 0 && back < MAX_UTF8_BYTES && !isLeadByte(bytes[end - 1] as number)) {
        end--
        back++
      }
      if (end > 0 && !isCompleteCharacter(bytes, end - 1, bytes.length)) {
        bytes = bytes.subarray(0, end - 1)
        cutChars++
      }
    }
    let text = this.decoder.decode(bytes)
    const {maxLineChars} = this.options
    // A string of at most maxLineChars UTF-16 units has at most that many characters, so the
    // common short line skips splitting into code points.
    if (text.length > maxLineChars) {
      const characters = [...text]
      if (characters.length > maxLineChars) {
        cutChars += characters.length - maxLineChars
        text = characters.slice(0, maxLineChars).join('')
      }
    }
    const line: WindowLine = {
      number: this.lineNumber,
      text,
      cutChars,
      cutIsLowerBound: isCutShort,
    }
    this.kept = []
    this.keptBytes = 0
    this.droppedChars = 0
    this.droppedBytes = 0
    this.lastByte = -1
    const length = formatLineLength(line)
    if (this.answerChars + length > this.options.maxAnswerChars && this.lines.length > 0) {
      this.end = 'chars'
      return
    }
    this.answerChars += length
    this.lines.push(line)
  }
}

/** Whether the character whose lead byte is at `lead` ends within `bytes[..end)`. */
function isCompleteCharacter(bytes: Uint8Array, lead: number, end: number): boolean {
  const first = bytes[lead] as number
  const size = first < 0x80 ? 1 : first >= 0xf0 ? 4 : first >= 0xe0 ? 3 : first >= 0xc0 ? 2 : 1
  return lead + size <= end
}
