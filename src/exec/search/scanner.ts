/**
 * Scanning file contents for one search query: the code that runs inside a search worker, bundled
 * into the worker's script with worker-main.ts (see worker-source.ts).
 */
import fs from 'node:fs'

/** What to look for. Case-insensitive literals are sent as escaped regexes. */
export type ScanQuery =
  /** Exact, case-sensitive text: searched as UTF-8 bytes, without decoding the file. */
  | {kind: 'literal'; text: string}
  /**
   * A JavaScript regex `source` with `flags` (never `g`, `y` or `m`: the scanner adds its own).
   * With `required`, every match contains one of those literals (see regex-prefilter.ts): a file
   * whose bytes hold none of them is searched without being decoded.
   */
  | {kind: 'regex'; source: string; flags: string; required?: string[]}

/**
 * A `search` glob filter as regular expression sources (built by `compileGlobs` in
 * glob-filter.ts): a path passes when it matches an include (on the whole path or on its last
 * name), or there is none, and matches no exclude.
 */
export interface GlobSpec {
  includePath?: string
  includeName?: string
  excludePath?: string
  excludeName?: string
}

/**
 * A test of workspace-relative paths against a `GlobSpec` (in the search workers).
 */
export function createGlobTester(spec: GlobSpec): (path: string) => boolean {
  const compile = (source: string | undefined) => (source === undefined ? undefined : new RegExp(source))
  const includePath = compile(spec.includePath)
  const includeName = compile(spec.includeName)
  const excludePath = compile(spec.excludePath)
  const excludeName = compile(spec.excludeName)
  const hasIncludes = includePath !== undefined || includeName !== undefined
  return (path) => {
    const name = path.slice(path.lastIndexOf('/') + 1)
    const isIncluded = !hasIncludes || includePath?.test(path) === true || includeName?.test(name) === true
    return isIncluded && !(excludePath?.test(path) === true || excludeName?.test(name) === true)
  }
}

/** One batch of files to scan. */
export interface ScanRequest {
  /**
   * The files, as text when that is the exact decoding of the bytes, else as bytes: absolute real
   * paths, or with `isThroughCheckedFolders` paths through the descriptors of folders already
   * checked to lie inside (see FolderLease.entry), open in the thread that scans them.
   */
  files: Array<string | Uint8Array>
  /**
   * Whether `files` are reached through checked folders' descriptors (walk tasks). Otherwise each
   * file's folder is first opened by its path and checked through its descriptor to be the folder
   * at exactly that real path, and the file is opened through it: a file that a folder swapped for
   * a link would lead outside is never opened, and is reported as removed meanwhile.
   */
  isThroughCheckedFolders?: boolean
  /**
   * What to look for. Without a query the batch only lists: each file that passes `glob` is a
   * match `[index, 0, '']`, and no file is opened.
   */
  query?: ScanQuery
  /**
   * The files' workspace-relative paths in the display form, in the order of `files`; with
   * `glob`, a file whose path does not pass is skipped (and not counted).
   */
  paths?: string[]
  glob?: GlobSpec
  /** Stop the batch after this many matching lines. */
  maxMatches: number
  /** Characters of a matching line to keep; longer lines are clipped around the match. */
  maxLineChars: number
  /** Files larger than this (bytes) are skipped and reported in `tooLarge`. */
  maxFileBytes: number
  /** A NUL byte within this many leading bytes marks a file as binary (skipped). */
  binarySniffBytes: number
}

/** One matching line: `[index into ScanRequest.files, 1-based line number, line text]`. */
export type ScanMatch = [fileIndex: number, line: number, text: string]

/** What scanning one batch found. */
export interface ScanResult {
  /** Matching lines in file order, then line order; at most `maxMatches`. */
  matches: ScanMatch[]
  /** Files whose contents were searched. */
  filesSearched: number
  /** Files skipped as binary. */
  binaryFiles: number
  /** Indices of files skipped for being larger than `maxFileBytes`. */
  tooLarge: number[]
  /**
   * Files that could not be opened or read as regular files (removed or replaced meanwhile, no
   * permission, a path longer than the system takes): each file's index and why, in words. A file
   * whose folder no longer lies where it was listed is "removed meanwhile", whatever lies there now.
   */
  unreadable: Array<[index: number, why: string]>
  /** Whether the batch stopped at `maxMatches` before scanning every file. */
  stoppedEarly: boolean
}

/** A scanner: keeps the compiled query and a read buffer between batches. */
export interface Scanner {
  scan(request: ScanRequest): ScanResult
}

