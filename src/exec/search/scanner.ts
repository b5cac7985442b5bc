/**
 * Scanning file contents for one search query: the code that runs inside a search worker.
 *
 * `createScanner` is turned into source text (`Function.prototype.toString`) and evaluated in a
 * worker thread, so it must stay self-contained: no imports, no references to anything outside
 * its own body (Node built-ins come from `process.getBuiltinModule`). Only `import type` is
 * allowed here, because it leaves nothing in the compiled code.
 */

/** What to look for. Case-insensitive literals are sent as escaped regexes. */
export type ScanQuery =
  /** Exact, case-sensitive text: searched as UTF-8 bytes, without decoding the file. */
  | {kind: 'literal'; text: string}
  /** A JavaScript regex `source` with `flags` (never `g`, `y` or `m`: the scanner adds its own). */
  | {kind: 'regex'; source: string; flags: string}

/** One batch of files to scan. */
export interface ScanRequest {
  /** Absolute real paths of regular files, as bytes. */
  files: Uint8Array[]
  /**
   * The workspace root as bytes: a file whose open descriptor (`/proc/self/fd/N`, on Linux) does
   * not lie at or below it was reached through a swapped link and is skipped as unreadable.
   */
  root: Uint8Array
  query: ScanQuery
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
  /** Files that vanished or could not be opened as regular files (not symlinks) meanwhile. */
  unreadable: number
  /** Whether the batch stopped at `maxMatches` before scanning every file. */
  stoppedEarly: boolean
}

/** A scanner: keeps the compiled query and a read buffer between batches. */
export interface Scanner {
  scan(request: ScanRequest): ScanResult
}

/**
 * Creates a scanner. Self-contained (see the module comment): it is evaluated in worker threads
 * from its source text, and unit tests call it directly.
 *
 * Each file is opened once without following a symlink (`O_NOFOLLOW`, so a file swapped for a
 * link after the walk is not read through it) and without blocking (`O_NONBLOCK`, so a file
 * swapped for a FIFO cannot hang the worker), checked with `fstat`, and read whole into a reused
 * buffer. Literal queries search the bytes with `Buffer.indexOf`, so files without a match are
 * never decoded; regexes run once over the decoded file (not line by line), and each candidate
 * line is confirmed with the regex on that line alone, so matches keep per-line semantics.
 */
