import picomatch from 'picomatch'

import {BadInputError} from '../../errors.js'

/** Glob patterns `search` accepts in one call. */
export const SEARCH_MAX_GLOBS = 32

/**
 * Builds the file filter of `search`'s `glob` argument, matched against workspace-relative
 * paths (`/` separators).
 *
 * A pattern without a slash matches a file's name at any depth (`*.ts`); a pattern with one
 * matches the whole relative path (`src/**`, `test/*.ts`). A pattern starting with `!`
 * excludes. A file passes when it matches at least one include pattern (or there are none) and
 * no exclude pattern. Dotfiles match like any other name. Syntax: picomatch (`*`, `**`, `?`,
 * `[abc]`, `{a,b}`).
 * @throws BadInputError for an empty pattern or too many of them.
 */
export function createGlobFilter(patterns: readonly string[]): (relative: string) => boolean {
  if (patterns.length === 0) return () => true
  if (patterns.length > SEARCH_MAX_GLOBS) {
    throw new BadInputError(`Too many glob patterns (${patterns.length}); pass at most ${SEARCH_MAX_GLOBS}.`)
  }
  const includes: string[] = []
  const excludes: string[] = []
  for (const raw of patterns) {
    const isExclude = raw.startsWith('!')
    const pattern = (isExclude ? raw.slice(1) : raw).replace(/^\.\//, '')
    if (pattern.trim() === '') {
      throw new BadInputError(`Glob pattern "${raw}" is empty. Use e.g. "*.ts" or "src/**".`)
    }
    ;(isExclude ? excludes : includes).push(pattern)
  }
  const isIncluded = includes.length > 0 ? anyOf(includes) : () => true
  const isExcluded = excludes.length > 0 ? anyOf(excludes) : () => false
  return (relative) => isIncluded(relative) && !isExcluded(relative)
}

/** A matcher for any of `patterns`; those without a slash are matched against the file name. */
function anyOf(patterns: readonly string[]): (relative: string) => boolean {
  const options = {dot: true}
  const onPath = patterns.filter((pattern) => pattern.includes('/'))
  const onName = patterns.filter((pattern) => !pattern.includes('/'))
  const matchesPath = onPath.length > 0 ? picomatch(onPath, options) : () => false
  const matchesName = onName.length > 0 ? picomatch(onName, options) : () => false
  return (relative) => matchesPath(relative) || matchesName(relative.slice(relative.lastIndexOf('/') + 1))
}
