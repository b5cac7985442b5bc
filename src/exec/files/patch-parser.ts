/**
 * The parser of `edit`'s patch form: Codex's `apply_patch` format, read as Codex reads it
 * (codex-rs/apply-patch/src/parser.rs), so that a patch a model learned to write for Codex is
 * accepted here, and a patch Codex refuses is refused here too.
 *
 * ```
 * *** Begin Patch
 * *** Add File: path          every following line starts with "+"
 * *** Delete File: path
 * *** Update File: path
 * *** Move to: new/path       optional
 * @@ optional header line     then " " context, "-" removed and "+" added lines
 * *** End of File             optional: the hunk ends at the end of the file
 * *** End Patch
 * ```
 *
 * Leniencies Codex allows, allowed here: whitespace around the whole patch and around the
 * Begin/End and file markers; a `<<EOF` … `EOF` heredoc wrapped around the patch; CRLF line
 * breaks; no `@@` before an Update File's first hunk; blank lines between hunks; an empty line
 * inside a hunk read as an empty context line. Parsing only reads the text: whether each hunk
 * fits its file is found when the patch is applied (patch-apply.ts).
 */
import {BadInputError} from '../../errors.js'
import {escapeControls} from '../../text-escape.js'

const BEGIN_PATCH = '*** Begin Patch'
const END_PATCH = '*** End Patch'
const ADD_FILE = '*** Add File: '
const DELETE_FILE = '*** Delete File: '
const UPDATE_FILE = '*** Update File: '
const MOVE_TO = '*** Move to: '
const END_OF_FILE = '*** End of File'
const HUNK_HEADER = '@@'
const HUNK_HEADER_WITH_TEXT = '@@ '
/** First lines of a heredoc a model may wrap the patch in (`apply_patch <<'EOF'`). */
const HEREDOC_STARTS = new Set(['<<EOF', "<<'EOF'", '<<"EOF"'])

/** One `@@` hunk of an Update File: `oldLines` (context and removed) become `newLines` (context and added). */
export interface PatchHunk {
  /** The text after `@@ `: a line (a function or class) the hunk lies after. */
  header?: string
  oldLines: string[]
  newLines: string[]
  /** The hunk ended with `*** End of File`: its old lines end the file. */
  isEndOfFile: boolean
  /** 1-based line of the patch where the hunk starts. */
  line: number
}

/** One file operation of a patch, with the 1-based line of the patch where it starts. */
export type PatchOperation =
  | {kind: 'add'; path: string; contents: string; line: number}
  | {kind: 'delete'; path: string; line: number}
  | {kind: 'update'; path: string; moveTo?: string; hunks: PatchHunk[]; line: number}

/** A patch that is not in the apply_patch format; the message says where and what was expected. */
export class PatchSyntaxError extends BadInputError {}

const FORMAT_HINT =
  'A patch starts with "*** Begin Patch", then has "*** Add File: path" (every line "+"), "*** Delete File: path" or ' +
  '"*** Update File: path" (optional "*** Move to: path", then "@@" hunks of " ", "-" and "+" lines), and ends with "*** End Patch".'

function quoted(line: string): string {
  const shown = line.length > 200 ? `${line.slice(0, 200)}…` : line
  return `"${escapeControls(shown)}"`
}

function syntaxError(line: number | undefined, message: string): PatchSyntaxError {
  const where = line === undefined ? 'The patch' : `Line ${line} of the patch`
  return new PatchSyntaxError(`${where}: ${message} Nothing was changed.`)
}

/**
 * The lines of `text` as Rust's `str::lines` gives them: split at `\n`, a `\r` before it dropped,
 * no empty line after a final `\n`.
 */
function splitLines(text: string): string[] {
  if (text === '') return []
  const lines = text.split('\n')
  if (lines.at(-1) === '') lines.pop()
  return lines.map((line) => (line.endsWith('\r') ? line.slice(0, -1) : line))
}

/** The lines between the Begin and End markers, or the error that says which marker is missing. */
function bodyOf(lines: string[]): string[] {
  const first = lines[0]?.trim()
  const last = lines.at(-1)?.trim()
  if (first === BEGIN_PATCH && last === END_PATCH && lines.length >= 2) return lines.slice(1, -1)
  if (first !== BEGIN_PATCH) {
    throw syntaxError(1, `the first line must be "${BEGIN_PATCH}"${first === undefined ? ' (the patch is empty)' : `, not ${quoted(lines[0] as string)}`}. ${FORMAT_HINT}`)
  }
  throw syntaxError(lines.length, `the last line must be "${END_PATCH}", not ${quoted(lines.at(-1) as string)}. ${FORMAT_HINT}`)
}

/** The body of a patch, unwrapping a heredoc around it as Codex's lenient mode does. */
function patchBody(lines: string[]): {body: string[]; firstLine: number} {
  try {
    return {body: bodyOf(lines), firstLine: 2}
  } catch (error) {
    const first = lines[0] as string
    if (lines.length >= 4 && HEREDOC_STARTS.has(first) && (lines.at(-1) as string).endsWith('EOF')) {
      return {body: bodyOf(lines.slice(1, -1)), firstLine: 3}
    }
    throw error
  }
}

