/**
 * Edits a TOML document as text at the exact source ranges toml-eslint-parser reports, so every
 * byte outside the edited keys (comments, order, spacing, line endings, a missing final newline)
 * stays as it was. Pure functions; the caller checks the result by parsing it.
 */
import {type AST, parseTOML} from 'toml-eslint-parser'

/**
 * The parsed document with source ranges (TOML 1.1, which accepts every TOML 1.0 document).
 * @throws toml-eslint-parser's ParseError when it does not parse.
 */
export function parseTomlDocument(text: string): AST.TOMLProgram {
  return parseTOML(text, {tomlVersion: '1.1'})
}

/**
 * The `[<keyPath>]` table written as a header of its own, then its subtables `[<keyPath>.…]`, in
 * document order. Empty when the table is absent or written with dotted keys or inline.
 */
export function tablesOf(document: AST.TOMLProgram, keyPath: string[]): AST.TOMLTable[] {
  const [top] = document.body
  return top.body.filter(
    (node): node is AST.TOMLTable =>
      node.type === 'TOMLTable' &&
      node.kind === 'standard' &&
      keyPath.every((part, index) => node.resolvedKey[index] === part),
  )
}

/** One `key = value` to write in a table; `value` is TOML text. */
export interface KeyEdit {
  key: string
  value: string
  /** A comment (without `# `) for the line above the key, written only when the key is added. */
  comment?: string
}

/**
 * Sets single-segment keys of `table`: an existing key gets its value's text replaced (its key,
 * spacing and trailing comment stay); a missing key gets a line of its own after the table's last
 * key, under its comment line when the edit has one. @param eol the document's line terminator, used for added lines
 */
export function setTableKeys(text: string, table: AST.TOMLTable, edits: KeyEdit[], eol: string): string {
  const splices: Array<{start: number; end: number; insert: string}> = []
  let added = ''
  for (const {key, value, comment} of edits) {
    const existing = table.body.find((pair) => pair.key.keys.length === 1 && keyName(pair.key.keys[0]!) === key)
    if (existing) splices.push({start: existing.value.range[0], end: existing.value.range[1], insert: value})
    else added += `${comment === undefined ? '' : `# ${comment}${eol}`}${key} = ${value}${eol}`
  }
  if (added !== '') {
    const last = table.body[table.body.length - 1]
    const at = lineEndAfter(text, last ? last.range[1] : table.key.range[1])
    // At the end of a file without a final newline, the added lines go before the end, which stays without one.
    const insert = at === text.length && !text.endsWith('\n') ? eol + added.slice(0, -eol.length) : added
    splices.push({start: at, end: at, insert})
  }
  let result = text
  for (const splice of splices.sort((a, b) => b.start - a.start)) result = result.slice(0, splice.start) + splice.insert + result.slice(splice.end)
  return result
}

/**
 * Appends a table (`lines` without terminators) after one blank line. The result ends with a
 * newline only when `text` did (or was empty), so removeTables can give back `text` exactly.
 */
export function appendTable(text: string, lines: string[], eol: string): string {
  const block = lines.join(eol)
  if (text === '') return block + eol
  if (text.endsWith('\n')) return text + eol + block + eol
  return text + eol + eol + block
}

/**
 * Removes the whole lines of `tables` (header through last key). Where a removed stretch follows a
 * blank line and ends the document or precedes a blank line, that blank line goes too; where it
 * ended the document without a final newline, the newline before it goes too: the inverse of
 * appendTable.
 */
export function removeTables(text: string, tables: AST.TOMLTable[]): string {
  const stretches: Array<{start: number; end: number}> = []
  for (const table of [...tables].sort((a, b) => a.range[0] - b.range[0])) {
    const start = lineStart(text, table.range[0])
    const end = lineEndAfter(text, table.range[1])
    const previous = stretches[stretches.length - 1]
    if (previous && previous.end === start) previous.end = end
    else stretches.push({start, end})
  }
  let result = text
  for (const {start: from, end} of stretches.reverse()) {
    let start = from
    const before = result.slice(0, start)
    const after = result.slice(end)
    const blankBefore = /(^|\n)\r?\n$/.test(before)
    if (blankBefore && (after === '' || /^\r?\n/.test(after))) start = lineStart(result, start - 1)
    let head = result.slice(0, start)
    // Only the text's last line can lack a newline.
    if (!result.slice(from, end).endsWith('\n')) head = head.replace(/\r?\n$/, '')
    result = head + after
  }
  return result
}

/** The text of whole lines covering `table` (header through its last key), as in `text`. */
export function tableText(text: string, table: AST.TOMLTable): string {
  return text.slice(lineStart(text, table.range[0]), lineEndAfter(text, table.range[1]))
}

/** The document's line terminator: CRLF when its first line ends with one, else LF. */
export function lineEnding(text: string): string {
  // Without a newline, or with one first, the index before it holds no character.
  return text[text.indexOf('\n') - 1] === '\r' ? '\r\n' : '\n'
}

function keyName(part: AST.TOMLBare | AST.TOMLQuoted): string {
  return part.type === 'TOMLBare' ? part.name : part.value
}

/** Offset of the start of the line holding `offset`. */
function lineStart(text: string, offset: number): number {
  // lastIndexOf would still look at index 0 for offset 0.
  return offset === 0 ? 0 : text.lastIndexOf('\n', offset - 1) + 1
}

/** Offset just after the end of the line holding `offset` (after its newline, or the end of the text). */
function lineEndAfter(text: string, offset: number): number {
  const newline = text.indexOf('\n', offset)
  return newline === -1 ? text.length : newline + 1
}