/**
 * Creates a scanner: search workers run it (see worker-main.ts), and unit tests call it directly.
 *
 * Each file is opened once, through the descriptor of a folder checked to lie inside (DESIGN
 * §4.2: no byte is read before the object is known to lie inside, so no answer depends on anything
 * outside), without following a symlink (`O_NOFOLLOW`, so a file swapped for a link after the walk
 * is not read through it) and without blocking (`O_NONBLOCK`, so a file swapped for a FIFO cannot
 * hang the worker), checked with `fstat`, and read whole into a reused buffer. Literal queries
 * search the bytes with `Buffer.indexOf`, so files without a match are
 * never decoded; a regex with required literals decodes only the lines that hold one of them;
 * other regexes run once over the decoded file (not line by line), and each candidate
 * line is confirmed with the regex on that line alone, so matches keep per-line semantics.
 */
export function createScanner(): Scanner {
  const openFlags = fs.constants.O_RDONLY | (fs.constants.O_NOFOLLOW ?? 0) | (fs.constants.O_NONBLOCK ?? 0)
  const NEWLINE = 10
  const CARRIAGE_RETURN = 13
  /** A UTF-8 byte order mark: read hides it, so search sees line 1 without it too. */
  const BOM = Buffer.from([0xef, 0xbb, 0xbf])
  /** Lookarounds can see past a line's end in the whole text, so such regexes run line by line. */
  const LOOKAROUND = /\(\?<?[=!]/
  const SLASH = 0x2f
  // Where a descriptor can name its object (see src/exec/files/confined-open.ts).
  const canVerify = process.platform === 'linux' && fs.existsSync('/proc/self/fd')
  /**
   * Linux's O_PATH (the same value on every architecture Node runs on): a folder opened only to
   * be named and reached through, which needs no read permission on it, as a path walk does not.
   */
  const O_PATH = 0o10000000
  const folderFlags = O_PATH | fs.constants.O_DIRECTORY | (fs.constants.O_NOFOLLOW ?? 0)
  const FIRST_READ_BYTES = 256 * 1024
  let scratch = Buffer.allocUnsafe(FIRST_READ_BYTES)
  let compiledKey = ''
  let testedGlob: GlobSpec | undefined
  let globTester: ((path: string) => boolean) | undefined
  let compiled: {needle?: Buffer; whole?: RegExp; line?: RegExp; isLineByLine?: boolean; required?: Buffer[]; anyRequired?: RegExp} = {}

  function compile(query: ScanQuery): void {
    const key = query.kind === 'literal' ? `l:${query.text}` : `r:${query.flags}:${query.source}:${JSON.stringify(query.required ?? null)}`
    if (key === compiledKey) return
    compiled =
      query.kind === 'literal'
        ? {needle: Buffer.from(query.text, 'utf8')}
        : {
            whole: new RegExp(query.source, `${query.flags}gm`),
            line: new RegExp(query.source, query.flags),
            isLineByLine: LOOKAROUND.test(query.source),
            ...(query.required ? {required: query.required.map((literal) => Buffer.from(literal, 'utf8'))} : {}),
            // Several literals are looked for in one pass: their bytes as Latin-1 characters, an
            // alternation matched over the file's bytes read as Latin-1 (one character a byte), which
            // costs about half of looking for each literal in turn.
            ...(query.required && query.required.length > 1
              ? {anyRequired: new RegExp(query.required.map((literal) => latin1Pattern(literal)).join('|'), 'g')}
              : {}),
          }
    compiledKey = key
  }

  /** A regex source matching exactly the UTF-8 bytes of `literal`, each as one Latin-1 character. */
  function latin1Pattern(literal: string): string {
    return [...Buffer.from(literal, 'utf8')].map((byte) => `\\x${byte.toString(16).padStart(2, '0')}`).join('')
  }

  /** Why a file could not be opened or read, in words, from the error's code. */
  function whyUnreadable(error: unknown): string {
    const code = (error as {code?: unknown}).code
    if (code === 'ENOENT' || code === 'ENOTDIR') return 'removed meanwhile'
    if (code === 'EACCES' || code === 'EPERM') return 'no permission'
    if (code === 'ENAMETOOLONG') return 'its path is longer than the system takes'
    if (code === 'ELOOP') return 'replaced by a symlink'
    if (code === 'EAGAIN' || code === 'ENXIO') return 'no longer a regular file'
    return 'a read error' // never a raw error code: an answer explains, it does not quote errno
  }

  /** Opens a file without following a link or blocking; a string says why it cannot be opened. */
  function openFile(file: string | Uint8Array): number | string {
    try {
      // A Buffer sent to a worker arrives as a plain Uint8Array; fs wants a Buffer.
      return fs.openSync(typeof file === 'string' ? file : Buffer.from(file.buffer, file.byteOffset, file.byteLength), openFlags)
    } catch (error) {
      return whyUnreadable(error)
    }
  }

  /**
   * Opens the file at the absolute real path `file` through its folder: the folder is opened by
   * its path and must be, by its descriptor, the folder at exactly that path; else the file is
   * "removed meanwhile" (as a file that vanished: what a swapped folder leads to is never opened,
   * so neither its content nor its existence shows). Where descriptors cannot name their object,
   * the file is opened by its path.
   */
  function openInCheckedFolder(file: string | Uint8Array): number | string {
    if (!canVerify) return openFile(file)
    const bytes = typeof file === 'string' ? Buffer.from(file) : Buffer.from(file.buffer, file.byteOffset, file.byteLength)
    const slash = bytes.lastIndexOf(SLASH)
    const folder = slash === 0 ? bytes.subarray(0, 1) : bytes.subarray(0, slash)
    let folderFd: number
    try {
      folderFd = fs.openSync(folder, folderFlags)
    } catch (error) {
      return (error as {code?: unknown}).code === 'ENAMETOOLONG' ? whyUnreadable(error) : 'removed meanwhile'
    }
    try {
      if (!fs.readlinkSync(`/proc/self/fd/${folderFd}`, {encoding: 'buffer'}).equals(folder)) return 'removed meanwhile'
      return openFile(Buffer.concat([Buffer.from(`/proc/self/fd/${folderFd}/`), bytes.subarray(slash + 1)]))
    } catch {
      return 'removed meanwhile'
    } finally {
      fs.closeSync(folderFd)
    }
  }

  /** Reads the regular file open at `fd` into the scratch buffer; a string says why it was skipped. */
  function readFile(fd: number, request: ScanRequest): Buffer | 'binary' | 'too-large' | {unreadable: string} {
    try {
      // One read covers most files. A short read of a regular file means end of file, so small
      // files cost open, read and close, without an fstat; only a file that fills the first
      // chunk is checked and sized (and a large binary is never read past that chunk).
      let filled = fs.readSync(fd, scratch, 0, FIRST_READ_BYTES, 0)
      if (scratch.subarray(0, Math.min(filled, request.binarySniffBytes)).indexOf(0) !== -1) return 'binary'
      if (filled < FIRST_READ_BYTES) return filled > request.maxFileBytes ? 'too-large' : scratch.subarray(0, filled)
      const info = fs.fstatSync(fd)
      if (!info.isFile()) return {unreadable: 'no longer a regular file'}
      if (info.size > request.maxFileBytes) return 'too-large'
      if (info.size > scratch.length) {
        const larger = Buffer.allocUnsafe(Math.max(info.size, scratch.length * 2))
        scratch.copy(larger, 0, 0, filled)
        scratch = larger
      }
      while (filled < info.size) {
        const got = fs.readSync(fd, scratch, filled, info.size - filled, filled)
        if (got === 0) break
        filled += got
      }
      return scratch.subarray(0, filled)
    } catch (error) {
      return {unreadable: whyUnreadable(error)}
    }
  }

  /**
   * Clips `text` to `max` characters (code points) around the one at UTF-16 offset `column`,
   * never splitting a surrogate pair. `cutBefore`/`cutAfter` say that `text` is already a window
   * of a longer line.
   */
  function clip(text: string, column: number, max: number, cutBefore = false, cutAfter = false): string {
    if (!cutBefore && !cutAfter && (text.length <= max || codePoints(text, 0, text.length) <= max)) return text
    // A code point takes at most two UTF-16 units, so this window holds `max` characters around the column.
    let from = Math.max(0, column - 2 * max)
    let to = Math.min(text.length, column + 2 * max)
    if (from > 0 && isLowSurrogate(text.charCodeAt(from))) from++
    if (to < text.length && isLowSurrogate(text.charCodeAt(to))) to--
    const characters = Array.from(text.slice(from, to))
    const at = codePoints(text, from, column)
    const start = Math.max(0, Math.min(at - Math.floor(max / 4), characters.length - max))
    const end = Math.min(characters.length, start + max)
    const head = cutBefore || from > 0 || start > 0 ? '…' : ''
    const tail = cutAfter || to < text.length || end < characters.length ? '…' : ''
    return `${head}${characters.slice(start, end).join('')}${tail} [line clipped to ${max} characters]`
  }

  /** Code points in `text` from `start` to `end` (UTF-16 offsets). */
  function codePoints(text: string, start: number, end: number): number {
    let count = 0
    for (let index = start; index < end; index++) if (!isLowSurrogate(text.charCodeAt(index))) count++
    return count
  }

  function isLowSurrogate(code: number): boolean {
    return code >= 0xdc00 && code <= 0xdfff
  }

  function withoutCarriageReturn(text: string): string {
    return text.endsWith('\r') ? text.slice(0, -1) : text
  }

  /** Where the text of the line `[lineStart, lineEnd)` ends: before a trailing `\r`, as read shows it. */
  function contentEnd(bytes: Buffer, lineStart: number, lineEnd: number): number {
    return lineEnd > lineStart && bytes[lineEnd - 1] === CARRIAGE_RETURN ? lineEnd - 1 : lineEnd
  }

  /**
   * The text of a long line from bytes, decoding only a window around the match: a minified
   * file can be one line of megabytes.
   */
  function lineFromBytes(bytes: Buffer, lineStart: number, lineEnd: number, matchAt: number, max: number): string {
    // Four bytes per character at most, so this window always holds `max` characters around the match.
    const margin = max * 4
    if (lineEnd - lineStart <= margin * 2) {
      const text = withoutCarriageReturn(bytes.toString('utf8', lineStart, lineEnd))
      return clip(text, bytes.toString('utf8', lineStart, matchAt).length, max)
    }
    let from = Math.max(lineStart, matchAt - margin)
    let to = Math.min(lineEnd, matchAt + margin)
    // Move both ends onto character boundaries (skip UTF-8 continuation bytes).
    while (from > lineStart && ((bytes[from] ?? 0) & 0xc0) === 0x80) from--
    while (to < lineEnd && ((bytes[to] ?? 0) & 0xc0) === 0x80) to++
    const window = withoutCarriageReturn(bytes.toString('utf8', from, to))
    return clip(window, bytes.toString('utf8', from, matchAt).length, max, from > lineStart, to < lineEnd)
  }

  /**
   * Literal search over the bytes from `start` (past a BOM). An occurrence counts only when it
   * lies within a line's text, before its line break (`\n`, or `\r\n`).
   */
  function scanLiteral(bytes: Buffer, start: number, needle: Buffer, fileIndex: number, request: ScanRequest, out: ScanMatch[]): void {
    let lineNumber = 1
    let lineStart = start
    let from = start
    while (out.length < request.maxMatches) {
      const at = bytes.indexOf(needle, from)
      if (at === -1) return
      let lineEnd = bytes.indexOf(NEWLINE, lineStart)
      while (lineEnd !== -1 && lineEnd < at) {
        lineNumber++
        lineStart = lineEnd + 1
        lineEnd = bytes.indexOf(NEWLINE, lineStart)
      }
      if (lineEnd === -1) lineEnd = bytes.length
      if (at + needle.length > contentEnd(bytes, lineStart, lineEnd)) {
        // The occurrence runs into the line break: look further along this line.
        from = at + 1
        continue
      }
      out.push([fileIndex, lineNumber, lineFromBytes(bytes, lineStart, lineEnd, at, request.maxLineChars)])
      from = lineEnd + 1
    }
  }

  /**
   * Regex search over the decoded text. Each line is matched without its line break, so `$`
   * matches before `\r\n` as before `\n`. The regex first runs over the whole text (fast on
   * files without a match) and each candidate line is confirmed with the regex on that line
   * alone; a regex with a lookaround runs line by line instead, since in the whole text it
   * could see past a line's end and miss.
   */
  function scanRegex(text: string, fileIndex: number, request: ScanRequest, out: ScanMatch[]): void {
    const line = compiled.line as RegExp
    const whole = compiled.whole as RegExp
    let lineNumber = 1
    let lineStart = 0
    const confirm = (lineEnd: number): void => {
      const lineText = withoutCarriageReturn(text.slice(lineStart, lineEnd))
      line.lastIndex = 0
      const confirmed = line.exec(lineText)
      if (confirmed) out.push([fileIndex, lineNumber, clip(lineText, confirmed.index, request.maxLineChars)])
    }
    if (compiled.isLineByLine) {
      while (out.length < request.maxMatches && lineStart <= text.length) {
        let lineEnd = text.indexOf('\n', lineStart)
        if (lineEnd === -1) lineEnd = text.length
        if (lineEnd > lineStart || lineEnd < text.length) confirm(lineEnd)
        lineNumber++
        lineStart = lineEnd + 1
      }
      return
    }
    whole.lastIndex = 0
    while (out.length < request.maxMatches && whole.lastIndex <= text.length) {
      const match = whole.exec(text)
      // An empty match after the last line break is not on a line (a file "a\n" has one line).
      if (!match || (match.index === text.length && (text.length === 0 || text.endsWith('\n')))) return
      let lineEnd = text.indexOf('\n', lineStart)
      while (lineEnd !== -1 && lineEnd < match.index) {
        lineNumber++
        lineStart = lineEnd + 1
        lineEnd = text.indexOf('\n', lineStart)
      }
      if (lineEnd === -1) lineEnd = text.length
      // The whole-text match may span lines or lean on the next line; confirm it on this line alone.
      confirm(lineEnd)
      whole.lastIndex = lineEnd + 1
    }
  }

  /**
   * Regex search of a file through the literals every match contains (`ScanQuery.required`):
   * only the lines holding one of them in their bytes are decoded, each matched with the regex
   * on that line alone, as `scanRegex` confirms its candidate lines; a file holding none is never
   * decoded. The same lines as `scanRegex`: a line whose text matches holds the literal.
   */
  function scanCandidateLines(bytes: Buffer, start: number, literals: Buffer[], fileIndex: number, request: ScanRequest, out: ScanMatch[]): void {
    const line = compiled.line as RegExp
    const any = compiled.anyRequired
    // With several literals, the file's bytes as Latin-1 text: character offsets are byte offsets.
    const latin1 = any ? bytes.toString('latin1') : ''
    // The next occurrence of each literal at or after `from` (-1: none left), found again only once passed.
    const next = literals.map(() => -2)
    let lineNumber = 1
    let lineStart = start
    let from = start
    while (out.length < request.maxMatches) {
      let at = -1
      if (any) {
        any.lastIndex = from
        at = any.exec(latin1)?.index ?? -1
      } else {
        for (let index = 0; index < literals.length; index++) {
          let found = next[index] as number
          if (found !== -1 && found < from) next[index] = found = bytes.indexOf(literals[index] as Buffer, from)
          if (found !== -1 && (at === -1 || found < at)) at = found
        }
      }
      if (at === -1) return
      let lineEnd = bytes.indexOf(NEWLINE, lineStart)
      while (lineEnd !== -1 && lineEnd < at) {
        lineNumber++
        lineStart = lineEnd + 1
        lineEnd = bytes.indexOf(NEWLINE, lineStart)
      }
      if (lineEnd === -1) lineEnd = bytes.length
      const lineText = bytes.toString('utf8', lineStart, contentEnd(bytes, lineStart, lineEnd))
      line.lastIndex = 0
      const confirmed = line.exec(lineText)
      if (confirmed) out.push([fileIndex, lineNumber, clip(lineText, confirmed.index, request.maxLineChars)])
      from = lineEnd + 1
    }
  }

  return {
    scan(request) {
      if (request.query) compile(request.query)
      let passes: ((path: string) => boolean) | undefined
      if (request.glob && request.paths) {
        // A walk task scans folder after folder with the same glob: compile it once.
        if (request.glob !== testedGlob) {
          globTester = createGlobTester(request.glob)
          testedGlob = request.glob
        }
        passes = globTester
      }
      const result: ScanResult = {matches: [], filesSearched: 0, binaryFiles: 0, tooLarge: [], unreadable: [], stoppedEarly: false}
      for (let index = 0; index < request.files.length; index++) {
        if (result.matches.length >= request.maxMatches) {
          result.stoppedEarly = true
          break
        }
        if (passes && !passes(request.paths?.[index] as string)) continue
        if (!request.query) {
          result.matches.push([index, 0, ''])
          continue
        }
        const file = request.files[index] as string | Uint8Array
        const fd = request.isThroughCheckedFolders ? openFile(file) : openInCheckedFolder(file)
        if (typeof fd === 'string') {
          result.unreadable.push([index, fd])
          continue
        }
        try {
          const contents = readFile(fd, request)
          if (contents === 'binary') result.binaryFiles++
          else if (contents === 'too-large') result.tooLarge.push(index)
          else if (!Buffer.isBuffer(contents)) result.unreadable.push([index, contents.unreadable])
          else {
            const start = contents.subarray(0, BOM.length).equals(BOM) ? BOM.length : 0
            if (compiled.needle) scanLiteral(contents, start, compiled.needle, index, request, result.matches)
            else if (compiled.required) scanCandidateLines(contents, start, compiled.required, index, request, result.matches)
            else scanRegex(contents.toString('utf8', start), index, request, result.matches)
            result.filesSearched++
          }
        } finally {
          fs.closeSync(fd)
        }
      }
      return result
    },
  }
}
