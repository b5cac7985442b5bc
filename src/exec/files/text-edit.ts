/**
 * What an `edit` does to a text, decided without touching the disk: find `old_text`, check how
 * often it occurs, put `new_text` in its place literally, and keep the file's BOM and line
 * endings. The tool (src/exec/tools/edit.ts) reads and writes the file around this.
 */
import {createTwoFilesPatch} from 'diff'

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
}

interface Occurrence {
  index: number
  matched: string
}

/** The text of `value` with RegExp syntax escaped. */
function escapeRegExp(value: string): string {
  return value.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')
}

/**
 * The non-overlapping occurrences of `oldText` in `body`, left to right. A line break in
 * `oldText` (`\n` or `\r\n`) matches either kind in the text, so text copied from a `read`
 * answer (which shows no `\r`) matches a CRLF file, and a mixed file too.
 */
function findOccurrences(body: string, oldText: string): Occurrence[] {
  const pieces = oldText.split(/\r?\n/)
  const occurrences: Occurrence[] = []
  if (pieces.length === 1) {
    for (let index = body.indexOf(oldText); index !== -1; index = body.indexOf(oldText, index + oldText.length)) {
      occurrences.push({index, matched: oldText})
    }
    return occurrences
  }
  const pattern = new RegExp(pieces.map(escapeRegExp).join('\\r?\\n'), 'g')
  for (const match of body.matchAll(pattern)) occurrences.push({index: match.index, matched: match[0]})
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
  let position = 0
  for (const occurrence of occurrences) {
    parts.push(body.slice(position, occurrence.index), newText.replace(/\r?\n/g, lineEndingAt(body, occurrence)))
    position = occurrence.index + occurrence.matched.length
  }
  parts.push(body.slice(position))
  return {text: parts.join(''), count: occurrences.length, lines}
}

/** Edit distance (in lines) beyond which `unifiedDiff` gives up rather than spend long on it. */
export const DIFF_MAX_EDIT_LINES = 10_000

/**
 * A unified diff (3 lines of context) between two versions of the file at `relative`, BOM left
 * out; `undefined` when the two differ by more than `DIFF_MAX_EDIT_LINES` lines.
 * @param before the old text, or `undefined` for a file that did not exist (shown as /dev/null)
 */
export function unifiedDiff(relative: string, before: string | undefined, after: string): string | undefined {
  const strip = (text: string) => (text.startsWith(BOM) ? text.slice(BOM.length) : text)
  const patch = createTwoFilesPatch(
    before === undefined ? '/dev/null' : `a/${relative}`,
    `b/${relative}`,
    strip(before ?? ''),
    strip(after),
    undefined,
    undefined,
    {context: 3, maxEditLength: DIFF_MAX_EDIT_LINES},
  )
  if (patch === undefined) return undefined
  // Drop jsdiff's "Index:" and "====" lines so the answer reads like `git diff`.
  const lines = patch.split('\n')
  const start = lines.findIndex((line) => line.startsWith('--- '))
  return lines.slice(start).join('\n').trimEnd()
}

/** Cuts `text` to at most `maxChars` characters at a line boundary, with a note saying what was cut. */
export function capText(text: string, maxChars: number, what: string): string {
  if (text.length <= maxChars) return text
  const cut = text.lastIndexOf('\n', maxChars)
  const kept = text.slice(0, cut > 0 ? cut : maxChars)
  return `${kept}\n[${what} cut: ${text.length - kept.length} more characters not shown. Read the file to see the result.]`
}
