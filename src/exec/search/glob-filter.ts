import picomatch from 'picomatch'

import {BadInputError} from '../../errors.js'
import {mayHoldIncluded} from './folder-bases.js'
import {createGlobTester, type GlobSpec} from './scanner.js'

/** Glob patterns `search` accepts in one call. */
export const SEARCH_MAX_GLOBS = 32

/** Longest glob pattern `search` accepts, in characters (UTF-16 units, as picomatch counts them). */
export const SEARCH_MAX_GLOB_CHARS = 4096

/**
 * Builds the file filter of `search`'s `glob` argument, matched against workspace-relative
 * paths (`/` separators).
 *
 * A pattern without a slash matches a file's name at any depth (`*.ts`); a pattern with one
 * matches the whole relative path (`src/**`, `test/*.ts`), and so does one that starts with `/`
 * or `./`, which anchors it at the workspace root as in .gitignore and ripgrep (`/Makefile` is
 * only the root's). A pattern starting with `!`
 * excludes. A file passes when it matches at least one include pattern (or there are none) and
 * no exclude pattern. Dotfiles match like any other name. Syntax: picomatch (`*`, `**`, `?`,
 * `[abc]`, `{a,b}`, `\\` escapes the next character).
 * @throws BadInputError for an empty or malformed pattern (see `globSyntaxError`), one longer
 *   than SEARCH_MAX_GLOB_CHARS, or too many of them.
 */
export function createGlobFilter(patterns: readonly string[]): (relative: string) => boolean {
  const spec = compileGlobs(patterns)
  return spec ? createGlobTester(spec) : () => true
}

/**
 * `search`'s `glob` argument as regular expression sources (see `GlobSpec`), for matching in the
 * search workers under the search's time limit: a glob is matched by a backtracking regex, and a
 * crafted pattern against a crafted file name can take exponential time. Undefined when there is
 * no pattern. The patterns are read as `createGlobFilter` documents; a backslash that starts an
 * escape of the display form (`\\`, `\n`, `\r`, `\t`, `\xHH`, `\uHHHH`) matches that escape as
 * it appears in a shown path, any other backslash escapes the next glob character.
 * @throws BadInputError as `createGlobFilter` does.
 */
export function compileGlobs(patterns: readonly string[]): GlobSpec | undefined {
  if (patterns.length === 0) return undefined
  if (patterns.length > SEARCH_MAX_GLOBS) {
    throw new BadInputError(`Too many glob patterns (${patterns.length}); pass at most ${SEARCH_MAX_GLOBS}.`)
  }
  const includes: AnchoredGlob[] = []
  const excludes: AnchoredGlob[] = []
  for (const raw of patterns) {
    const isExclude = raw.startsWith('!')
    const {pattern, isOnPath} = anchoredGlob(isExclude ? raw.slice(1) : raw)
    if (pattern.trim() === '') {
      throw new BadInputError(`Glob pattern "${raw}" is empty. Use e.g. "*.ts" or "src/**".`)
    }
    if (raw.length > SEARCH_MAX_GLOB_CHARS) {
      throw new BadInputError(
        `A glob pattern has ${raw.length} characters; a pattern may have at most ${SEARCH_MAX_GLOB_CHARS}. Use a shorter glob, such as "*.ts" or "src/**".`,
      )
    }
    const problem = globSyntaxError(pattern)
    if (problem) throw new BadInputError(`Glob pattern ${JSON.stringify(raw)} is malformed: ${problem}.`)
    ;(isExclude ? excludes : includes).push({pattern: withDisplayEscapes(pattern), isOnPath})
  }
  const spec: GlobSpec = {}
  const onPath = (list: AnchoredGlob[]) => regexOf(list.filter((glob) => glob.isOnPath).map((glob) => glob.pattern))
  const onName = (list: AnchoredGlob[]) => regexOf(list.filter((glob) => !glob.isOnPath).map((glob) => glob.pattern))
  const [includePath, includeName, excludePath, excludeName] = [onPath(includes), onName(includes), onPath(excludes), onName(excludes)]
  if (includePath !== undefined) spec.includePath = includePath
  if (includeName !== undefined) spec.includeName = includeName
  if (excludePath !== undefined) spec.excludePath = excludePath
  if (excludeName !== undefined) spec.excludeName = excludeName
  return spec
}

/** A glob without its leading `/` or `./`, and whether it is matched against the whole relative path (see `createGlobFilter`). */
interface AnchoredGlob {
  pattern: string
  isOnPath: boolean
}

/** `pattern` (without its `!`) as `createGlobFilter` reads it: anchored by a slash, or matched against names. */
function anchoredGlob(pattern: string): AnchoredGlob {
  const anchor = /^\.?\//.exec(pattern)
  const body = anchor ? pattern.slice(anchor[0].length) : pattern
  return {pattern: body, isOnPath: anchor !== null || body.includes('/')}
}

