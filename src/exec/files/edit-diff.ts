/**
 * The unified diff an `edit` answers with. Only the neighbourhood of each replacement is handed
 * to the diff library (jsdiff), because its line diff of a whole large file takes seconds even
 * for a one-line change; the hunks are then moved to their place in the file. The output stops
 * once it passes a character budget, so a `replace_all` over a big file costs little too. Lines
 * are numbered by a cursor walking the text (no table of every line), regions too large for a
 * line diff are listed as removed and added lines, and a line longer than DIFF_MAX_LINE_CHARS
 * shows a window around its first changed character.
 */
import {type StructuredPatch, type StructuredPatchHunk, formatPatch, structuredPatch} from 'diff'

import {codePointCount, offsetAfterCodePoints} from '../code-points.js'

import type {ChangedSpan} from './text-edit.js'

/** Unchanged lines shown around each change, as `diff -u` and git show. */
export const DIFF_CONTEXT_LINES = 3

const BOM = '\uFEFF'

/** Characters of one diff line shown at most; a longer line is clipped around its change. */
export const DIFF_MAX_LINE_CHARS = 400

/**
 * Line numbers of a text, found by a cursor that walks from line to line (forward or back), so
 * positions asked for in roughly increasing order cost one scan of the text in all, and a very
 * long line is scanned once however often it is asked about.
 */
class LineCursor {
  /** 0-based index of the current line, its start offset, and the offset of its `\n` (-1: none). */
  private line = 0
  private start = 0
  private end: number

  constructor(private readonly text: string) {
    this.end = text.indexOf('\n')
  }

  /** 0-based index of the line holding `position`. */
  lineAt(position: number): number {
    while (position < this.start) this.back()
    while (this.end !== -1 && this.end < position) this.forward()
    return this.line
  }

  /** Offset where line `index` starts; past the last line, the text's length. */
  startOf(index: number): number {
    while (index < this.line) this.back()
    while (index > this.line) {
      if (this.end === -1) return this.text.length
      this.forward()
    }
    return this.start
  }

  /** Offset just after line `index` (after its `\n`), or the text's length. */
  endOf(index: number): number {
    // Past the last line, startOf stops on the last line, which has no `\n`.
    this.startOf(index)
    return this.end === -1 ? this.text.length : this.end + 1
  }

  private forward(): void {
    this.line++
    this.start = this.end + 1
    this.end = this.text.indexOf('\n', this.start)
  }

  private back(): void {
    this.line--
    this.end = this.start - 1
    this.start = this.end === 0 ? 0 : this.text.lastIndexOf('\n', this.end - 1) + 1
  }
}

interface SpanCluster {
  spans: ChangedSpan[]
  /** 0-based old lines of the first and the last span. */
  firstLine: number
  lastLine: number
  /** The span that would have joined the cluster had it not passed `maxChars`; the last cluster then. */
  next?: ChangedSpan
}

/**
 * Spans whose old lines lie within `2 × DIFF_CONTEXT_LINES` of each other, grouped, lazily. A
 * cluster stops growing once its old and new text together pass `maxChars` characters (the
 * budget's worth of `-` and `+` lines), and is then the last.
 * `following` is a replacement after `spans` that is not shown: the last cluster stops before it.
 */
function* clusterSpans(
  spans: ChangedSpan[],
  lines: LineCursor,
  maxChars: number,
  following: ChangedSpan | undefined,
): Generator<SpanCluster> {
  let current: SpanCluster | undefined
  for (const span of spans) {
    const firstLine = lines.lineAt(span.oldStart)
    const lastLine = lines.lineAt(Math.max(span.oldStart, span.oldEnd - 1))
    if (current && firstLine - current.lastLine - 1 <= 2 * DIFF_CONTEXT_LINES) {
      const first = current.spans[0] as ChangedSpan
      if (span.oldStart - first.oldStart + (span.newStart - first.newStart) > maxChars) {
        yield {...current, next: span}
        return
      }
      current.spans.push(span)
      current.lastLine = lastLine
    } else {
      if (current) yield current
      current = {spans: [span], firstLine, lastLine}
    }
  }
  if (current) yield following ? {...current, next: following} : current
}

