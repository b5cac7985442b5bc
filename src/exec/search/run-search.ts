import {BadInputError} from '../../errors.js'
import {escapeControls} from '../../text-escape.js'
import {statPath} from '../files/confined-open.js'
import {codePointCount} from '../code-points.js'
import {BINARY_SNIFF_BYTES, SEARCH_MAX_ANSWER_CHARS, SEARCH_MAX_FILE_BYTES, SEARCH_MAX_LINE_CHARS} from '../limits.js'
import type {ResolvedPath, Workspace} from '../workspace.js'
import {compileGlobs, folderFilterBases} from './glob-filter.js'
import {IgnoreFileNotes} from './ignore-file.js'
import {compileQuery, type QueryInput} from './query.js'
import {withPrefilter} from './regex-prefilter.js'
import {walkInParallel} from './parallel-walk.js'
import type {ScanRequest, ScanResult} from './scanner.js'
import type {WalkResult} from './walk-task.js'
import type {SearchWorkerPool} from './worker-pool.js'

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
 * Runs one search: resolves `path` inside the workspace, and walks and scans it on the pool's
 * workers (see parallel-walk.ts), this thread keeping the order. Results come back in walk order
 * whatever order the workers finish in; once more than `maxResults` lines have matched, or the
 * answer would pass SEARCH_MAX_ANSWER_CHARS, the walk stops and queued tasks are dropped.
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
  const {path: target, info} = await statPath(workspace, request.path)
  if (!info.isFile() && !info.isDirectory()) {
    throw new BadInputError(`"${escapeControls(request.path)}" is neither a folder nor a regular file (a FIFO, socket or device is never searched). Pass a folder or a file to search.`)
  }
  const targetBytes = relativeBytes(workspace, target)
  const scanBase: Omit<ScanRequest, 'files'> = {
    query,
    maxMatches: request.maxResults + 1,
    maxLineChars: SEARCH_MAX_LINE_CHARS,
    maxFileBytes: SEARCH_MAX_FILE_BYTES,
    binarySniffBytes: BINARY_SNIFF_BYTES,
  }

  // What the walk found, in walk order: each part's matches refer to files by index into its `paths`.
  const parts: Array<{paths: string[]; result: Pick<ScanResult, 'matches' | 'filesSearched' | 'binaryFiles' | 'tooLarge' | 'unreadable'>}> = []
  let settledMatches = 0
  let settledChars = 0
  let isCut = false
  const settle = (paths: string[], result: ScanResult | WalkResult): boolean => {
    for (const [fileIndex, line, text] of result.matches) settledChars += answerLineChars(paths[fileIndex] as string, line, text)
    settledMatches += result.matches.length
    // Only what the answer is built from is kept (a walk task's result also carries its ignore files).
    const {matches, filesSearched, binaryFiles, tooLarge, unreadable} = result
    parts.push({paths, result: {matches, filesSearched, binaryFiles, tooLarge, unreadable}})
    if (settledMatches > request.maxResults || settledChars > SEARCH_MAX_ANSWER_CHARS) isCut = true
    return isCut
  }
  const ignoreNotes = new IgnoreFileNotes()
  const job = pool.startJob(options.signal ? {signal: options.signal} : {})
  try {
    if (info.isFile()) {
      const scan: ScanRequest = {...scanBase, files: [target.real]}
      if (glob) Object.assign(scan, {glob, paths: [target.relative]})
      settle([target.relative], await job.scan(scan))
    } else {
      const folderBases = folderFilterBases(request.globs)
      await walkInParallel({
        workspace,
        start: targetBytes,
        job,
        poolSize: pool.size,
        scan: glob ? {...scanBase, glob} : scanBase,
        ...(folderBases ? {folderBases} : {}),
        notes: ignoreNotes,
        onResult: (result) => settle(result.paths, result),
      })
    }
  } finally {
    job.finish()
  }

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
  for (const {paths, result} of parts) {
    for (const [fileIndex, line, text] of result.matches) {
      if (outcome.cutBy) break
      const path = paths[fileIndex] as string
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
    for (const fileIndex of result.tooLarge) outcome.tooLarge.push(paths[fileIndex] as string)
    for (const [fileIndex, why] of result.unreadable) outcome.unreadable.push({path: paths[fileIndex] as string, why})
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
