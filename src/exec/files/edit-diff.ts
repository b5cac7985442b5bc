/**
 * The unified diff an `edit` answers with. Only the neighbourhood of each replacement is handed
 * to the diff library (jsdiff), because its line diff of a whole large file takes seconds even
 * for a one-line change; the hunks are then moved to their place in the file. The output stops
 * once it passes a character budget, so a `replace_all` over a big file costs little too.
 */
import {type StructuredPatch, type StructuredPatchHunk, formatPatch, structuredPatch} from 'diff'

import type {ChangedSpan} from './text-edit.js'

/** Unchanged lines shown around each change, as `diff -u` and git show. */
export const DIFF_CONTEXT_LINES = 3

const BOM = '\uFEFF'

/** Offsets where each line of `text` starts (a final line break opens an empty last "line"). */
function lineStartsOf(text: string): number[] {
  const starts = [0]
  for (let at = text.indexOf('\n'); at !== -1; at = text.indexOf('\n', at + 1)) starts.push(at + 1)
  return starts
}

/** 0-based index of the line holding `position`, given the line starts. */
function lineIndexAt(starts: number[], position: number): number {
  let low = 0
  let high = starts.length - 1
  while (low < high) {
    const middle = (low + high + 1) >> 1
    if ((starts[middle] as number) <= position) low = middle
    else high = middle - 1
  }
  return low
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
 * cluster stops growing once its old text passes `maxChars` characters, and is then the last.
 */
function* clusterSpans(spans: ChangedSpan[], oldStarts: number[], maxChars: number): Generator<SpanCluster> {
  let current: SpanCluster | undefined
  for (const span of spans) {
    const firstLine = lineIndexAt(oldStarts, span.oldStart)
    const lastLine = lineIndexAt(oldStarts, Math.max(span.oldStart, span.oldEnd - 1))
    if (current && firstLine - current.lastLine - 1 <= 2 * DIFF_CONTEXT_LINES) {
      if (span.oldStart - (current.spans[0] as ChangedSpan).oldStart > maxChars) {
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
  if (current) yield current
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
  return lines.slice(start).join('\n').replace(/\n+$/, '')
}

/**
 * A unified diff (`DIFF_CONTEXT_LINES` of context) of an edit, with `a/` and `b/` names like
 * git's, the BOM left out, cut at a line once it passes `maxChars` characters with a note saying
 * so. Hunks are produced in file order and no more are computed once the budget is spent.
 * @param before the old text, or `undefined` for a new file (shown against /dev/null)
 * @param spans the replacements, in order, as `applyTextEdit` reports them (ignored for a new file)
 */
export function unifiedDiff(
  relative: string,
  before: string | undefined,
  after: string,
  spans: ChangedSpan[],
  maxChars: number,
): string {
  const {hunks, isCut} = before === undefined ? newFileHunks(after, maxChars) : editHunks(before, after, spans, maxChars)
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
    shown.push(`+${line}`)
    size += line.length + 2
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

/** A hunk that removes every line of `oldSlice` and adds every line of `newSlice`, cut to `maxChars`. */
function plainHunk(oldSlice: string, newSlice: string, oldStart: number, newStart: number, maxChars: number): StructuredPatchHunk {
  const side = (text: string, sign: string) => {
    const lines = (text.endsWith('\n') ? text.slice(0, -1) : text).split('\n').map((line) => sign + line)
    if (text.length > 0 && !text.endsWith('\n')) lines.push('\\ No newline at end of file')
    return lines
  }
  const oldLines = side(oldSlice, '-')
  const newLines = side(newSlice, '+')
  const lines: string[] = []
  let size = 0
  for (const line of [...oldLines, ...newLines]) {
    if (size > maxChars) break
    lines.push(line)
    size += line.length + 1
  }
  const count = (sideLines: string[]) => sideLines.filter((line) => !line.startsWith('\\')).length
  return {oldStart: oldStart + 1, oldLines: count(oldLines), newStart: newStart + 1, newLines: count(newLines), lines}
}

/**
 * The hunks of an edit, computed around each cluster of replacements until `maxChars` is spent.
 * A cluster too large for the budget is shown up to the replacement that spends it.
 */
function editHunks(before: string, after: string, spans: ChangedSpan[], maxChars: number) {
  const bom = before.startsWith(BOM) && after.startsWith(BOM) ? 1 : 0
  const oldText = before.slice(bom)
  const newText = after.slice(bom)
  const oldStarts = lineStartsOf(oldText)
  const newStarts = lineStartsOf(newText)
  const oldLineCount = oldText.endsWith('\n') ? oldStarts.length - 1 : oldStarts.length
  const shifted = spans.map((span) => ({
    oldStart: span.oldStart - bom,
    oldEnd: span.oldEnd - bom,
    newStart: span.newStart - bom,
    newEnd: span.newEnd - bom,
  }))
  const hunks: StructuredPatchHunk[] = []
  let size = 0
  let isCut = false
  // An all-changed stretch shows each of its lines twice (- and +): half the budget fills it.
  for (const cluster of clusterSpans(shifted, oldStarts, maxChars / 2)) {
    if (size > maxChars) {
      isCut = true
      break
    }
    const fromLine = Math.max(0, cluster.firstLine - DIFF_CONTEXT_LINES)
    const oldFrom = oldStarts[fromLine] as number
    const first = cluster.spans[0] as ChangedSpan
    // Outside the spans the texts agree, so the same stretch of the new text is found by the
    // shift of the cluster's first span (before it) and of its last span (after it).
    const newFrom = oldFrom + (first.newStart - first.oldStart)
    let taken = cluster.spans.findIndex((span) => span.oldEnd - oldFrom + (span.newEnd - newFrom) > maxChars - size)
    taken = taken === -1 ? cluster.spans.length : Math.max(1, taken)
    const last = cluster.spans[taken - 1] as ChangedSpan
    let toLine = Math.min(oldLineCount - 1, lineIndexAt(oldStarts, Math.max(last.oldStart, last.oldEnd - 1)) + DIFF_CONTEXT_LINES)
    const next = cluster.spans[taken] ?? cluster.next
    if (next) {
      // Shown up to `last` only: its trailing context must stop before the next replacement.
      toLine = Math.min(toLine, lineIndexAt(oldStarts, next.oldStart) - 1)
      isCut = true
    }
    const oldTo = toLine + 1 < oldStarts.length ? (oldStarts[toLine + 1] as number) : oldText.length
    const newTo = oldTo + (last.newEnd - last.oldEnd)
    const newFromLine = lineIndexAt(newStarts, newFrom)
    const oldSlice = oldText.slice(oldFrom, oldTo)
    const newSlice = newText.slice(newFrom, newTo)
    const patch = structuredPatch('', '', oldSlice, newSlice, undefined, undefined, {
      context: DIFF_CONTEXT_LINES,
      maxEditLength: DIFF_MAX_EDIT_LINES,
    })
    const local = patch
      ? patch.hunks.map((hunk) => ({...hunk, oldStart: hunk.oldStart + fromLine, newStart: hunk.newStart + newFromLine}))
      : [plainHunk(oldSlice, newSlice, fromLine, newFromLine, maxChars - size)]
    for (const hunk of local) {
      hunks.push(hunk)
      size += hunk.lines.reduce((total, line) => total + line.length + 1, 0)
    }
    if (next) break
  }
  return {hunks, isCut}
}

/**
 * `text` cut at a line boundary to at most `maxChars` characters, with a note when it was cut
 * or when `isCut` says parts were already left out.
 */
export function capText(text: string, maxChars: number, isCut = false): string {
  let kept = text
  if (text.length > maxChars) {
    const cut = text.lastIndexOf('\n', maxChars)
    kept = text.slice(0, cut > 0 ? cut : maxChars)
  }
  if (kept.length === text.length && !isCut) return text
  return `${kept}\n[Diff cut after ${kept.length} characters: the rest is not shown. Read the file to see the result.]`
}