function format(relative: string, isNewFile: boolean, hunks: StructuredPatchHunk[]): string {
  const patch: StructuredPatch = {
    oldFileName: isNewFile ? '/dev/null' : `a/${relative}`,
    newFileName: `b/${relative}`,
    oldHeader: undefined,
    newHeader: undefined,
    hunks,
  }
  const lines = formatPatch(patch).split('\n')
  // Start at the "---" line, as `git diff` does, leaving out jsdiff's "Index:" and "====" lines.
  const start = lines.findIndex((line) => line.startsWith('--- '))
  // The names as every answer shows them (the display form, already one line with its escapes),
  // not in the octal quoting jsdiff applies to names with special characters.
  const body = lines.slice(start + 2)
  return [`--- ${patch.oldFileName}`, `+++ ${patch.newFileName}`, ...body].join('\n').replace(/\n+$/, '')
}

/**
 * A unified diff (`DIFF_CONTEXT_LINES` of context) of an edit, with `a/` and `b/` names like
 * git's, the BOM left out, cut at a line once it passes `maxChars` characters with a note saying
 * so. Hunks are produced in file order and no more are computed once the budget is spent.
 * @param before the old text, or `undefined` for a new file (shown against /dev/null)
 * @param spans the replacements, in order, as `applyTextEdit` reports them (ignored for a new file)
 * @param options.isComplete false when `spans` are only the first replacements (applyTextEdit
 *   records at most EDIT_MAX_RECORDED_SPANS): the diff then stops before the last of them
 */
export function unifiedDiff(
  relative: string,
  before: string | undefined,
  after: string,
  spans: ChangedSpan[],
  maxChars: number,
  options: {isComplete?: boolean} = {},
): string {
  const isComplete = options.isComplete ?? true
  const {hunks, isCut} =
    before === undefined ? newFileHunks(after, maxChars) : editHunks(before, after, spans, maxChars, isComplete)
  return capText(format(relative, before === undefined, hunks), maxChars, isCut)
}

/** The one hunk of a new file, its lines only as far as `maxChars` needs. */
function newFileHunks(after: string, maxChars: number): {hunks: StructuredPatchHunk[]; isCut: boolean} {
  const body = after.startsWith(BOM) ? after.slice(BOM.length) : after
  if (body.length === 0) return {hunks: [], isCut: false}
  const lines = body.split('\n')
  const hasFinalBreak = lines.at(-1) === ''
  if (hasFinalBreak) lines.pop()
  const shown: string[] = []
  let size = 0
  for (const line of lines) {
    if (size > maxChars) break
    const clipped = `+${clipLine(line, 0)}`
    shown.push(clipped)
    size += codePointCount(clipped) + 1
  }
  const isCut = shown.length < lines.length
  if (!isCut && !hasFinalBreak) shown.push('\\ No newline at end of file')
  return {hunks: [{oldStart: 1, oldLines: 0, newStart: 1, newLines: lines.length, lines: shown}], isCut}
}

/**
 * Line edits jsdiff may explore for one cluster before giving up (its cost grows with lines ×
 * edits); a cluster with more changed lines is shown as one hunk listing old then new lines.
 */
export const DIFF_MAX_EDIT_LINES = 500

/**
 * `line` cut to about DIFF_MAX_LINE_CHARS characters (code points) around UTF-16 offset `at` (a
 * quarter of the window before it), with a note on each side saying how many characters were
 * left out. A surrogate pair is never split.
 */
export function clipLine(line: string, at: number): string {
  if (line.length <= DIFF_MAX_LINE_CHARS) return line
  const total = codePointCount(line)
  if (total <= DIFF_MAX_LINE_CHARS) return line
  const atChars = codePointCount(line, 0, Math.min(at, line.length))
  const fromChars = Math.max(0, Math.min(atChars - Math.floor(DIFF_MAX_LINE_CHARS / 4), total - DIFF_MAX_LINE_CHARS))
  const toChars = Math.min(total, fromChars + DIFF_MAX_LINE_CHARS)
  const from = offsetAfterCodePoints(line, fromChars)
  const to = from + offsetAfterCodePoints(line.slice(from), toChars - fromChars)
  const head = fromChars > 0 ? `[${fromChars} characters clipped]…` : ''
  const tail = toChars < total ? `…[${total - toChars} characters clipped]` : ''
  return `${head}${line.slice(from, to)}${tail}`
}

/** Offset of the first character where `a` and `b` differ (the shorter length if one is a prefix). */
function firstDifference(a: string, b: string): number {
  const length = Math.min(a.length, b.length)
  let at = 0
  while (at < length && a.charCodeAt(at) === b.charCodeAt(at)) at++
  return at
}

/**
 * Hunk lines (`-`, `+`, ` ` and `\` prefixed) with every line longer than DIFF_MAX_LINE_CHARS
 * clipped: a removed line and the added line paired with it (the k-th of a run of `-` lines and
 * the k-th of the `+` run after it) both around their first differing character, others at
 * their start.
 */
