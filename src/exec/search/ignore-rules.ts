import ignore, {type Ignore} from 'ignore'

/**
 * Git's ignore rules for one folder of the workspace: every ignore file from the workspace root
 * down to that folder, merged into one rule list.
 *
 * Git gives a `.gitignore` deeper in the tree precedence over the ones above it, and
 * `.git/info/exclude` the lowest precedence; within one file the last matching pattern wins
 * (gitignore(5)). Appending each file's patterns in that order, rewritten relative to the
 * workspace root, gives exactly that outcome with "the last matching pattern wins" over one list,
 * which the `ignore` package implements, including negation, anchored and directory-only
 * patterns, and "a file inside an excluded folder cannot be re-included". Matching is
 * case-sensitive except on macOS, following git's default `core.ignoreCase` for each system.
 *
 * Instances are immutable: `withFile` returns a new one.
 */
export class IgnoreRules {
  private constructor(private readonly matcher: Ignore | undefined) {}

  /** No rules: nothing is ignored. */
  static none(): IgnoreRules {
    return new IgnoreRules(undefined)
  }

  /**
   * These rules followed (so overridden) by the patterns of an ignore file.
   * @param folder the workspace-relative folder the patterns are relative to, with `/`
   *   separators; `''` for the workspace root. For `.git/info/exclude` it is the folder holding `.git`.
   * @param text the ignore file's contents.
   */
  withFile(folder: string, text: string): IgnoreRules {
    const patterns: string[] = []
    for (const line of text.split('\n')) {
      const pattern = rebasePattern(line.endsWith('\r') ? line.slice(0, -1) : line, folder)
      if (pattern !== undefined) patterns.push(pattern)
    }
    if (patterns.length === 0) return this
    const matcher = ignore({ignorecase: process.platform === 'darwin'})
    if (this.matcher) matcher.add(this.matcher)
    return new IgnoreRules(matcher.add(patterns))
  }

  /**
   * Whether a workspace-relative path (`/` separators, no leading `./`) is ignored.
   * @param isFolder folders are tested as `name/`, so directory-only patterns (`build/`) apply.
   */
  isIgnored(relative: string, isFolder: boolean): boolean {
    if (!this.matcher) return false
    return this.matcher.ignores(isFolder ? `${relative}/` : relative)
  }
}

/**
 * Rewrites one line of an ignore file found in `folder` so that it means the same thing when
 * matched against paths relative to the workspace root (gitignore(5)): a pattern with a slash
 * at its start or middle is anchored to its file's folder; one without matches at any depth
 * below it. Returns undefined for blank lines and comments.
 * @param folder workspace-relative folder of the ignore file; `''` keeps the line unchanged.
 */
export function rebasePattern(line: string, folder: string): string | undefined {
  if (line.trim() === '' || line.startsWith('#')) return undefined
  if (folder === '') return line
  const isNegated = line.startsWith('!')
  const body = isNegated ? line.slice(1) : line
  // Git drops trailing unescaped spaces and treats one trailing slash as "folders only";
  // neither makes a pattern anchored.
  const core = body.replace(/(?<!\\) +$/, '').replace(/\/$/, '')
  if (core === '') return undefined
  const base = escapeGlob(folder)
  let rebased: string
  if (body.startsWith('/')) rebased = `${base}${body}`
  else if (core.includes('/')) rebased = `${base}/${body}`
  else rebased = `${base}/**/${body}`
  return isNegated ? `!${rebased}` : rebased
}

/** Escapes a folder name so that glob characters in it match literally. */
function escapeGlob(folder: string): string {
  const escaped = folder.replace(/[\\*?[\]]/g, '\\$&')
  return /^[!#]/.test(escaped) ? `\\${escaped}` : escaped
}
