/**
 * Keeps only allowed keys of a git config file (DESIGN §4.9): what the sandbox leaves of the
 * config of a git folder a command made (sandbox-leftovers.ts, with protected-paths.ts's
 * NEW_REPOSITORY_CONFIG_KEYS), so that the repository still works while nothing in its config
 * runs a program or pulls in another file.
 *
 * Safe by construction rather than by parsing git's grammar exactly: a file is left as it is only
 * when every line is one this reader understands (blank, a comment, a `[section]` or
 * `[section "sub"]` header, a `key = value` whose value ends on its line) and every key is
 * allowed; otherwise the file is written anew from the allowed keys alone, each value quoted and
 * escaped, so that whatever this reader misread, the new file holds no other key. A line it does
 * not understand (a value continued on the next line, a header it cannot read) is dropped and
 * counted.
 */

/** One `section.key` (or `section.subsection.key`) of a config, as read. */
interface ConfigEntry {
  /** The section's name in lower case. */
  section: string
  /** The subsection, as written (case matters); undefined when there is none. */
  subsection: string | undefined
  /** The key's name in lower case. */
  key: string
  /** The value with quotes and escapes undone; undefined for a key given without `=` (true). */
  value: string | undefined
}

/** What filterGitConfig made of a config. */
export interface FilteredConfig {
  /** Whether the file stays as it is (every line understood, every key allowed). */
  isUnchanged: boolean
  /** The new content (the original when unchanged). */
  text: string
  /** The keys dropped, as `section.key` or `section.subsection.key` (in lower case but for the subsection), in order, each once. */
  dropped: string[]
  /** Lines dropped because this reader does not understand them. */
  unreadLines: number
}

const HEADER = /^\s*\[([A-Za-z0-9.-]+)(?:\s+"((?:[^"\\\n]|\\["\\])*)")?\]/
const ENTRY = /^\s*([A-Za-z][A-Za-z0-9-]*)\s*(?:=(.*))?$/
const COMMENT_OR_BLANK = /^\s*([#;].*)?$/

/**
 * A config value with its quotes and escapes undone and a trailing comment dropped, as git reads
 * it; undefined when it goes on to the next line (a trailing `\`) or holds an escape git refuses.
 */
function parseValue(text: string): string | undefined {
  let out = ''
  let pendingSpace = ''
  let isQuoted = false
  for (let index = 0; index < text.length; index++) {
    const char = text[index] as string
    if (char === '\\') {
      const next = text[++index]
      if (next === undefined) return undefined // continued on the next line
      const escaped = ({n: '\n', t: '\t', b: '\b', '\\': '\\', '"': '"'} as Record<string, string>)[next]
      if (escaped === undefined) return undefined
      out += pendingSpace + escaped
      pendingSpace = ''
    } else if (char === '"') {
      out += pendingSpace
      pendingSpace = ''
      isQuoted = !isQuoted
    } else if (!isQuoted && (char === '#' || char === ';')) {
      break
    } else if (!isQuoted && (char === ' ' || char === '\t')) {
      if (out !== '') pendingSpace += char
    } else {
      out += pendingSpace + char
      pendingSpace = ''
    }
  }
  return isQuoted ? undefined : out
}

/** The entry's name for messages and for matching: `section.key` or `section.subsection.key`. */
function entryName(entry: ConfigEntry): string {
  return entry.subsection === undefined ? `${entry.section}.${entry.key}` : `${entry.section}.${entry.subsection}.${entry.key}`
}

/** Whether `entry` matches one of `allowed` (`section.key`, `section.*.key`), ignoring case but for the subsection. */
function isAllowed(entry: ConfigEntry, allowed: readonly string[]): boolean {
  return allowed.some((pattern) => {
    const parts = pattern.toLowerCase().split('.')
    if (parts.length === 2) return entry.subsection === undefined && parts[0] === entry.section && parts[1] === entry.key
    return parts.length === 3 && parts[1] === '*' && entry.subsection !== undefined && parts[0] === entry.section && parts[2] === entry.key
  })
}

/** The value as written back: quoted, with `\`, `"`, newline, tab and backspace escaped. */
function quoteValue(value: string): string {
  return `"${value.replace(/[\\"\n\t\b]/g, (char) => ({'\\': '\\\\', '"': '\\"', '\n': '\\n', '\t': '\\t', '\b': '\\b'})[char] as string)}"`
}

/** Control characters other than newline, tab and backspace, which the written form could not hold. */
const UNWRITABLE = /[\u0000-\u0007\u000b-\u001f\u007f]/

/**
 * Keeps the keys of `config` (the text of a git config file) that `allowed` names (patterns as
 * NEW_REPOSITORY_CONFIG_KEYS). Pure.
 */
export function filterGitConfig(config: string, allowed: readonly string[]): FilteredConfig {
  const kept: ConfigEntry[] = []
  const dropped = new Set<string>()
  let unreadLines = 0
  let section: {name: string; subsection: string | undefined} | undefined
  for (const raw of config.replace(/^\uFEFF/, '').split('\n')) {
    let line = raw.replace(/\r$/, '')
    const header = HEADER.exec(line)
    if (header) {
      const [name, sub] = [(header[1] as string).toLowerCase(), header[2]]
      // `[section.sub]` is the old spelling of `[section "sub"]`, its subsection in lower case.
      const dot = name.indexOf('.')
      section =
        sub !== undefined
          ? {name, subsection: sub.replace(/\\(["\\])/g, '$1')}
          : dot < 0
            ? {name, subsection: undefined}
            : {name: name.slice(0, dot), subsection: name.slice(dot + 1)}
      line = line.slice(header[0].length)
    }
    if (COMMENT_OR_BLANK.test(line)) continue
    const entry = ENTRY.exec(line)
    const value = entry?.[2] === undefined ? undefined : parseValue(entry[2])
    if (!entry || !section || (entry[2] !== undefined && value === undefined)) {
      unreadLines++
      continue
    }
    const read: ConfigEntry = {section: section.name, subsection: section.subsection, key: (entry[1] as string).toLowerCase(), value}
    const isWritable = !UNWRITABLE.test(value ?? '') && !/["\\\n]/.test(read.subsection ?? '')
    if (isAllowed(read, allowed) && isWritable) kept.push(read)
    else dropped.add(entryName(read))
  }
  if (dropped.size === 0 && unreadLines === 0) return {isUnchanged: true, text: config, dropped: [], unreadLines: 0}
  let text = ''
  let current = ''
  for (const entry of kept) {
    const header = entry.subsection === undefined ? `[${entry.section}]` : `[${entry.section} "${entry.subsection}"]`
    if (header !== current) text += `${header}\n`
    current = header
    text += entry.value === undefined ? `\t${entry.key}\n` : `\t${entry.key} = ${quoteValue(entry.value)}\n`
  }
  return {isUnchanged: false, text, dropped: [...dropped], unreadLines}
}