export function createScanner(): Scanner {
  const fs = process.getBuiltinModule('node:fs') as typeof import('node:fs')
  const openFlags = fs.constants.O_RDONLY | (fs.constants.O_NOFOLLOW ?? 0) | (fs.constants.O_NONBLOCK ?? 0)
  const NEWLINE = 10
  const SLASH = 0x2f
  // Where a descriptor can name its object (see src/exec/files/confined-open.ts).
  const canVerify = process.platform === 'linux' && fs.existsSync('/proc/self/fd')

  /** Whether the real path `where` is `root` or lies below it. */
  function isInside(where: Buffer, root: Uint8Array): boolean {
    if (where.length < root.length || Buffer.compare(where.subarray(0, root.length), root) !== 0) return false
    return where.length === root.length || root[root.length - 1] === SLASH || where[root.length] === SLASH
  }
  const FIRST_READ_BYTES = 256 * 1024
  let scratch = Buffer.allocUnsafe(FIRST_READ_BYTES)
  let compiledKey = ''
  let compiled: {needle?: Buffer; whole?: RegExp; line?: RegExp} = {}

  function compile(query: ScanQuery): void {
    const key = query.kind === 'literal' ? `l:${query.text}` : `r:${query.flags}:${query.source}`
    if (key === compiledKey) return
    compiled =
      query.kind === 'literal'
        ? {needle: Buffer.from(query.text, 'utf8')}
        : {whole: new RegExp(query.source, `${query.flags}gm`), line: new RegExp(query.source, query.flags)}
    compiledKey = key
  }

  /** Reads a regular file into the scratch buffer; a string says why it was skipped. */
  function readFile(file: Uint8Array, request: ScanRequest): Buffer | 'binary' | 'too-large' | 'unreadable' {
    let fd: number
    try {
      // A Buffer sent to a worker arrives as a plain Uint8Array; fs wants a Buffer.
      fd = fs.openSync(Buffer.from(file.buffer, file.byteOffset, file.byteLength), openFlags)
    } catch {
      return 'unreadable'
    }
    try {
      if (canVerify && !isInside(fs.readlinkSync(`/proc/self/fd/${fd}`, {encoding: 'buffer'}), request.root)) return 'unreadable'
      // One read covers most files. A short read of a regular file means end of file, so small
      // files cost open, read and close, without an fstat; only a file that fills the first
      // chunk is checked and sized (and a large binary is never read past that chunk).
      let filled = fs.readSync(fd, scratch, 0, FIRST_READ_BYTES, 0)
      if (scratch.subarray(0, Math.min(filled, request.binarySniffBytes)).indexOf(0) !== -1) return 'binary'
      if (filled < FIRST_READ_BYTES) return filled > request.maxFileBytes ? 'too-large' : scratch.subarray(0, filled)
      const info = fs.fstatSync(fd)
      if (!info.isFile()) return 'unreadable'
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
    } catch {
      return 'unreadable'
    } finally {
      fs.closeSync(fd)
    }
  }

  /**
   * Clips `text` to `max` characters around `column`, never splitting a surrogate pair.
   * `cutBefore`/`cutAfter` say that `text` is already a window of a longer line.
   */
  function clip(text: string, column: number, max: number, cutBefore = false, cutAfter = false): string {
    if (text.length <= max && !cutBefore && !cutAfter) return text
    let start = Math.max(0, Math.min(column - Math.floor(max / 4), text.length - max))
    let end = Math.min(text.length, start + max)
    if (start > 0 && isLowSurrogate(text.charCodeAt(start))) start++
    if (end < text.length && isLowSurrogate(text.charCodeAt(end))) end--
    const head = cutBefore || start > 0 ? '…' : ''
    const tail = cutAfter || end < text.length ? '…' : ''
    return `${head}${text.slice(start, end)}${tail} [line clipped to ${max} characters]`
  }

  function isLowSurrogate(code: number): boolean {
    return code >= 0xdc00 && code <= 0xdfff
  }

  function withoutCarriageReturn(text: string): string {
    return text.endsWith('\r') ? text.slice(0, -1) : text
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

  function scanLiteral(bytes: Buffer, needle: Buffer, fileIndex: number, request: ScanRequest, out: ScanMatch[]): void {
    let lineNumber = 1
    let lineStart = 0
    let from = 0
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
      out.push([fileIndex, lineNumber, lineFromBytes(bytes, lineStart, lineEnd, at, request.maxLineChars)])
      from = lineEnd + 1
    }
  }

  function scanRegex(bytes: Buffer, whole: RegExp, line: RegExp, fileIndex: number, request: ScanRequest, out: ScanMatch[]): void {
    const text = bytes.toString('utf8')
    let lineNumber = 1
    let lineStart = 0
    whole.lastIndex = 0
    while (out.length < request.maxMatches && whole.lastIndex <= text.length) {
      const match = whole.exec(text)
      if (!match) return
      let lineEnd = text.indexOf('\n', lineStart)
      while (lineEnd !== -1 && lineEnd < match.index) {
        lineNumber++
        lineStart = lineEnd + 1
        lineEnd = text.indexOf('\n', lineStart)
      }
      if (lineEnd === -1) lineEnd = text.length
      const lineText = text.slice(lineStart, lineEnd)
      // The whole-text match may span lines or lean on the next line; confirm it on this line alone.
      line.lastIndex = 0
      const confirmed = line.exec(lineText)
      if (confirmed) out.push([fileIndex, lineNumber, clip(withoutCarriageReturn(lineText), confirmed.index, request.maxLineChars)])
      whole.lastIndex = lineEnd + 1
    }
  }

  return {
    scan(request) {
      compile(request.query)
      const result: ScanResult = {matches: [], filesSearched: 0, binaryFiles: 0, tooLarge: [], unreadable: 0, stoppedEarly: false}
      for (let index = 0; index < request.files.length; index++) {
        if (result.matches.length >= request.maxMatches) {
          result.stoppedEarly = true
          break
        }
        const contents = readFile(request.files[index] as Uint8Array, request)
        if (contents === 'binary') result.binaryFiles++
        else if (contents === 'too-large') result.tooLarge.push(index)
        else if (contents === 'unreadable') result.unreadable++
        else {
          result.filesSearched++
          if (compiled.needle) scanLiteral(contents, compiled.needle, index, request, result.matches)
          else scanRegex(contents, compiled.whole as RegExp, compiled.line as RegExp, index, request, result.matches)
        }
      }
      return result
    },
  }
}
