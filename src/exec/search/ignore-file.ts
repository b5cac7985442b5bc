/**
 * Reading one ignore file (`.gitignore`, `.git/info/exclude`) for `search`, within limits: a file
 * planted in the workspace must neither hang the walk, nor fill the server, nor stop the search.
 * The file is read by `readNamedFile` (no link followed, no FIFO or device waited on, at most
 * IGNORE_FILE_MAX_BYTES); a line longer than IGNORE_FILE_MAX_LINE_BYTES, and a rule the matcher
 * cannot compile, are left out; what was left out is described for the answer's note.
 */

import {type NamedFile, readNamedFile, readNamedFileSync} from '../../named-file.js'
import {IGNORE_FILE_MAX_BYTES, IGNORE_FILE_MAX_LINE_BYTES} from '../limits.js'
import {type IgnorePattern, compileIgnoreLine} from './ignore-pattern.js'
import {IGNORE_CASE} from './ignore-rules.js'

/** An ignore file's usable rules, and what of it was left out. */
export interface IgnoreFileText {
  /** The lines kept, joined by `\n` (a comment or blank line stands in for each one left out, so line numbers hold). */
  text: string
  /** What was left out, as a short phrase ("2 lines longer than 4096 bytes"), or undefined when nothing was. */
  skipped?: string
  /** The kept rules compiled (with IGNORE_CASE), in order, for IgnoreRules.withPatterns: each rule is compiled once. */
  patterns: IgnorePattern[]
}

/**
 * Reads the ignore file at `path` within the limits above.
 * @returns undefined when nothing is there, it is not a regular file (git does not read a
 *   symlinked ignore file either) or it cannot be read
 */
export async function readIgnoreFile(path: string | Buffer): Promise<IgnoreFileText | undefined> {
  return rulesOf(await readNamedFile(path, IGNORE_FILE_MAX_BYTES).catch(() => undefined))
}

/** `readIgnoreFile` for a thread that may block (a search worker's walk task). */
export function readIgnoreFileSync(path: string | Buffer): IgnoreFileText | undefined {
  let found: NamedFile | undefined
  try {
    found = readNamedFileSync(path, IGNORE_FILE_MAX_BYTES)
  } catch {
    found = undefined
  }
  return rulesOf(found)
}

/** The usable rules of what reading an ignore file found (see readIgnoreFile). */
function rulesOf(found: NamedFile | undefined): IgnoreFileText | undefined {
  if (found?.kind !== 'file') return undefined
  let {bytes} = found
  if (found.isCut) {
    // The last line read is cut short: leave it out rather than use a part of it as a rule.
    const lastBreak = bytes.lastIndexOf(0x0a)
    bytes = bytes.subarray(0, lastBreak + 1)
  }
  return usableRules(bytes, found.isCut)
}

/**
 * The lines of an ignore file's bytes `bytes` that can serve as rules, and a phrase for the rest.
 * Pure, for testing.
 * @param isCut whether the file went on past IGNORE_FILE_MAX_BYTES
 */
export function usableRules(bytes: Buffer, isCut: boolean): IgnoreFileText {
  let tooLong = 0
  let unusable = 0
  const lines: string[] = []
  const patterns: IgnorePattern[] = []
  let start = 0
  while (start < bytes.length) {
    let end = bytes.indexOf(0x0a, start)
    if (end === -1) end = bytes.length
    if (end - start > IGNORE_FILE_MAX_LINE_BYTES) {
      tooLong++
      lines.push('')
    } else {
      const line = bytes.toString('utf8', start, end)
      const compiled = compiledRule(line)
      if (compiled === null) {
        unusable++
        lines.push('')
      } else {
        lines.push(line)
        if (compiled) patterns.push(compiled)
      }
    }
    start = end + 1
  }
  const parts: string[] = []
  if (tooLong > 0) parts.push(`${tooLong} ${tooLong === 1 ? 'line' : 'lines'} longer than ${IGNORE_FILE_MAX_LINE_BYTES} bytes`)
  if (unusable > 0) parts.push(`${unusable} ${unusable === 1 ? 'rule' : 'rules'} that cannot be compiled`)
  if (isCut) parts.push(`everything past its first ${IGNORE_FILE_MAX_BYTES / 1024} KiB`)
  const text = lines.join('\n')
  return parts.length > 0 ? {text, skipped: parts.join(', '), patterns} : {text, patterns}
}

/**
 * `line` compiled by ignore-pattern.ts (its regular expressions are built then, so a rule too large
 * for the regex engine throws here, not mid-walk): the pattern, undefined for a comment or blank
 * line, or null for a rule that cannot be compiled.
 */
function compiledRule(line: string): IgnorePattern | undefined | null {
  try {
    const pattern = compileIgnoreLine(line.endsWith('\r') ? line.slice(0, -1) : line, IGNORE_CASE)
    pattern?.matches('a')
    return pattern
  } catch {
    return null
  }
}

/** Ignore files named in one answer's note; the rest are counted. */
const NOTED_FILES = 3

/** The ignore files of one walk that had something left out, for the answer's one note. */
export class IgnoreFileNotes {
  private readonly named: string[] = []
  private count = 0

  /**
   * Records that the ignore file at `path` (workspace-relative, display form) had `skipped` left out.
   * Each file is recorded once however often the walk reads it.
   */
  add(path: string, skipped: string): void {
    const entry = `${path} (${skipped})`
    if (this.named.includes(entry)) return
    this.count++
    if (this.named.length < NOTED_FILES) this.named.push(entry)
  }

  /** The note for the answer, in brackets, or undefined when no ignore file had anything left out. */
  note(): string | undefined {
    if (this.count === 0) return undefined
    const more = this.count - this.named.length
    return (
      `[Ignore rules skipped: ${this.named.join(', ')}${more > 0 ? ` and ${more} more files` : ''}; ` +
      'files those rules would ignore may be searched.]'
    )
  }
}
