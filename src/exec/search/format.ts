import {SEARCH_MAX_ANSWER_CHARS, SEARCH_MAX_FILE_BYTES, SEARCH_MAX_RESULTS} from '../limits.js'
import type {FileListOutcome} from './list-files.js'
import type {QueryInput} from './query.js'
import type {SearchOutcome} from './run-search.js'

/** Paths of skipped files (too large, unreadable) named in one answer; the rest are counted. */
const SKIPPED_NAMED = 5

/**
 * The text of a `search` answer: one `path:line:text` line per match (workspace-relative path,
 * 1-based line), then notes in brackets: that the result cap cut the answer and how to narrow
 * it, which files were too large to search, and a one-line summary. When nothing matched, one
 * line says so and how much was searched. Pure, for testing.
 */
export function formatSearchAnswer(outcome: SearchOutcome, query: QueryInput, options: {hasGlobs: boolean; maxResults: number}): string {
  const lines = outcome.matches.map((match) => `${match.path}:${match.line}:${match.text}`)
  const where = outcome.isFile ? outcome.target : outcome.target === '.' ? 'the workspace' : `${outcome.target}/`
  const searched = `${outcome.filesSearched} ${outcome.filesSearched === 1 ? 'file' : 'files'} searched`
  if (lines.length === 0 && outcome.isFile && outcome.tooLarge.length > 0) {
    return `"${outcome.target}" was not searched: it is larger than ${SEARCH_MAX_FILE_BYTES / (1024 * 1024)} MiB. Use the read tool with offset/limit to look inside it.`
  }
  if (lines.length === 0) {
    let reason = ''
    if (outcome.isFile && outcome.binaryFiles > 0) reason = '; it is a binary file, which search skips'
    else if (outcome.filesSearched === 0 && options.hasGlobs) reason = '; no file matched the glob filter'
    lines.push(`No matches for ${describeQuery(query)} in ${where} (${searched}${reason}).`)
  } else if (outcome.isCut) {
    const count = `${outcome.matches.length} matching ${outcome.matches.length === 1 ? 'line' : 'lines'}`
    const narrow = 'Narrow the search (a subfolder as path, a glob such as "*.ts", a more specific query)'
    if (outcome.cutBy === 'answer_size') {
      lines.push(`[Stopped after ${count}: an answer holds at most ${SEARCH_MAX_ANSWER_CHARS} characters, and more lines match. ${narrow}.]`)
    } else {
      const raise = options.maxResults < SEARCH_MAX_RESULTS ? ` or raise max_results (at most ${SEARCH_MAX_RESULTS})` : ''
      lines.push(`[Stopped after ${count}; more exist. ${narrow}${raise}.]`)
    }
  } else {
    const files = new Set(outcome.matches.map((match) => match.path)).size
    lines.push(
      `[${outcome.matches.length} matching ${outcome.matches.length === 1 ? 'line' : 'lines'} in ${files} ` +
        `${files === 1 ? 'file' : 'files'}; ${searched}.]`,
    )
  }
  if (outcome.tooLarge.length > 0) {
    lines.push(
      `[Not searched, larger than ${SEARCH_MAX_FILE_BYTES / (1024 * 1024)} MiB: ${namedSkips(outcome.tooLarge)}. ` +
        `Use the read tool with offset/limit to look inside them.]`,
    )
  }
  if (outcome.unreadable.length > 0) {
    lines.push(`[Not searched, could not be read: ${namedSkips(outcome.unreadable.map(({path, why}) => `${path} (${why})`))}.]`)
  }
  if (outcome.ignoreNote !== undefined) lines.push(outcome.ignoreNote)
  return lines.join('\n')
}

/** The first SKIPPED_NAMED of `entries`, then how many more there are: `a, b and 3 more`. */
function namedSkips(entries: readonly string[]): string {
  const more = entries.length - SKIPPED_NAMED
  return `${entries.slice(0, SKIPPED_NAMED).join(', ')}${more > 0 ? ` and ${more} more` : ''}`
}

/** The query as the answer names it: quoted, with its mode. */
function describeQuery(query: QueryInput): string {
  const modes = [query.isRegex ? 'regex' : '', query.isCaseSensitive ? '' : 'ignoring case'].filter(Boolean)
  return `${JSON.stringify(query.query)}${modes.length > 0 ? ` (${modes.join(', ')})` : ''}`
}

/**
 * The text of a `search` answer without a query: one workspace-relative path per line, then a
 * note in brackets (how many matched, or that the cap cut the list and how to narrow it). When
 * no file matches, one line says so. Pure, for testing.
 */
export function formatFileListAnswer(outcome: FileListOutcome, globs: readonly string[], maxResults: number): string {
  const where = outcome.target === '.' ? 'the workspace' : `"${outcome.target}"`
  const patterns = globs.map((glob) => JSON.stringify(glob)).join(', ')
  const count = outcome.paths.length
  const notes: string[] = []
  if (outcome.unreadable.length > 0) {
    notes.push(`[Not listed, could not be read: ${namedSkips(outcome.unreadable.map(({path, why}) => `${path} (${why})`))}.]`)
  }
  if (outcome.ignoreNote !== undefined) notes.push(outcome.ignoreNote)
  if (count === 0) {
    const none = `No files match ${globs.length === 1 ? 'the glob' : 'the globs'} ${patterns} in ${where} (ignored files, .git and node_modules are not listed).`
    return [none, ...notes].join('\n')
  }
  const paths = `${count} ${count === 1 ? 'path' : 'paths'}`
  let note = `[${count} ${count === 1 ? 'file matches' : 'files match'} ${patterns} in ${where}.]`
  if (outcome.cutBy === 'answer_size') {
    note = `[Stopped after ${paths}: an answer holds at most ${SEARCH_MAX_ANSWER_CHARS} characters, and more files match. Narrow the glob or the path.]`
  } else if (outcome.isCut) {
    const raise = maxResults < SEARCH_MAX_RESULTS ? `, or raise max_results (at most ${SEARCH_MAX_RESULTS})` : ''
    note = `[Stopped after ${paths}; more files match. Narrow the glob or the path${raise}.]`
  }
  return [...outcome.paths, note, ...notes].join('\n')
}
