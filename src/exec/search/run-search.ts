import {BadInputError} from '../../errors.js'
import {escapeControls} from '../../text-escape.js'
import {statConfined} from '../files/confined-open.js'
import {codePointCount} from '../code-points.js'
import {BINARY_SNIFF_BYTES, SEARCH_MAX_ANSWER_CHARS, SEARCH_MAX_FILE_BYTES, SEARCH_MAX_LINE_CHARS} from '../limits.js'
import type {ResolvedPath, Workspace} from '../workspace.js'
import {compileGlobs, createFolderFilter} from './glob-filter.js'
import {IgnoreFileNotes} from './ignore-file.js'
import {compileQuery, type QueryInput} from './query.js'
import {withPrefilter} from './regex-prefilter.js'
import type {ScanRequest, ScanResult} from './scanner.js'
import {type WalkedFile, walkFiles} from './walk.js'
import {SearchJobFinishedError, type SearchWorkerPool} from './worker-pool.js'

/**
 * Bytes of paths handed to a worker at once (a path's length counts, in UTF-16 units for text):
 * about 200 absolute paths of a source tree. Handing a batch over costs in proportion to its message, and
 * a batch of a fixed count of files costs more for deep paths; this keeps messages few (each costs
 * both threads a copy and a turn of their event loops) and still spreads a search over the workers.
 */
export const SEARCH_BATCH_BYTES = 16 * 1024

/** What `file` adds to its batch's size (see `SEARCH_BATCH_BYTES`): its path, and its shown path when that is sent too. */
export function batchBytes(file: WalkedFile, withShown: boolean): number {
  return file.path.length + (withShown ? file.shown.length : 0)
}

/** Batches in flight per worker: one running and one waiting, so no worker idles between batches. */
const BATCHES_IN_FLIGHT_PER_WORKER = 2

/** One `search` call, with defaults already applied. */
export interface SearchRequest {
  query: QueryInput
  /** Folder (or single file) to search, as the caller gave it. */
  path: string
  /** Glob filters on workspace-relative paths (see `createGlobFilter`). */
  globs: readonly string[]
  /** Matching lines to return at most. */
  maxResults: number
}

/** One matching line. */
export interface SearchMatch {
  /** Workspace-relative path in the display form (see display-name.ts), `/` separators. */
  path: string
  /** 1-based line number. */
  line: number
  /** The line, clipped around the match when longer than `SEARCH_MAX_LINE_CHARS`. */
  text: string
}

/** What a search found. */
export interface SearchOutcome {
  /** The searched folder or file, workspace-relative (`.` for the root). */
  target: string
  /** Whether `target` is a single file. */
  isFile: boolean
  /** Matching lines in walk order (see `walkFiles`), at most `maxResults` and SEARCH_MAX_ANSWER_CHARS. */
  matches: SearchMatch[]
  /** Whether more matching lines exist than were returned. */
  isCut: boolean
  /** When cut, what cut it: the call's max_results, or the answer's size (SEARCH_MAX_ANSWER_CHARS). */
  cutBy?: 'max_results' | 'answer_size'
  /** Files whose contents were searched (when cut: up to where the search stopped). */
  filesSearched: number
  /** Files skipped as binary. */
  binaryFiles: number
  /** Workspace-relative paths of files skipped for being larger than `SEARCH_MAX_FILE_BYTES`. */
  tooLarge: string[]
  /** Files that could not be read (see `ScanResult.unreadable`): workspace-relative path and why. */
  unreadable: Array<{path: string; why: string}>
  /** The note on ignore rules left out (see `IgnoreFileNotes`), when any were. */
  ignoreNote?: string
}

/**
 * Runs one search: resolves `path` inside the workspace, walks it on this thread (async, so the
 * server keeps answering other calls) and scans batches of files on the pool's workers. Results
 * come back in walk order whatever order the batches finish in; once more than `maxResults`
 * lines have matched, the walk stops and queued batches are dropped.
 * @throws BadInputError for an invalid query, regex or glob, or a target that is neither a folder nor a file.
 * @throws OutsideWorkspaceError, NotFoundError for a bad `path` (from `Workspace.resolve`).
 * @throws LimitReachedError when the search passes the pool's time limit.
 */