/** One regex source matching any of `patterns` (picomatch syntax, dotfiles included), or undefined for none. */
function regexOf(patterns: string[]): string | undefined {
  if (patterns.length === 0) return undefined
  return patterns.map((pattern) => `(?:${picomatch.makeRe(pattern, {dot: true}).source})`).join('|')
}

/** A display-form escape in a glob (see `compileGlobs`). */
const DISPLAY_ESCAPE = /\\(?:\\|[nrt]|x[0-9a-fA-F]{2}|u[0-9a-fA-F]{4})/g

/** `pattern` with each display-form escape made literal for picomatch. */
function withDisplayEscapes(pattern: string): string {
  // Each backslash of the escape becomes a class holding a backslash: picomatch merges two
  // escaped backslashes in a row into one, so a shown backslash (two of them) could not match.
  return pattern.replace(DISPLAY_ESCAPE, (escape) => escape.replaceAll('\\', '[\\\\]'))
}

/**
 * What is wrong with a glob's syntax, or undefined when it is well formed: a `[` without its
 * `]`, a `{` without its `}`, a `(` without its `)`, or a lone `\\` at the end. picomatch reads
 * such a pattern as literal text, which would silently match nothing; ripgrep refuses the same
 * patterns ("unclosed character class", "unclosed alternate group").
 */
export function globSyntaxError(pattern: string): string | undefined {
  const open: Array<{character: string; at: number}> = []
  const closing: Record<string, string> = {'{': '}', '(': ')'}
  for (let index = 0; index < pattern.length; index++) {
    const character = pattern[index] as string
    if (character === '\\') {
      if (index === pattern.length - 1) return 'it ends with a "\\" that escapes nothing (write "\\\\" to match a backslash)'
      index++
    } else if (character === '[') {
      const end = classEnd(pattern, index)
      if (end === -1) {
        return `the "[" at character ${index + 1} starts a character class that has no closing "]" (write "\\[" to match a "[" itself)`
      }
      index = end
    } else if (character === '{' || character === '(') {
      open.push({character, at: index})
    } else if ((character === '}' || character === ')') && open.at(-1) && closing[open.at(-1)?.character as string] === character) {
      open.pop()
    }
  }
  const unclosed = open[0]
  if (unclosed) {
    const what = unclosed.character === '{' ? 'a group of alternatives ({a,b})' : 'a group'
    return (
      `the "${unclosed.character}" at character ${unclosed.at + 1} starts ${what} that has no closing ` +
      `"${closing[unclosed.character]}" (write "\\${unclosed.character}" to match a "${unclosed.character}" itself)`
    )
  }
  return undefined
}

/** The index of the `]` closing the class opened at `start`, or -1 (`[]a]` and `[!]a]` hold a `]`). */
function classEnd(pattern: string, start: number): number {
  let index = start + 1
  if (pattern[index] === '!' || pattern[index] === '^') index++
  if (pattern[index] === ']') index++
  for (; index < pattern.length; index++) {
    if (pattern[index] === '\\') index++
    else if (pattern[index] === '[' && pattern[index + 1] === ':') {
      const end = pattern.indexOf(':]', index + 2)
      if (end !== -1) index = end + 1
    } else if (pattern[index] === ']') return index
  }
  return -1
}

/**
 * For `search`'s `glob` argument, a test of whether a folder (workspace-relative) can hold a file
 * the include patterns pass, so the walk can leave other folders out: with `src/**` it never
 * lists `test/`. Undefined when that cannot be told from the patterns (no include pattern, or one
 * without a fixed leading folder, such as `*.ts` or `**\/x`); then every folder is walked.
 */
export function createFolderFilter(patterns: readonly string[]): ((folder: string) => boolean) | undefined {
  const bases = folderFilterBases(patterns)
  if (!bases) return undefined
  return (folder) => mayHoldIncluded(bases, folder)
}

/**
 * The fixed leading folders of the include patterns of `search`'s `glob` argument: a folder can
 * hold a file they pass only when it is one of them, lies below one or lies above one (see
 * createFolderFilter; the search workers' walk tasks test them with mayHoldIncluded). Undefined when some
 * include pattern has none.
 */
export function folderFilterBases(patterns: readonly string[]): string[] | undefined {
  const bases: string[] = []
  for (const raw of patterns) {
    if (raw.startsWith('!')) continue
    const {pattern, isOnPath} = anchoredGlob(raw)
    if (!isOnPath) return undefined
    const base = picomatch.scan(pattern).base.replace(/\/+$/, '')
    if (base === '' || base.includes('\\')) return undefined
    bases.push(base)
  }
  return bases.length === 0 ? undefined : bases
}