/**
 * One hunk of an Update File, from `lines[from]`.
 * @param line the patch line number of `lines[from]`
 * @param isFirst whether it is the file's first hunk (which may omit its `@@` line)
 * @returns the hunk and the lines it used
 */
function parseHunk(lines: readonly string[], from: number, line: number, isFirst: boolean, path: string): {hunk: PatchHunk; used: number} {
  const top = lines[from] as string
  let header: string | undefined
  let start = 1
  if (top === HUNK_HEADER) header = undefined
  else if (top.startsWith(HUNK_HEADER_WITH_TEXT)) header = top.slice(HUNK_HEADER_WITH_TEXT.length)
  else if (isFirst) start = 0
  else {
    throw syntaxError(
      line,
      `in "*** Update File: ${escapeControls(path)}", a hunk must start with "@@" (or "@@ " and a line to find), not ${quoted(top)}. ` +
        'Every line of a hunk starts with " " (context), "-" (removed) or "+" (added).',
    )
  }
  const empty = () => syntaxError(line + start, `a hunk of "*** Update File: ${escapeControls(path)}" has no lines. Give it context, "-" and "+" lines, or remove its "@@".`)
  if (from + start >= lines.length) throw empty()
  const hunk: PatchHunk = {...(header === undefined ? {} : {header}), oldLines: [], newLines: [], isEndOfFile: false, line}
  let used = 0
  for (let index = from + start; index < lines.length; index++) {
    const text = lines[index] as string
    if (text === END_OF_FILE) {
      if (used === 0) throw empty()
      hunk.isEndOfFile = true
      used++
      break
    }
    const marker = text[0]
    if (marker === undefined) {
      hunk.oldLines.push('')
      hunk.newLines.push('')
    } else if (marker === ' ') {
      hunk.oldLines.push(text.slice(1))
      hunk.newLines.push(text.slice(1))
    } else if (marker === '+') hunk.newLines.push(text.slice(1))
    else if (marker === '-') hunk.oldLines.push(text.slice(1))
    else if (used === 0) {
      throw syntaxError(
        line + start,
        `unexpected line ${quoted(text)} in a hunk of "*** Update File: ${escapeControls(path)}". ` +
          'Every line of a hunk starts with " " (context), "-" (removed) or "+" (added); an empty context line may be empty.',
      )
    } else break // the next hunk or operation starts here
    used++
  }
  return {hunk, used: used + start}
}

/** One operation from `lines[from]` (patch line `line`), and the lines it used. */
function parseOperation(lines: readonly string[], from: number, line: number): {operation: PatchOperation; used: number} {
  const top = (lines[from] as string).trim()
  if (top.startsWith(ADD_FILE)) {
    const path = top.slice(ADD_FILE.length)
    let contents = ''
    let used = 1
    for (let index = from + 1; index < lines.length; index++) {
      const text = lines[index] as string
      if (!text.startsWith('+')) break
      contents += `${text.slice(1)}\n`
      used++
    }
    return {operation: {kind: 'add', path, contents, line}, used}
  }
  if (top.startsWith(DELETE_FILE)) return {operation: {kind: 'delete', path: top.slice(DELETE_FILE.length), line}, used: 1}
  if (top.startsWith(UPDATE_FILE)) {
    const path = top.slice(UPDATE_FILE.length)
    let used = 1
    let moveTo: string | undefined
    const next = lines[from + 1]
    if (next?.startsWith(MOVE_TO)) {
      moveTo = next.slice(MOVE_TO.length)
      used++
    }
    const hunks: PatchHunk[] = []
    while (from + used < lines.length) {
      const text = lines[from + used] as string
      if (text.trim() === '') {
        used++
        continue
      }
      if (text.startsWith('*')) break
      const parsed = parseHunk(lines, from + used, line + used, hunks.length === 0, path)
      hunks.push(parsed.hunk)
      used += parsed.used
    }
    if (hunks.length === 0) {
      throw syntaxError(line, `"*** Update File: ${escapeControls(path)}" has no hunks. Add "@@" hunks with the lines to change, or remove the operation.`)
    }
    return {operation: {kind: 'update', path, ...(moveTo === undefined ? {} : {moveTo}), hunks, line}, used}
  }
  throw syntaxError(
    line,
    `${quoted(lines[from] as string)} is not an operation. An operation starts with "*** Add File: path", "*** Delete File: path" or "*** Update File: path".`,
  )
}

/**
 * Parses a patch in Codex's `apply_patch` format into its file operations, in order.
 * Paths are returned as written (the caller resolves them inside the workspace).
 * @throws PatchSyntaxError (a BadInputError) naming the line of the patch that is wrong and
 *   what was expected there, or when the patch holds no operation (Codex: "No files were modified.")
 */
export function parsePatch(text: string): PatchOperation[] {
  const {body, firstLine} = patchBody(splitLines(text.trim()))
  const operations: PatchOperation[] = []
  for (let used = 0; used < body.length; ) {
    const parsed = parseOperation(body, used, firstLine + used)
    operations.push(parsed.operation)
    used += parsed.used
  }
  if (operations.length === 0) {
    throw syntaxError(undefined, `has no operations between "${BEGIN_PATCH}" and "${END_PATCH}", so it would change no file. ${FORMAT_HINT}`)
  }
  return operations
}