function clipHunkLines(lines: string[]): string[] {
  const clipped = [...lines]
  for (let index = 0; index < lines.length; ) {
    if (!(lines[index] as string).startsWith('-')) {
      const line = lines[index] as string
      if (line.length > DIFF_MAX_LINE_CHARS + 1) clipped[index] = line[0] + clipLine(line.slice(1), 0)
      index++
      continue
    }
    let removedEnd = index
    while (removedEnd < lines.length && (lines[removedEnd] as string).startsWith('-')) removedEnd++
    let addedEnd = removedEnd
    while (addedEnd < lines.length && (lines[addedEnd] as string).startsWith('+')) addedEnd++
    for (let k = index; k < removedEnd; k++) {
      const removed = (lines[k] as string).slice(1)
      const pairAt = removedEnd + (k - index)
      const added = pairAt < addedEnd ? (lines[pairAt] as string).slice(1) : undefined
      const at = added === undefined ? 0 : firstDifference(removed, added)
      clipped[k] = `-${clipLine(removed, at)}`
      if (added !== undefined) clipped[pairAt] = `+${clipLine(added, at)}`
    }
    for (let k = removedEnd + (removedEnd - index); k < addedEnd; k++) clipped[k] = `+${clipLine((lines[k] as string).slice(1), 0)}`
    index = addedEnd
  }
  return clipped
}

/**
 * A hunk that removes every line of `oldSlice` and adds every line of `newSlice`, lines clipped,
 * cut to `maxChars`. `isPartial`: the slices end inside a line whose rest is not shown.
 */
function plainHunk(
  oldSlice: string,
  newSlice: string,
  oldStart: number,
  newStart: number,
  maxChars: number,
  isPartial = false,
): StructuredPatchHunk {
  const side = (text: string, sign: string) => {
    // An emptied file has no line left; a partial slice is the start of a line that goes on.
    if (!isPartial && text.length === 0) return []
    const lines = (text.endsWith('\n') ? text.slice(0, -1) : text).split('\n').map((line) => sign + line)
    if (!isPartial && !text.endsWith('\n')) lines.push('\\ No newline at end of file')
    return lines
  }
  const oldLines = side(oldSlice, '-')
  const newLines = side(newSlice, '+')
  const count = (sideLines: string[]) => sideLines.filter((line) => !line.startsWith('\\')).length
  const lines: string[] = []
  let size = 0
  // Lines the two sides share at the start (and, unless the slices end inside a line, at the
  // end) are context, not changes.
  // The loops' bounds keep both indexes inside both sides.
  const same = (a: string | undefined, b: string | undefined) => (a as string).slice(1) === (b as string).slice(1)
  let head = 0
  while (head < oldLines.length - 1 && head < newLines.length - 1 && same(oldLines[head], newLines[head])) head++
  let tail = 0
  while (
    !isPartial &&
    tail < oldLines.length - head - 1 &&
    tail < newLines.length - head - 1 &&
    same(oldLines.at(-1 - tail), newLines.at(-1 - tail))
  ) {
    tail++
  }
  // A "\ No newline" note alone is no shared line: it stays with the changed last lines.
  if (tail > 0 && oldLines.at(-tail)!.startsWith('\\')) tail = 0
  const asContext = (line: string) => (line.startsWith('\\') ? line : ` ${line.slice(1)}`)
  const removed = oldLines.slice(head, oldLines.length - tail)
  const clipped = clipHunkLines([
    ...oldLines.slice(0, head).map(asContext),
    ...removed,
    ...newLines.slice(head, newLines.length - tail),
    ...newLines.slice(newLines.length - tail).map(asContext),
  ])
  if (isPartial) {
    for (const last of [head + removed.length - 1, clipped.length - 1]) clipped[last] += ' …[the rest of this line is not shown]'
  }
  for (const line of clipped) {
    if (size > maxChars) break
    lines.push(line)
    size += codePointCount(line) + 1
  }
  return {oldStart: oldStart + 1, oldLines: count(oldLines), newStart: newStart + 1, newLines: count(newLines), lines}
}

/**
 * Characters of old and new text together, around one cluster of replacements, handed to jsdiff
 * at most; a larger region is listed as removed then added lines instead.
 */
export const DIFF_MAX_LIBRARY_CHARS = 200_000

/**
 * The hunks of an edit, computed around each cluster of replacements until `maxChars` is spent.
 * A cluster too large for the budget is shown up to the replacement that spends it; with
 * `isComplete` false the last span only marks where the shown changes must stop.
 */
