/**
 * What an `edit` does to a text, decided without touching the disk: find `old_text`, check how
 * often it occurs, put `new_text` in its place literally, and keep the file's BOM and line
 * endings. The tool (src/exec/tools/edit.ts) reads and writes the file around this.
 */
import {BadInputError} from '../../errors.js'

const BOM = '\uFEFF'

/** One edit request, as the `edit` tool receives it. */
export interface TextEditRequest {
  oldText: string
  newText: string
  replaceAll: boolean
}

/** The outcome of an edit on a text. */
export interface TextEditResult {
  /** The whole new text (BOM included when the old one had it). */
  text: string
  /** Occurrences replaced. */
  count: number
  /** 1-based line of each replaced occurrence's start, in the old text. */
  lines: number[]
  /** Where each replacement is, in both texts, in order (for the diff). */
  spans: ChangedSpan[]
}

/**
 * One replaced stretch: `[oldStart, oldEnd)` of the old text became `[newStart, newEnd)` of the
 * new one (UTF-16 offsets into the whole texts, BOM included). Outside the spans both texts are
 * the same.
 */
export interface ChangedSpan {
  oldStart: number
  oldEnd: number
  newStart: number
  newEnd: number
}

interface Occurrence {
  index: number
  matched: string
}

/**
 * `body` with every `\r\n` turned into `\n`, and the positions (in the result) of the `\n`s
 * that were `\r\n`, ascending.
 */
function withLfLineBreaks(body: string): {text: string; crlfAt: number[]} {
  const crlfAt: number[] = []
  const parts: string[] = []
  let position = 0
  for (let at = body.indexOf('\r\n'); at !== -1; at = body.indexOf('\r\n', at + 2)) {
    parts.push(body.slice(position, at))
    crlfAt.push(at - crlfAt.length)
    position = at + 1 // keep the \n, drop the \r
  }
  if (crlfAt.length === 0) return {text: body, crlfAt}
  parts.push(body.slice(position))
  return {text: parts.join(''), crlfAt}
}

/** How many entries of the ascending `values` are below `limit`. */
function countBelow(values: number[], limit: number): number {
  let low = 0
  let high = values.length
  while (low < high) {
    const middle = (low + high) >> 1
    if ((values[middle] as number) < limit) low = middle + 1
    else high = middle
  }
  return low
}

/**
 * The non-overlapping occurrences of `oldText` in `body`, left to right. A line break in
 * `oldText` (`\n` or `\r\n`) matches either kind in the text, so text copied from a `read`
 * answer (which shows no `\r`) matches a CRLF file, and a mixed file too. The search runs on
 * both texts with `\r\n` made `\n` (plain `indexOf`, no RegExp, so any size of `oldText` works)
 * and maps the positions back.
 */
function findOccurrences(body: string, oldText: string): Occurrence[] {
  const {text, crlfAt} = withLfLineBreaks(body)
  const needle = oldText.replaceAll('\r\n', '\n')
  // A position in `text` maps to itself plus the \r dropped before it (a \r\n at the start of a
  // match starts at its \r; one at the end of a match ends after its \n).
  const toBody = (position: number) => position + countBelow(crlfAt, position)
  const occurrences: Occurrence[] = []
  for (let index = text.indexOf(needle); index !== -1; index = text.indexOf(needle, index + needle.length)) {
    const start = toBody(index)
    const end = toBody(index + needle.length)
    occurrences.push({index: start, matched: body.slice(start, end)})
  }
  return occurrences
}

/**
 * The line ending new text takes at an occurrence: the kind of the first line break inside the
 * matched text; else that of the line the occurrence is on (the next line break, or the one
 * before it on a last line without one); `\n` in a text without line breaks.
 */
