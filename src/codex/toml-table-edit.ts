/**
 * Edits one `[a.b]` table of a TOML document as text, so every other byte (comments, order,
 * spacing, line endings) stays as it was. Pure functions; the caller checks the result by parsing.
 */

/** Lines of `text`, each with its own line terminator (the last may have none). */
export function splitLines(text: string): string[] {
  return text === '' ? [] : text.split(/(?<=\n)/)
}

/** The line range of a table: its header line through its last line that is not blank or a comment. */
export interface TableRange {
  /** Index of the header line. */
  start: number
  /** Index after the table's last content line (its subtables included). */
  end: number
}

/**
 * Finds the table `[<keyPath>]` written as a header (with its subtables `[<keyPath>.…]`). Header
 * lines inside multi-line strings are not headers. Returns undefined when the table is not
 * written with a header of its own (absent, or defined with dotted keys or an inline table).
 */
export function findTable(lines: string[], keyPath: string[]): TableRange | undefined {
  const headers = headerLines(lines)
  const index = headers.findIndex((header) => header.kind === 'table' && samePath(header.key, keyPath))
  if (index === -1) return undefined
  const start = headers[index]!.line
  let stop = lines.length
  for (const header of headers.slice(index + 1)) {
    const isInside = header.key.length > keyPath.length && samePath(header.key.slice(0, keyPath.length), keyPath)
    if (!isInside) {
      stop = header.line
      break
    }
  }
  let end = stop
  while (isBlankOrComment(lines[end - 1]!)) end -= 1 // stops at the header line at the latest
  return {start, end}
}

/**
 * Replaces the lines of `range` with `block` (whole lines ending with a terminator), or appends
 * `block` after a blank line when `range` is undefined.
 * @param eol the document's line terminator, used where a terminator must be added
 */
export function spliceTable(lines: string[], range: TableRange | undefined, block: string[], eol: string): string {
  if (range) return [...lines.slice(0, range.start), ...block, ...lines.slice(range.end)].join('')
  const head = [...lines]
  const last = head[head.length - 1]
  if (last !== undefined && !last.endsWith('\n')) head[head.length - 1] = last + eol
  if (head.length > 0 && !isBlank(head[head.length - 1]!)) head.push(eol)
  return [...head, ...block].join('')
}

/**
 * Removes the lines of `range`; when the table was preceded by a blank line and is followed by a
 * blank line or the end of the document, that preceding blank line goes too (undoing spliceTable's
 * append).
 */
export function removeTable(lines: string[], range: TableRange): string {
  let start = range.start
  const after = lines[range.end]
  if (start > 0 && isBlank(lines[start - 1]!) && (after === undefined || isBlank(after))) start -= 1
  return [...lines.slice(0, start), ...lines.slice(range.end)].join('')
}

/** The document's line terminator: CRLF when its first line ends with one, else LF. */
export function lineEnding(text: string): string {
  return text[text.indexOf('\n') - 1] === '\r' ? '\r\n' : '\n' // no \n: text[-2] is undefined
}

interface Header {
  line: number
  kind: 'table' | 'array'
  key: string[]
}

function headerLines(lines: string[]): Header[] {
  const headers: Header[] = []
  let open: '"""' | "'''" | undefined
  lines.forEach((line, index) => {
    if (!open) {
      const header = parseHeader(line)
      if (header) headers.push({line: index, ...header})
    }
    open = multilineStateAfter(line, open)
  })
  return headers
}

/** Whether a multi-line string is still open at the end of `line`, given its state at the start. */
function multilineStateAfter(line: string, open: '"""' | "'''" | undefined): '"""' | "'''" | undefined {
  let i = 0
  while (i < line.length) {
    if (open) {
      const close = line.indexOf(open, i)
      if (close === -1) return open
      if (open === '"""' && isEscaped(line, close)) {
        i = close + 1
        continue
      }
      i = close + 3
      while (line[i] === open[0]) i += 1 // a string may end with up to two quotes before the delimiter
      open = undefined
      continue
    }
    const char = line[i]
    if (char === '#') return undefined
    if (line.startsWith('"""', i) || line.startsWith("'''", i)) {
      open = line.slice(i, i + 3) as '"""' | "'''"
      i += 3
      continue
    }
    if (char === '"' || char === "'") {
      let j = i + 1
      while (j < line.length && line[j] !== char) j += char === '"' && line[j] === '\\' ? 2 : 1
      i = j + 1
      continue
    }
    i += 1
  }
  return open
}

function isEscaped(line: string, index: number): boolean {
  let backslashes = 0
  for (let j = index - 1; j >= 0 && line[j] === '\\'; j -= 1) backslashes += 1
  return backslashes % 2 === 1
}

const KEY_PART = /\s*(?:"((?:[^"\\]|\\.)*)"|'([^']*)'|([A-Za-z0-9_-]+))\s*/y

/** The key of a `[table]` or `[[array]]` header line, or undefined for any other line. */
export function parseHeader(line: string): {kind: 'table' | 'array'; key: string[]} | undefined {
  const match = /^\s*(\[\[?)(.*?)(\]\]?)\s*(?:#.*)?\r?\n?$/.exec(line)
  if (!match) return undefined
  const [, open, inner, close] = match
  if (open!.length !== close!.length) return undefined
  const key: string[] = []
  let position = 0
  for (;;) {
    KEY_PART.lastIndex = position
    const part = KEY_PART.exec(inner!)
    if (!part) return undefined
    key.push(part[1] !== undefined ? (JSON.parse(`"${part[1]}"`) as string) : (part[2] ?? part[3])!)
    position = KEY_PART.lastIndex
    if (position === inner!.length) break
    if (inner![position] !== '.') return undefined
    position += 1
  }
  return {kind: open!.length === 2 ? 'array' : 'table', key}
}

function samePath(a: string[], b: string[]): boolean {
  return a.length === b.length && a.every((part, index) => part === b[index])
}

function isBlank(line: string): boolean {
  return line.trim() === ''
}

function isBlankOrComment(line: string): boolean {
  const trimmed = line.trim()
  return trimmed === '' || trimmed.startsWith('#')
}