export async function runSearch(options: {
  workspace: Workspace
  pool: SearchWorkerPool
  request: SearchRequest
  signal?: AbortSignal
}): Promise<SearchOutcome> {
  const {workspace, pool, request} = options
  const query = withPrefilter(compileQuery(request.query))
  const glob = compileGlobs(request.globs)
  const target = await workspace.resolve(request.path, {mustExist: true})
  const info = await statConfined(workspace, target.real, request.path)
  if (!info.isFile() && !info.isDirectory()) {
    throw new BadInputError(`"${escapeControls(request.path)}" is neither a folder nor a file. Pass a folder to search.`)
  }
  const targetBytes = relativeBytes(workspace, target)
  const scanBase: Omit<ScanRequest, 'files'> = {
    query,
    maxMatches: request.maxResults + 1,
    maxLineChars: SEARCH_MAX_LINE_CHARS,
    maxFileBytes: SEARCH_MAX_FILE_BYTES,
    binarySniffBytes: BINARY_SNIFF_BYTES,
    root: workspace.rootBytes,
  }

  const batches: WalkedFile[][] = []
  const results: ScanResult[] = []
  const inFlight = new Set<Promise<void>>()
  let settled = 0
  let settledMatches = 0
  let settledChars = 0
  let isCut = false
  let failure: unknown

  const advance = (): void => {
    for (let result = results[settled]; result && !isCut; result = results[settled]) {
      settledMatches += result.matches.length
      const files = batches[settled] as WalkedFile[]
      for (const [fileIndex, line, text] of result.matches) settledChars += answerLineChars((files[fileIndex] as WalkedFile).shown, line, text)
      // Only the paths of batches that matched are needed later; let a huge walk's others go.
      if (result.matches.length === 0 && result.tooLarge.length === 0 && result.unreadable.length === 0) batches[settled] = []
      settled++
      if (settledMatches > request.maxResults || settledChars > SEARCH_MAX_ANSWER_CHARS) isCut = true
    }
  }
  const job = pool.startJob(options.signal ? {signal: options.signal} : {})
  const dispatch = (files: WalkedFile[]): void => {
    const index = batches.push(files) - 1
    const scan: ScanRequest = {...scanBase, files: files.map((file) => file.path)}
    // The glob is matched in the workers, under the search's time limit (see compileGlobs).
    if (glob) Object.assign(scan, {glob, paths: files.map((file) => file.shown)})
    const done = job.scan(scan).then(
      (result) => {
        results[index] = result
        advance()
      },
      (error: unknown) => {
        if (!(error instanceof SearchJobFinishedError)) failure ??= error
      },
    )
    inFlight.add(done)
    void done.then(() => inFlight.delete(done))
  }
  const isStopped = (): boolean => isCut || failure !== undefined
  const ignoreNotes = new IgnoreFileNotes()

  try {
    if (info.isFile()) {
      dispatch([{path: target.real, shown: target.relative}])
    } else {
      const maxInFlight = pool.size * BATCHES_IN_FLIGHT_PER_WORKER
      let pending: WalkedFile[] = []
      let pendingBytes = 0
      for await (const files of walkFiles(workspace, targetBytes, createFolderFilter(request.globs), undefined, ignoreNotes)) {
        for (const file of files) {
          pending.push(file)
          pendingBytes += batchBytes(file, glob !== undefined)
          if (pendingBytes >= SEARCH_BATCH_BYTES) {
            dispatch(pending)
            pending = []
            pendingBytes = 0
          }
        }
        while (inFlight.size >= maxInFlight && !isStopped()) await Promise.race(inFlight)
        if (isStopped()) break
      }
      if (pending.length > 0 && !isStopped()) dispatch(pending)
    }
    while (inFlight.size > 0 && !isStopped()) await Promise.race(inFlight)
  } finally {
    job.finish()
  }
  if (failure !== undefined) throw failure

  const outcome: SearchOutcome = {
    target: target.relative,
    isFile: info.isFile(),
    matches: [],
    isCut: false,
    filesSearched: 0,
    binaryFiles: 0,
    tooLarge: [],
    unreadable: [],
  }
  let chars = 0
  for (let index = 0; index < settled; index++) {
    const result = results[index] as ScanResult
    const files = batches[index] as WalkedFile[]
    for (const [fileIndex, line, text] of result.matches) {
      if (outcome.cutBy) break
      const path = (files[fileIndex] as WalkedFile).shown
      const size = answerLineChars(path, line, text)
      if (outcome.matches.length >= request.maxResults) outcome.cutBy = 'max_results'
      else if (chars + size > SEARCH_MAX_ANSWER_CHARS) outcome.cutBy = 'answer_size'
      else {
        chars += size
        outcome.matches.push({path, line, text})
      }
    }
    outcome.filesSearched += result.filesSearched
    outcome.binaryFiles += result.binaryFiles
    for (const fileIndex of result.tooLarge) outcome.tooLarge.push((files[fileIndex] as WalkedFile).shown)
    for (const [fileIndex, why] of result.unreadable) outcome.unreadable.push({path: (files[fileIndex] as WalkedFile).shown, why})
  }
  outcome.isCut = outcome.cutBy !== undefined
  const ignoreNote = ignoreNotes.note()
  if (ignoreNote !== undefined) outcome.ignoreNote = ignoreNote
  return outcome
}

/** Characters (code points) one match takes in the answer: `path:line:text` and its line break. */
export function answerLineChars(path: string, line: number, text: string): number {
  return codePointCount(path) + String(line).length + codePointCount(text) + 3
}

/** The workspace-relative path of `target` as bytes (empty for the root), as `walkFiles` takes it. */
export function relativeBytes(workspace: Workspace, target: ResolvedPath): Buffer {
  return target.real.subarray(workspace.rootBytes.length + (workspace.rootBytes.length === 1 ? 0 : 1))
}