function lineEndingAt(body: string, occurrence: Occurrence): string {
  const inside = occurrence.matched.indexOf('\n')
  if (inside !== -1) return occurrence.matched[inside - 1] === '\r' ? '\r\n' : '\n'
  const after = body.indexOf('\n', occurrence.index + occurrence.matched.length)
  const at = after !== -1 ? after : body.lastIndexOf('\n', occurrence.index - 1)
  if (at === -1) return '\n'
  return body[at - 1] === '\r' ? '\r\n' : '\n'
}

/** 1-based line numbers of sorted positions in `body`. */
function lineNumbersOf(body: string, positions: number[]): number[] {
  const numbers: number[] = []
  let line = 1
  let scanned = 0
  for (const position of positions) {
    for (let at = body.indexOf('\n', scanned); at !== -1 && at < position; at = body.indexOf('\n', at + 1)) {
      line++
      scanned = at + 1
    }
    numbers.push(line)
  }
  return numbers
}

/** Line numbers for a message: the first 20, then how many more. */
export function listLines(lines: number[]): string {
  const shown = lines.slice(0, 20).join(', ')
  return lines.length > 20 ? `${shown}, and ${lines.length - 20} more` : shown
}

/**
 * Applies an edit to the text of a file.
 *
 * - Replacement is literal: `$&`, `$$`, `$1` in `newText` stay as typed.
 * - `oldText` must occur exactly once, unless `replaceAll` (then at least once). Occurrences do
 *   not overlap (`aa` occurs once in `aaa`).
 * - Line breaks in `oldText` match `\n` and `\r\n` alike; line breaks in `newText` are written
 *   with the line ending of the place they go to (see `lineEndingAt`), so a CRLF file stays CRLF,
 *   an LF file stays LF and each part of a mixed file keeps its own kind.
 * - A leading UTF-8 BOM (U+FEFF) is kept and is never part of a match.
 *
 * @param content the file's text, decoded from UTF-8 with its BOM (if any) still in front
 * @throws BadInputError when `oldText` is empty, equals `newText`, occurs nowhere, or occurs
 *   several times without `replaceAll`; the message says how many times and on which lines.
 */
export function applyTextEdit(content: string, request: TextEditRequest): TextEditResult {
  const {oldText, newText, replaceAll} = request
  if (oldText.length === 0) {
    throw new BadInputError('old_text is empty. An empty old_text creates a new file; to change a file, pass the exact text to replace.')
  }
  if (oldText === newText) throw new BadInputError('old_text and new_text are the same, so the edit would change nothing.')
  const bom = content.startsWith(BOM) ? BOM : ''
  const body = content.slice(bom.length)
  const occurrences = findOccurrences(body, oldText)
  const lines = lineNumbersOf(
    body,
    occurrences.map((occurrence) => occurrence.index),
  )
  if (occurrences.length === 0) {
    throw new BadInputError(
      'old_text was not found in the file. Read the file again and copy the text exactly, including ' +
        'whitespace and indentation (without the line numbers read adds).',
    )
  }
  if (occurrences.length > 1 && !replaceAll) {
    throw new BadInputError(
      `old_text occurs ${occurrences.length} times (lines ${listLines(lines)}). Add surrounding lines to old_text ` +
        'so that it occurs once, or set replace_all to replace every occurrence.',
    )
  }
  const parts: string[] = [bom]
  const spans: ChangedSpan[] = []
  let position = 0
  let written = bom.length
  for (const occurrence of occurrences) {
    const unchanged = body.slice(position, occurrence.index)
    const replacement = newText.replace(/\r?\n/g, lineEndingAt(body, occurrence))
    parts.push(unchanged, replacement)
    written += unchanged.length
    const oldStart = bom.length + occurrence.index
    spans.push({oldStart, oldEnd: oldStart + occurrence.matched.length, newStart: written, newEnd: written + replacement.length})
    written += replacement.length
    position = occurrence.index + occurrence.matched.length
  }
  parts.push(body.slice(position))
  return {text: parts.join(''), count: occurrences.length, lines, spans}
}
