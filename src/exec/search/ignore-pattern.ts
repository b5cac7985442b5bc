/**
 * One line of a git ignore file, parsed and compiled to a test of names and paths, following
 * gitignore(5) and git's wildmatch (`wildmatch.c`, with `WM_PATHNAME`):
 *
 * - `#` starts a comment; a blank line (only white space) matches nothing.
 * - Trailing spaces are dropped unless escaped with `\`; `!` negates; `\!` and `\#` are literal.
 * - One trailing `/` makes the pattern match folders only.
 * - A pattern with no other `/` matches the last name of a path, at any depth below its ignore
 *   file's folder; one with a `/` at its start or middle matches the path relative to that folder.
 * - `?` matches one character but `/`, `*` any run of characters without `/`, `[...]` one
 *   character of a class (`!` or `^` negates it; ranges and `[:alpha:]`-style classes; never `/`),
 *   `\` makes the next character literal.
 * - `**` matches across folders only as a whole segment: `**` followed by `/` at the start (any
 *   leading folders, or none), `/**` at the end (everything inside), `/**` followed by `/` in the
 *   middle (zero or more folders); any other `**` is one `*`.
 *
 * The commonest patterns skip the regex: a name without wildcards is compared whole, and `*` with
 * a literal tail (`*.map`, ripgrep's "extension" case) is a suffix test.
 */

/** A compiled ignore pattern. */
export interface IgnorePattern {
  /** Whether a match re-includes (`!pattern`) rather than ignores. */
  isNegated: boolean
  /** Whether only folders match (a trailing `/`). */
  isFolderOnly: boolean
  /**
   * Whether the pattern is tested against the path relative to its ignore file's folder (it has a
   * `/` at its start or middle); otherwise against the last name only.
   */
  isOnPath: boolean
  /** The test, on the last name or on the relative path (see `isOnPath`). */
  matches(subject: string): boolean
}

/** POSIX bracket classes wildmatch knows, as JavaScript class contents (ASCII, as git's `isalpha` and so on). */
const POSIX_CLASSES: Record<string, string> = {
  alnum: 'a-zA-Z0-9',
  alpha: 'a-zA-Z',
  blank: ' \\t',
  cntrl: '\\x00-\\x1f\\x7f',
  digit: '0-9',
  graph: '!-~',
  lower: 'a-z',
  print: ' -~',
  punct: '!-\\/:-@\\[-`{-~',
  space: ' \\t\\n\\r\\f\\v',
  upper: 'A-Z',
  xdigit: '0-9a-fA-F',
}

/**
 * Parses and compiles one line of an ignore file (its line break and any `\r` already removed).
 * Returns undefined for a comment, a blank line, or a pattern with nothing left to match (`/`).
 * @param ignoreCase whether letters match either case (git's `core.ignoreCase`).
 */
export function compileIgnoreLine(line: string, ignoreCase: boolean): IgnorePattern | undefined {
  if (line.trim() === '' || line.startsWith('#')) return undefined
  const isNegated = line.startsWith('!')
  let body = isNegated ? line.slice(1) : line
  body = dropTrailingSpaces(body)
  const isFolderOnly = body.endsWith('/') && !isEscapedAt(body, body.length - 1)
  if (isFolderOnly) body = body.slice(0, -1)
  let isOnPath = body.includes('/')
  if (body.startsWith('/')) body = body.slice(1)
  // `**/name` matches `name` at any depth, as `name` alone does: a test of the last name is cheaper.
  let rest = body
  while (rest.startsWith('**/')) rest = rest.slice(3)
  if (rest !== body && rest !== '' && !rest.includes('/')) {
    body = rest
    isOnPath = false
  }
  if (body === '') return undefined
  return {isNegated, isFolderOnly, isOnPath, matches: compileGlob(body, ignoreCase, isOnPath)}
}

/** `text` without its trailing spaces, except one escaped by a backslash (and those before it). */
function dropTrailingSpaces(text: string): string {
  let end = text.length
  while (end > 0 && text[end - 1] === ' ' && !isEscapedAt(text, end - 1)) end--
  return text.slice(0, end)
}

/** Whether the character at `index` follows an odd number of backslashes. */
function isEscapedAt(text: string, index: number): boolean {
  let backslashes = 0
  for (let at = index - 1; at >= 0 && text[at] === '\\'; at--) backslashes++
  return backslashes % 2 === 1
}

/**
 * A test of a whole subject against the wildmatch glob `glob`: a name, or (`isOnPath`) a
 * relative path.
 */
