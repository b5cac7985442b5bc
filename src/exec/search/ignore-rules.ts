import {compileIgnoreLine, type IgnorePattern} from './ignore-pattern.js'

/** One compiled pattern and the workspace-relative folder of its ignore file (`''` for the root). */
interface Rule {
  pattern: IgnorePattern
  /** The folder with a final `/` (`''` for the root): the paths the rule applies to start with it. */
  prefix: string
}

/** Whether ignore patterns match letters in either case: git's default `core.ignoreCase` for each system (true on macOS). */
export const IGNORE_CASE = process.platform === 'darwin'

/**
 * Git's ignore rules for one folder of the workspace: every ignore file from the workspace root
 * down to that folder, in one list.
 *
 * Git gives a `.gitignore` deeper in the tree precedence over the ones above it, and
 * `.git/info/exclude` the lowest precedence; within one file the last matching pattern wins
 * (gitignore(5)). Appending each file's patterns in that order and taking the last pattern that
 * matches gives exactly that outcome. Each pattern keeps its own file's folder: a pattern with a
 * `/` is matched against the path relative to that folder, one without against the last name
 * (see ignore-pattern.ts for the pattern syntax). Matching is case-sensitive except on macOS,
 * following git's default `core.ignoreCase` for each system.
 *
 * `isIgnored` judges a path by its own patterns only, as git does for each entry of a folder it
 * walks: a path inside an ignored folder is never asked about, since the walk does not enter
 * such a folder (so "a file inside an excluded folder cannot be re-included" holds by itself).
 *
 * Instances are immutable: `withFile` returns a new one.
 */
export class IgnoreRules {
  /** The rules that can match a file: all but the folder-only ones, in the same order. */
  private readonly fileRules: readonly Rule[]

  private constructor(private readonly rules: readonly Rule[]) {
    this.fileRules = rules.filter((rule) => !rule.pattern.isFolderOnly)
  }

  /** No rules: nothing is ignored. */
  static none(): IgnoreRules {
    return new IgnoreRules([])
  }

  /** Whether there is no rule at all (so nothing is ignored). */
  get isEmpty(): boolean {
    return this.rules.length === 0
  }

  /**
   * These rules followed (so overridden) by the patterns of an ignore file.
   * @param folder the workspace-relative folder the patterns are relative to, with `/`
   *   separators; `''` for the workspace root. For `.git/info/exclude` it is the folder holding `.git`.
   * @param text the ignore file's contents (`\n` or `\r\n` line breaks).
   */
  withFile(folder: string, text: string): IgnoreRules {
    const patterns: IgnorePattern[] = []
    for (const line of text.split('\n')) {
      const pattern = compileIgnoreLine(line.endsWith('\r') ? line.slice(0, -1) : line, IGNORE_CASE)
      if (pattern) patterns.push(pattern)
    }
    return this.withPatterns(folder, patterns)
  }

  /**
   * These rules followed by `patterns`, an ignore file's patterns already compiled (with
   * IGNORE_CASE), relative to `folder` as in withFile.
   */
  withPatterns(folder: string, patterns: readonly IgnorePattern[]): IgnoreRules {
    if (patterns.length === 0) return this
    const prefix = folder === '' ? '' : `${folder}/`
    return new IgnoreRules([...this.rules, ...patterns.map((pattern) => ({pattern, prefix}))])
  }

  /**
   * Whether a workspace-relative path (`/` separators, no leading `./`, names as git sees them) is
   * ignored by the last pattern that matches it, from the files of its folder and above.
   * @param isFolder whether the path is a folder: folder-only patterns (`build/`) match only folders.
   */
  isIgnored(relative: string, isFolder: boolean): boolean {
    const rules = isFolder ? this.rules : this.fileRules
    if (rules.length === 0) return false
    const name = relative.slice(relative.lastIndexOf('/') + 1)
    for (let index = rules.length - 1; index >= 0; index--) {
      const {pattern, prefix} = rules[index] as Rule
      if (prefix !== '' && !(relative.startsWith(prefix) && relative.length > prefix.length)) continue
      const isMatch = pattern.isOnPath ? pattern.matches(prefix === '' ? relative : relative.slice(prefix.length)) : pattern.matches(name)
      if (isMatch) return !pattern.isNegated
    }
    return false
  }
}