function editHunks(before: string, after: string, spans: ChangedSpan[], maxChars: number, isComplete: boolean) {
  const bom = before.startsWith(BOM) && after.startsWith(BOM) ? 1 : 0
  const oldText = before.slice(bom)
  const newText = after.slice(bom)
  const oldLines = new LineCursor(oldText)
  const newLines = new LineCursor(newText)
  const shifted = spans.map((span) => ({
    oldStart: span.oldStart - bom,
    oldEnd: span.oldEnd - bom,
    newStart: span.newStart - bom,
    newEnd: span.newEnd - bom,
  }))
  const following = isComplete ? undefined : shifted.pop()
  const hunks: StructuredPatchHunk[] = []
  let size = 0
  let isCut = following !== undefined
  for (const cluster of clusterSpans(shifted, oldLines, maxChars, following)) {
    if (size > maxChars) {
      isCut = true
      break
    }
    const fromLine = Math.max(0, cluster.firstLine - DIFF_CONTEXT_LINES)
    const oldFrom = oldLines.startOf(fromLine)
    const first = cluster.spans[0] as ChangedSpan
    // Outside the spans the texts agree, so the same stretch of the new text is found by the
    // shift of the cluster's first span (before it) and of its last span (after it).
    const newFrom = oldFrom + (first.newStart - first.oldStart)
    let taken = cluster.spans.findIndex((span) => span.oldEnd - oldFrom + (span.newEnd - newFrom) > maxChars - size)
    taken = taken === -1 ? cluster.spans.length : Math.max(1, taken)
    const next = cluster.spans[taken] ?? cluster.next
    const lastTaken = cluster.spans[taken - 1] as ChangedSpan
    let toLine = oldLines.lineAt(Math.max(lastTaken.oldStart, lastTaken.oldEnd - 1)) + DIFF_CONTEXT_LINES
    if (next) {
      // Shown up to the replacements before `next`: the context must stop before it.
      toLine = Math.min(toLine, oldLines.lineAt(next.oldStart) - 1)
      isCut = true
    }
    let oldTo = toLine >= fromLine ? oldLines.endOf(toLine) : oldFrom
    // The replacements inside the shown region (`next` may share a line with some of them).
    let inside = taken
    while (inside > 0 && (cluster.spans[inside - 1] as ChangedSpan).oldEnd > oldTo) inside--
    const newFromLine = newLines.lineAt(newFrom)
    let local: StructuredPatchHunk[]
    if (inside === 0) {
      // The first change shares its line with `next`: show that line up to `next`, clipped.
      const stop = next as ChangedSpan
      oldTo = stop.oldStart
      local = [plainHunk(oldText.slice(oldFrom, oldTo), newText.slice(newFrom, stop.newStart), fromLine, newFromLine, maxChars - size, true)]
    } else {
      const last = cluster.spans[inside - 1] as ChangedSpan
      const newTo = oldTo + (last.newEnd - last.oldEnd)
      const oldSlice = oldText.slice(oldFrom, oldTo)
      const newSlice = newText.slice(newFrom, newTo)
      const patch =
        oldSlice.length + newSlice.length <= DIFF_MAX_LIBRARY_CHARS
          ? structuredPatch('', '', oldSlice, newSlice, undefined, undefined, {
              context: DIFF_CONTEXT_LINES,
              maxEditLength: DIFF_MAX_EDIT_LINES,
            })
          : undefined
      local = patch
        ? patch.hunks.map((hunk) => ({
            ...hunk,
            oldStart: hunk.oldStart + fromLine,
            newStart: hunk.newStart + newFromLine,
            lines: clipHunkLines(hunk.lines),
          }))
        : [plainHunk(oldSlice, newSlice, fromLine, newFromLine, maxChars - size)]
    }
    for (const hunk of local) {
      hunks.push(hunk)
      size += hunk.lines.reduce((total, line) => total + codePointCount(line) + 1, 0)
    }
    if (next) break
  }
  return {hunks, isCut}
}

/**
 * `text` cut at a line boundary to at most `maxChars` characters (code points), with a note when
 * it was cut or when `isCut` says parts were already left out.
 */
export function capText(text: string, maxChars: number, isCut = false): string {
  let kept = text
  if (text.length > maxChars && codePointCount(text) > maxChars) {
    const limit = offsetAfterCodePoints(text, maxChars)
    const cut = text.lastIndexOf('\n', limit)
    kept = text.slice(0, cut > 0 ? cut : limit)
  }
  if (kept.length === text.length && !isCut) return text
  return `${kept}\n[Diff cut after ${codePointCount(kept)} characters: the rest is not shown. Read the file to see the result.]`
}