function compileGlob(glob: string, ignoreCase: boolean, isOnPath: boolean): (subject: string) => boolean {
  if (!ignoreCase) {
    const literal = literalOf(glob)
    if (literal !== undefined) return (subject) => subject === literal
    if (!isOnPath && glob.startsWith('*') && !glob.startsWith('**')) {
      const tail = literalOf(glob.slice(1))
      if (tail !== undefined) return (subject) => subject.endsWith(tail)
    }
  }
  const source = globSource(glob)
  if (source === undefined) return () => false
  const regex = new RegExp(`^${source}$`, ignoreCase ? 'iu' : 'u')
  // Most paths differ from an anchored pattern in its leading literal (`copy-2/` of
  // `copy-2/**/test`): a prefix test turns them away before the regex runs.
  const head = ignoreCase ? '' : literalHead(glob)
  if (head !== '') return (subject) => subject.startsWith(head) && regex.test(subject)
  return (subject) => regex.test(subject)
}

/** The literal text `glob` starts with, up to its first wildcard or escape. */
function literalHead(glob: string): string {
  const end = glob.search(/[*?[\\]/)
  return end === -1 ? glob : glob.slice(0, end)
}

/** The text `glob` matches when it has no wildcard (escapes removed), else undefined. */
function literalOf(glob: string): string | undefined {
  let text = ''
  for (let index = 0; index < glob.length; index++) {
    const character = glob[index] as string
    if (character === '*' || character === '?' || character === '[') return undefined
    if (character === '\\') {
      index++
      if (index === glob.length) return undefined // a lone trailing backslash matches nothing
      text += glob[index] as string
    } else text += character
  }
  return text
}

/**
 * The regex source (for the `u` flag) of the wildmatch glob `glob`, without anchors; undefined
 * when the glob can match nothing (a `[` without its `]`, an unknown `[:class:]`, a lone
 * trailing `\\`), as git's wildmatch then gives up.
 */
function globSource(glob: string): string | undefined {
  const characters = Array.from(glob)
  let source = ''
  for (let index = 0; index < characters.length; index++) {
    const character = characters[index] as string
    if (character === '*') {
      let end = index
      while (characters[end + 1] === '*') end++
      const isDouble = end > index
      const atSegmentStart = index === 0 || characters[index - 1] === '/'
      const atSegmentEnd = end + 1 === characters.length || characters[end + 1] === '/'
      if (isDouble && atSegmentStart && atSegmentEnd) {
        if (end + 1 === characters.length) {
          // `/**` at the end: everything inside (at least one character); `**` alone: anything.
          source += index === 0 ? '[\\s\\S]*' : '[\\s\\S]+'
        } else {
          // `**/` at the start or `/**/` in the middle: zero or more whole folders.
          source += '(?:[^/]*/)*'
          end++ // the `/` after `**` is part of it
        }
      } else source += '[^/]*'
      index = end
    } else if (character === '?') {
      source += '[^/]'
    } else if (character === '[') {
      const parsed = bracketSource(characters, index)
      if (!parsed) return undefined
      source += parsed.source
      index = parsed.end
    } else if (character === '\\') {
      index++
      if (index === characters.length) return undefined
      source += escapeCharacter(characters[index] as string)
    } else source += escapeCharacter(character)
  }
  return source
}

/** One character as a regex matching it alone. */
function escapeCharacter(character: string): string {
  return `\\u{${(character.codePointAt(0) as number).toString(16)}}`
}

/**
 * The class starting at `characters[start]` (`[`) as a regex that never matches `/`, and the
 * index of its closing `]`; undefined when it has none or names an unknown `[:class:]`.
 */
function bracketSource(characters: string[], start: number): {source: string; end: number} | undefined {
  let index = start + 1
  let isNegated = false
  if (characters[index] === '!' || characters[index] === '^') {
    isNegated = true
    index++
  }
  const parts: string[] = []
  let isFirst = true
  for (; index < characters.length; index++) {
    let character = characters[index] as string
    if (character === ']' && !isFirst) {
      const members = parts.join('')
      // An empty class matches nothing; a negated one matches any character but `/`.
      const source = isNegated ? `[^/${members}]` : members === '' ? '(?!)' : `(?!/)[${members}]`
      return {source, end: index}
    }
    isFirst = false
    if (character === '[' && characters[index + 1] === ':') {
      const close = characters.indexOf(':', index + 2)
      if (close !== -1 && characters[close + 1] === ']') {
        const name = characters.slice(index + 2, close).join('')
        const members = POSIX_CLASSES[name]
        if (members === undefined) return undefined
        parts.push(members)
        index = close + 1
        continue
      }
    }
    if (character === '\\') {
      index++
      if (index === characters.length) return undefined
      character = characters[index] as string
    }
    if (characters[index + 1] === '-' && characters[index + 2] !== undefined && characters[index + 2] !== ']') {
      let last = characters[index + 2] as string
      index += 2
      if (last === '\\') {
        index++
        if (index === characters.length) return undefined
        last = characters[index] as string
      }
      // A range whose end is below its start matches nothing (as in git), never a bad regex.
      if ((last.codePointAt(0) as number) >= (character.codePointAt(0) as number)) parts.push(`${escapeCharacter(character)}-${escapeCharacter(last)}`)
      continue
    }
    parts.push(escapeCharacter(character))
  }
  return undefined
}
