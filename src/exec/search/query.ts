import {BadInputError} from '../../errors.js'
import type {ScanQuery} from './scanner.js'

/** What `search` looks for, as a call gives it. */
export interface QueryInput {
  query: string
  /** JavaScript regex syntax when true; exact text when false. */
  isRegex: boolean
  isCaseSensitive: boolean
}

/**
 * Turns a call's query into what the scanner runs. Exact, case-sensitive text stays a literal
 * (searched as bytes); case-insensitive text becomes an escaped regex with the `i` flag. A regex
 * is JavaScript syntax, run in Unicode mode (the `u` flag) whenever the pattern is valid there:
 * `.` and classes then match whole code points (an emoji is one character), `\p{Lu}` and the like
 * work, and case-insensitive matching folds as Unicode does (`k` matches the Kelvin sign), as in
 * ripgrep. A pattern valid only without it (identity escapes such as `\-` or `\_`, which most
 * tools accept) runs without it, so such patterns keep working.
 * @throws BadInputError for an empty query, one with a line break (matches never span lines), or an
 *   invalid regex, with the parser's reason.
 */
export function compileQuery(input: QueryInput): ScanQuery {
  if (input.query.length === 0) throw new BadInputError('The query is empty. Pass the text (or regex) to search for.')
  if (input.query.includes('\n')) {
    throw new BadInputError('The query contains a line break, but search matches within single lines. Search for one line of it.')
  }
  const caseFlag = input.isCaseSensitive ? '' : 'i'
  if (!input.isRegex) {
    return input.isCaseSensitive ? {kind: 'literal', text: input.query} : {kind: 'regex', source: escapeRegex(input.query), flags: `${caseFlag}u`}
  }
  if (isValidRegex(input.query, `${caseFlag}u`)) return {kind: 'regex', source: input.query, flags: `${caseFlag}u`}
  try {
    new RegExp(input.query, caseFlag)
  } catch (error) {
    const reason = error instanceof Error ? error.message : String(error)
    throw new BadInputError(
      `Invalid regex ${JSON.stringify(input.query)}: ${reason}. Fix the pattern (JavaScript syntax), ` +
        `or pass regex: false to search for the text exactly.`,
    )
  }
  return {kind: 'regex', source: input.query, flags: caseFlag}
}

function isValidRegex(source: string, flags: string): boolean {
  try {
    new RegExp(source, flags)
    return true
  } catch {
    return false
  }
}

/** Escapes every regex syntax character, so the text matches itself (valid with and without the `u` flag). */
export function escapeRegex(text: string): string {
  return text.replace(/[\\^$.*+?()[\]{}|/]/g, '\\$&')
}
