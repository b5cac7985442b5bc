/**
 * What an `edit` does to a text, decided without touching the disk: find `old_text`, check how
 * often it occurs, put `new_text` in its place literally, and keep the file's BOM and line
 * endings. The tool (src/exec/tools/edit.ts) reads and writes the file around this.
 */
import {BadInputError} from '../../errors.js'
import {EDIT_NEAR_MATCH_MAX_CHARS} from '../limits.js'

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
  /**
   * 1-based line of each replaced occurrence's start, in the old text: the first
   * EDIT_MAX_RECORDED_SPANS of them (`count` says how many there are in all).
   */
  lines: number[]
  /**
   * Where each replacement is, in both texts, in order (for the diff): the first
   * EDIT_MAX_RECORDED_SPANS of them.
   */
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

/**
 * Replacements whose place (span and line) an edit records; past this only the count grows, so a
 * `replace_all` with millions of occurrences keeps no per-occurrence data. More than the diff
 * budget (EDIT_MAX_DIFF_CHARS) can ever show.
 */
export const EDIT_MAX_RECORDED_SPANS = 10_000

/** Pieces of the new text gathered before they are joined into one chunk. */
const JOIN_EVERY_PARTS = 4096

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
  parts.push(body.slice(position))
  return {text: parts.join(''), crlfAt}
}

/**
 * Calls `visit(start, end)` for each occurrence of `oldText` in `body`, left to right, without
 * keeping them. A line break in `oldText` (`\n` or `\r\n`) matches either kind in the text, so
 * text copied from a `read` answer (which shows no `\r`) matches a CRLF file, and a mixed file
 * too. The search runs on both texts with `\r\n` made `\n` (plain `indexOf`, no RegExp, so any
 * size of `oldText` works) and maps the positions back. Occurrences do not overlap: each is looked
 * for after the end of the one before.
 * @returns where (in `body`) the first occurrence after the first one's start begins when it
 *   begins inside the first one (`aaa` in `aaaa` at 1), else undefined.
 */
function forEachOccurrence(body: string, oldText: string, visit: (start: number, end: number) => void): number | undefined {
  const {text, crlfAt} = withLfLineBreaks(body)
  const needle = oldText.replaceAll('\r\n', '\n')
  // A position in `text` maps to itself plus the \r dropped before it (a \r\n at the start of a
  // match starts at its \r; one at the end of a match ends after its \n). Positions only grow.
  let below = 0
  const toBody = (position: number) => {
    while (below < crlfAt.length && (crlfAt[below] as number) < position) below++
    return position + below
  }
  const first = text.indexOf(needle)
  for (let index = first; index !== -1; index = text.indexOf(needle, index + needle.length)) {
    const start = toBody(index)
    visit(start, toBody(index + needle.length))
  }
  if (first === -1) return undefined
  const next = text.indexOf(needle, first + 1)
  if (next === -1 || next >= first + needle.length) return undefined
  below = 0
  return toBody(next)
}

/**
 * Whether new text takes CRLF line endings at successive occurrences (starting at ascending
 * offsets): the kind of the first line break at or after the occurrence's start, which is the
 * first one inside the matched text or else the one ending its line; on a last line without one,
 * the kind of the line break before it; LF in a text without line breaks. Remembers the next line
 * break, so many occurrences on one long line cost one scan of it.
 */
function crlfAtOccurrences(body: string): (start: number) => boolean {
  const lastBreak = body.lastIndexOf('\n')
  let nextBreak = -1 // the first \n at or after the last start asked about; body.length when none
  return (start) => {
    if (nextBreak < start) {
      const found = body.indexOf('\n', start)
      nextBreak = found === -1 ? body.length : found
    }
    const at = nextBreak < body.length ? nextBreak : lastBreak
    return body[at - 1] === '\r' // with no line break at all, at is -1 and body[-2] undefined
  }
}

/** Distinct lines a message names before it only counts the rest. */
const MAX_NAMED_LINES = 20

/** Near matches (ignoring whitespace) a failed edit names at most. */
const MAX_NAMED_NEAR_MATCHES = 5

/**
 * The lines of a set of occurrences for a message, each line once with its count:
 * "line 4", "lines 1 (2 times), 7", and past MAX_NAMED_LINES lines "…, and 31 more occurrences".
 * @param lines the 1-based line of each occurrence, ascending (possibly only the first ones)
 * @param total how many occurrences there are in all
 */
export function describeLines(lines: readonly number[], total = lines.length): string {
  const groups: Array<{line: number; count: number}> = []
  for (const line of lines) {
    const last = groups.at(-1)
    if (last?.line === line) last.count++
    else groups.push({line, count: 1})
  }
  const shown = groups.slice(0, MAX_NAMED_LINES)
  const rest = total - shown.reduce((sum, group) => sum + group.count, 0)
  const text = shown.map(({line, count}) => (count > 1 ? `${line} (${count} times)` : String(line))).join(', ')
  const more = rest > 0 ? `, and ${rest} more ${rest === 1 ? 'occurrence' : 'occurrences'}` : ''
  return `${shown.length === 1 && rest === 0 ? 'line' : 'lines'} ${text}${more}`
}

/**
 * Where `oldText` would match `body` if whitespace were ignored (as `diff -w` ignores it):
 * the first and last line of up to MAX_NAMED_NEAR_MATCHES such places. Empty when `oldText`
 * is only whitespace, or when `body` is longer than EDIT_NEAR_MATCH_MAX_CHARS (the search
 * would cost more than the hint is worth). Used to explain a failed edit, never to apply one.
 * Both texts are compared with their whitespace removed, by plain `indexOf`, so the cost is
 * linear in practice whatever `oldText` holds (a regex with `\s*` between characters could
 * take the product of both lengths).
 */
