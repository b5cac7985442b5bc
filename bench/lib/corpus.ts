/**
 * Corpora built in a temporary folder from real files: package sources from `node_modules`
 * folders, copied under names no ignore rule hides (`node_modules` becomes `node_pkgs`), with a
 * git repository and `.gitignore` rules on top, and a big generated text file for the read cases.
 */
import {spawnSync} from 'node:child_process'
import {createWriteStream, readdirSync, readFileSync, writeFileSync, copyFileSync, mkdirSync, lstatSync, statSync} from 'node:fs'
import path from 'node:path'
import {once} from 'node:events'

/** Files larger than this are not copied into a search corpus (keeps it mostly source text). */
const MAX_CORPUS_FILE_BYTES = 4 * 1024 * 1024

/** The root `.gitignore` of a search corpus: real-looking rules that hide a good share of it. */
export const CORPUS_GITIGNORE = ['# build output, maps and docs', '*.map', '*.min.js', '**/docs/', '/copy-2/**/test/', '!keep-me.map', ''].join('\n')

/** A nested `.gitignore` inside the first copy, so nested rules are exercised too. */
export const NESTED_GITIGNORE = ['*.d.ts', '*.d.mts', ''].join('\n')

/** What was built, for the report. */
export interface CorpusFacts {
  root: string
  files: number
  bytes: number
  copies: number
}

interface SourceFile {
  from: string
  /** Relative path inside one copy, with `node_modules` segments renamed. */
  rel: string
  size: number
}

function walk(root: string, out: SourceFile[], limitFiles: number): void {
  const stack = ['']
  while (stack.length > 0 && out.length < limitFiles) {
    const rel = stack.pop()!
    const entries = readdirSync(path.join(root, rel), {withFileTypes: true}).sort((a, b) => (a.name < b.name ? 1 : -1))
    for (const entry of entries) {
      const childRel = rel ? `${rel}/${entry.name}` : entry.name
      if (entry.isDirectory()) stack.push(childRel)
      else if (entry.isFile()) {
        const size = lstatSync(path.join(root, childRel)).size
        if (size <= MAX_CORPUS_FILE_BYTES) out.push({from: path.join(root, childRel), rel: childRel.split('/').map((s) => (s === 'node_modules' ? 'node_pkgs' : s === '.git' ? 'dot-git' : s)).join('/'), size})
      }
      if (out.length >= limitFiles) break
    }
  }
}

/**
 * Copies the files of `sources` (folders) into `root`, as whole copies `copy-1`, `copy-2`, ...
 * until at least `minCopies` copies (default 1), `minFiles` files and `minBytes` bytes are there
 * (or `maxFilesPerCopy` files per copy when the corpus should be small and fixed). Makes `root`
 * a git repository with the ignore rules above.
 */
export function buildSearchCorpus(
  root: string,
  sources: string[],
  target: {minFiles: number; minBytes: number; minCopies?: number; maxFilesPerCopy?: number},
): CorpusFacts {
  const files: SourceFile[] = []
  const limit = target.maxFilesPerCopy ?? Number.POSITIVE_INFINITY
  sources.forEach((source, index) => {
    const before = files.length
    walk(source, files, limit)
    for (let i = before; i < files.length; i++) files[i]!.rel = `pkgs-${index + 1}/${files[i]!.rel}`
  })
  const copyBytes = files.reduce((sum, f) => sum + f.size, 0)
  mkdirSync(root, {recursive: true})
  let count = 0
  let bytes = 0
  let copies = 0
  while (copies < (target.minCopies ?? 1) || count < target.minFiles || bytes < target.minBytes) {
    copies++
    const made = new Set<string>()
    for (const file of files) {
      const to = path.join(root, `copy-${copies}`, file.rel)
      const dir = path.dirname(to)
      if (!made.has(dir)) {
        mkdirSync(dir, {recursive: true})
        made.add(dir)
      }
      copyFileSync(file.from, to)
    }
    count += files.length
    bytes += copyBytes
    if (files.length === 0) break
  }
  spawnSync('git', ['init', '-q', root], {stdio: 'ignore'})
  writeFileSync(path.join(root, '.gitignore'), CORPUS_GITIGNORE)
  writeFileSync(path.join(root, 'copy-1', '.gitignore'), NESTED_GITIGNORE)
  return {root, files: count, bytes, copies}
}

/** Real-looking text lines (printable ASCII, at most `maxChars` long) taken from source files, to build big files from. */
export function sampleLines(sources: string[], wanted: number, maxChars = 200): string[] {
  const lines: string[] = []
  const files: SourceFile[] = []
  for (const source of sources) walk(source, files, 4000)
  for (const file of files) {
    if (!/\.(js|ts|md|json|txt)$/.test(file.rel)) continue
    for (const line of readFileSync(file.from, 'utf8').split('\n')) {
      if (line.trim().length > 0 && line.length <= maxChars && /^[\x20-\x7e\t]*$/.test(line)) lines.push(line)
    }
    if (lines.length >= wanted) break
  }
  return lines
}

/**
 * Writes a text file of about `bytes` bytes made of `lines` repeated, each line prefixed by a
 * running number so every line is distinct. Answers the number of lines written.
 */
export async function writeBigTextFile(file: string, lines: string[], bytes: number): Promise<number> {
  const out = createWriteStream(file, {highWaterMark: 1 << 20})
  let written = 0
  let count = 0
  let chunk: string[] = []
  let chunkBytes = 0
  while (written < bytes) {
    const line = `${count + 1} ${lines[count % lines.length]}\n`
    chunk.push(line)
    chunkBytes += line.length
    count++
    if (chunkBytes >= 1 << 20) {
      if (!out.write(chunk.join(''))) await once(out, 'drain')
      written += chunkBytes
      chunk = []
      chunkBytes = 0
    }
  }
  if (chunk.length) out.write(chunk.join(''))
  out.end()
  await once(out, 'finish')
  return count
}

/** A big generated text file to edit (see writeEditableTextFile). */
export interface EditableTextFile {
  /** Lines written. */
  lineCount: number
  /** The number of the line in the middle. */
  middle: number
  /**
   * That line's text with the newline before it: unique in the file ("12 x" also occurs inside
   * "112 x"), so an edit's old text can name it.
   */
  middleLine: string
}

/**
 * Writes a text file of about `bytes` bytes (writeBigTextFile, from lines of the packages in
 * `repoRoot`'s node_modules) and finds its middle line, for the edit cases.
 */
export async function writeEditableTextFile(file: string, repoRoot: string, bytes: number): Promise<EditableTextFile> {
  const lineCount = await writeBigTextFile(file, sampleLines([path.join(repoRoot, 'node_modules')], 20_000), bytes)
  const middle = Math.floor(lineCount / 2)
  const text = readFileSync(file, 'utf8')
  const start = text.indexOf(`\n${middle} `) + 1
  return {lineCount, middle, middleLine: `\n${text.slice(start, text.indexOf('\n', start))}`}
}

/** Size of a file in bytes. */
export function sizeOf(file: string): number {
  return statSync(file).size
}
