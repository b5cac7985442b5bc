/**
 * What an Update File of a patch does to a file's text, decided without touching the disk: each
 * hunk is found in the file (seek-lines.ts), in order, and its old lines are replaced by its new
 * ones, as Codex's apply-patch does (codex-rs/apply-patch/src/lib.rs, `compute_replacements`):
 *
 * - A hunk's `@@ header` line is looked for first, from where the hunk before ended; its lines
 *   are then looked for after it.
 * - A hunk with no old lines (only `+` lines) adds them at the end of the file (before a final
 *   empty line), wherever its header lies, as Codex does.
 * - When a hunk's old lines are not found and the last of them is empty (a trailing blank line a
 *   model often adds), it is tried again without that line.
 * - The updated file ends with a line break, as Codex's does.
 *
 * Unlike Codex, the file's line endings and BOM are kept: lines are matched without their `\r`,
 * an unchanged line keeps its own line break, and an added line takes the line break of the
 * place it goes to (see `breakAt`); a leading BOM stays and is never part of a match. Codex also
 * drops a file's final blank line on any update; here it stays.
 */
import {BadInputError} from '../../errors.js'
import {escapeControls} from '../../text-escape.js'
import type {PatchHunk} from './patch-parser.js'
import {seekLines} from './seek-lines.js'
import type {ChangedSpan} from './text-edit.js'

const BOM = '\uFEFF'
/** Lines of a hunk an error quotes at most. */
const MAX_QUOTED_LINES = 12

/** A file's text as lines without their breaks, and whether each line's break is CRLF. */
interface SplitText {
  bom: string
  lines: string[]
  /** Per line: true for `\r\n`, false for `\n`, undefined for a last line without a break. */
  isCrlf: Array<boolean | undefined>
}

function splitText(content: string): SplitText {
  const bom = content.startsWith(BOM) ? BOM : ''
  const parts = content.slice(bom.length).split('\n')
  const lines: string[] = []
  const isCrlf: Array<boolean | undefined> = []
  parts.forEach((part, index) => {
    const hasBreak = index < parts.length - 1
    if (!hasBreak && part === '') return
    const crlf = hasBreak && part.endsWith('\r')
    lines.push(crlf ? part.slice(0, -1) : part)
    isCrlf.push(hasBreak ? crlf : undefined)
  })
  return {bom, lines, isCrlf}
}

/** One hunk's change: `oldCount` lines from `start` (0-based, in the old file) become `newLines`. */
interface Replacement {
  start: number
  oldCount: number
  newLines: string[]
}

/** The result of applying an Update File's hunks to a text. */
export interface PatchedText {
  /** The whole new text (BOM included when the old one had it). */
  text: string
  /** Where each change is in both texts, in order (for the diff). */
  spans: ChangedSpan[]
  /** The 1-based line (in the old text) where each hunk applied, in hunk order. */
  lines: number[]
}

function quotedLines(lines: readonly string[]): string {
  const shown = lines.slice(0, MAX_QUOTED_LINES).map((line) => `  ${escapeControls(line.length > 200 ? `${line.slice(0, 200)}…` : line)}`)
  if (lines.length > MAX_QUOTED_LINES) shown.push(`  … and ${lines.length - MAX_QUOTED_LINES} more lines`)
  return shown.join('\n')
}

/**
 * Where each hunk applies, in hunk order, as Codex computes it.
 * @throws BadInputError naming the hunk (its number and patch line) and the lines not found
 */