export function whitespaceNearMatches(body: string, oldText: string): Array<{first: number; last: number}> {
  const needle = oldText.replace(/\s+/g, '')
  if (needle === '' || body.length > EDIT_NEAR_MATCH_MAX_CHARS) return []
  // The body without whitespace, and where each line's text starts in it.
  const lineStarts: number[] = []
  const parts: string[] = []
  let compactLength = 0
  for (let lineStart = 0; lineStart <= body.length; ) {
    let lineEnd = body.indexOf('\n', lineStart)
    if (lineEnd === -1) lineEnd = body.length
    const compact = body.slice(lineStart, lineEnd).replace(/\s+/g, '')
    lineStarts.push(compactLength)
    parts.push(compact)
    compactLength += compact.length
    lineStart = lineEnd + 1
  }
  const compact = parts.join('')
  /** 1-based line of the character at `position` of `compact`: the last line starting at or before it. */
  const lineOf = (position: number): number => {
    let low = 0
    let high = lineStarts.length - 1
    while (low < high) {
      const middle = Math.ceil((low + high) / 2)
      if ((lineStarts[middle] as number) <= position) low = middle
      else high = middle - 1
    }
    return low + 1
  }
  const found: Array<{first: number; last: number}> = []
  for (let at = compact.indexOf(needle); at !== -1 && found.length < MAX_NAMED_NEAR_MATCHES; at = compact.indexOf(needle, at + needle.length)) {
    found.push({first: lineOf(at), last: lineOf(at + needle.length - 1)})
  }
  return found
}

function notFoundError(body: string, oldText: string): BadInputError {
  const near = whitespaceNearMatches(body, oldText)
  if (near.length === 0) {
    return new BadInputError(
      'old_text was not found in the file. Read the file again and copy the text exactly, including ' +
        'whitespace and indentation (without the line numbers read adds).',
    )
  }
  const places = near.map(({first, last}) => (first === last ? String(first) : `${first}-${last}`))
  const where = `${near.length === 1 && near[0]?.first === near[0]?.last ? 'line' : 'lines'} ${places.join(', ')}`
  return new BadInputError(
    `old_text was not found in the file, but it matches ${where} if whitespace is ignored (indentation, tabs, ` +
      'spaces or line breaks differ). Nothing was changed. Read those lines and copy old_text exactly as they are.',
  )
}

/**
 * Applies an edit to the text of a file.
 *
 * - Replacement is literal: `$&`, `$$`, `$1` in `newText` stay as typed.
 * - `oldText` must occur exactly once, unless `replaceAll` (then at least once): a second
 *   occurrence that overlaps the first (`aaa` in `aaaa`) makes it ambiguous too. `replaceAll`
 *   replaces occurrences from the left, each looked for after the one before (`aa` in `aaa` once).
 * - Line breaks in `oldText` match `\n` and `\r\n` alike; line breaks in `newText` are written
 *   with the line ending of the place they go to (see `crlfAtOccurrences`), so a CRLF file stays CRLF,
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
  const hasBreak = /\r?\n/.test(newText)
  const withLf = newText.replaceAll('\r\n', '\n')
  const withCrlf = newText.replace(/\r?\n/g, '\r\n')
  const isCrlfAt = crlfAtOccurrences(body)
  const lines: number[] = []
  const spans: ChangedSpan[] = []
  // The new text is gathered in pieces joined every JOIN_EVERY_PARTS, so millions of
  // replacements never hold millions of small strings at once.
  const chunks: string[] = []
  let parts: string[] = [bom]
  let count = 0
  let position = 0
  let written = bom.length
  let line = 1
  let nextLineBreak = body.indexOf('\n')
  const overlapping = forEachOccurrence(body, oldText, (start, end) => {
    count++
    if (count <= EDIT_MAX_RECORDED_SPANS) {
      while (nextLineBreak !== -1 && nextLineBreak < start) {
        line++
        nextLineBreak = body.indexOf('\n', nextLineBreak + 1)
      }
      lines.push(line)
    }
    if (count > 1 && !replaceAll) return // refused below: only the count and lines matter
    const replacement = hasBreak ? (isCrlfAt(start) ? withCrlf : withLf) : newText
    const unchanged = body.slice(position, start)
    parts.push(unchanged, replacement)
    if (parts.length >= JOIN_EVERY_PARTS) {
      chunks.push(parts.join(''))
      parts = []
    }
    written += unchanged.length
    if (count <= EDIT_MAX_RECORDED_SPANS) {
      const oldStart = bom.length + start
      spans.push({oldStart, oldEnd: bom.length + end, newStart: written, newEnd: written + replacement.length})
    }
    written += replacement.length
    position = end
  })
  if (count === 0) throw notFoundError(body, oldText)
  if (count === 1 && !replaceAll && overlapping !== undefined) {
    const firstLine = lines[0] as number
    let overlappingLine = firstLine
    for (let at = body.indexOf('\n', spans[0]!.oldStart - bom.length); at !== -1 && at < overlapping; at = body.indexOf('\n', at + 1)) overlappingLine++
    throw new BadInputError(
      `old_text occurs 2 times, overlapping (${describeLines([...new Set([firstLine, overlappingLine])])}): one occurrence starts inside another, ` +
        'so which one to replace is unclear. Add surrounding text to old_text so that it occurs once, or set replace_all to replace ' +
        'from the left, without overlaps.',
    )
  }
  if (count > 1 && !replaceAll) {
    throw new BadInputError(
      `old_text occurs ${count} times (${describeLines(lines, count)}). Add surrounding lines to old_text ` +
        'so that it occurs once, or set replace_all to replace every occurrence.',
    )
  }
  parts.push(body.slice(position))
  chunks.push(parts.join(''))
  return {text: chunks.join(''), count, lines, spans}
}