function findReplacements(lines: readonly string[], hunks: readonly PatchHunk[], shownPath: string): Replacement[] {
  const replacements: Replacement[] = []
  let from = 0
  hunks.forEach((hunk, index) => {
    const which = `hunk ${index + 1} of "*** Update File: ${shownPath}" (line ${hunk.line} of the patch)`
    if (hunk.header !== undefined) {
      const at = seekLines(lines, [hunk.header], from, false)
      if (at === undefined) {
        throw new BadInputError(
          `The "@@ ${escapeControls(hunk.header)}" line of ${which} was not found in the file${from > 0 ? ` after line ${from}` : ''}. ` +
            'Read the file again and copy that line as it is, or drop the text after "@@". Nothing was changed.',
        )
      }
      from = at + 1
    }
    if (hunk.oldLines.length === 0) {
      // Codex adds a hunk without old lines at the end of the file, before a final empty line.
      replacements.push({start: lines.at(-1) === '' ? lines.length - 1 : lines.length, oldCount: 0, newLines: hunk.newLines})
      return
    }
    let pattern = hunk.oldLines
    let newLines = hunk.newLines
    let at = seekLines(lines, pattern, from, hunk.isEndOfFile)
    if (at === undefined && pattern.at(-1) === '') {
      pattern = pattern.slice(0, -1)
      if (newLines.at(-1) === '') newLines = newLines.slice(0, -1)
      at = seekLines(lines, pattern, from, hunk.isEndOfFile)
    }
    if (at === undefined) {
      const place = hunk.isEndOfFile ? ' at the end of the file (the hunk ends with "*** End of File")' : from > 0 ? ` after line ${from}` : ''
      throw new BadInputError(
        `The lines ${which} expects (its context and "-" lines) were not found in the file${place}:\n${quotedLines(hunk.oldLines)}\n` +
          'Read the file again and copy those lines exactly (whitespace at the ends of lines may differ). Nothing was changed.',
      )
    }
    replacements.push({start: at, oldCount: pattern.length, newLines})
    from = at + pattern.length
  })
  return replacements
}

/**
 * Applies an Update File's hunks to the text of a file (see the module comment).
 * @param content the file's text, decoded from UTF-8 with its BOM (if any) still in front
 * @param shownPath the file's path as the patch names it, for messages
 * @throws BadInputError when a hunk's header or lines are not found (nothing is applied)
 */
export function applyHunks(content: string, hunks: readonly PatchHunk[], shownPath: string): PatchedText {
  const {bom, lines, isCrlf} = splitText(content)
  const found = findReplacements(lines, hunks, escapeControls(shownPath))
  const hunkLines = found.map((replacement) => replacement.start + 1)
  // Applied from the top, each after the one before; Codex sorts them by place too.
  const ordered = [...found].sort((a, b) => a.start - b.start)
  const firstBreak = isCrlf.find((value) => value !== undefined) ?? false
  /** The line break an added line at old line `index` takes: that line's, else the one before's, else the file's first. */
  const breakAt = (index: number): boolean => isCrlf[index] ?? isCrlf[index - 1] ?? firstBreak
  const parts: string[] = [bom]
  const spans: ChangedSpan[] = []
  let oldOffset = bom.length
  let newOffset = bom.length
  let line = 0
  const oldLength = (index: number) => (lines[index] as string).length + (isCrlf[index] === undefined ? 0 : isCrlf[index] ? 2 : 1)
  const copyLine = (index: number) => {
    const text = lines[index] as string
    const own = isCrlf[index]
    parts.push(text, own === undefined ? '' : own ? '\r\n' : '\n')
    oldOffset += oldLength(index)
    newOffset += text.length + (own === undefined ? 0 : own ? 2 : 1)
    if (own === undefined) {
      // The last line had no line break; the updated file ends with one (a change the diff shows).
      const lineBreak = firstBreak ? '\r\n' : '\n'
      parts.push(lineBreak)
      spans.push({oldStart: oldOffset, oldEnd: oldOffset, newStart: newOffset, newEnd: newOffset + lineBreak.length})
      newOffset += lineBreak.length
    }
  }
  for (const replacement of ordered) {
    // Overlapping hunks (Codex allows them) apply from where the one before ended.
    const start = Math.max(replacement.start, line)
    while (line < start) copyLine(line++)
    const span = {oldStart: oldOffset, oldEnd: oldOffset, newStart: newOffset, newEnd: newOffset}
    const lineBreak = breakAt(start) ? '\r\n' : '\n'
    const end = Math.min(start + replacement.oldCount, lines.length)
    for (; line < end; line++) oldOffset += oldLength(line)
    for (const added of replacement.newLines) {
      parts.push(added, lineBreak)
      newOffset += added.length + lineBreak.length
    }
    span.oldEnd = oldOffset
    span.newEnd = newOffset
    spans.push(span)
  }
  while (line < lines.length) copyLine(line++)
  return {text: parts.join(''), spans, lines: hunkLines}
}
