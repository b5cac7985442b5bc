import {BadInputError} from '../../errors.js'
import {escapeControls} from '../../text-escape.js'
import {codePointCount} from '../code-points.js'
import {statPath} from '../files/confined-open.js'
import {SEARCH_MAX_ANSWER_CHARS} from '../limits.js'
import type {Workspace} from '../workspace.js'
import {compileGlobs, folderFilterBases} from './glob-filter.js'
import {IgnoreFileNotes} from './ignore-file.js'
import {walkInParallel} from './parallel-walk.js'
import {relativeBytes} from './run-search.js'
import type {ScanRequest} from './scanner.js'
import type {SearchWorkerPool} from './worker-pool.js'

/** A `search` call without a query: which files below `path` match `globs`. */
export interface FileListRequest {
  /** Folder (or single file) to look in, as the caller gave it. */
  path: string
  /** Glob filters on workspace-relative paths (see `createGlobFilter`); at least one. */
  globs: readonly string[]
  /** Paths to return at most. */
  maxResults: number
}

/** What a file listing found. */
export interface FileListOutcome {
  /** The folder or file looked in, workspace-relative (`.` for the root). */
  target: string
  /**
   * Workspace-relative paths (`/` separators, names in the display form of display-name.ts) of the
   * matching files, in walk order, at most `maxResults`.
   */
  paths: string[]
  /** Whether more files match than were returned. */
  isCut: boolean
  /** When cut, what cut it: the call's max_results, or the answer's size (SEARCH_MAX_ANSWER_CHARS). */
  cutBy?: 'max_results' | 'answer_size'
  /** The note on ignore rules left out (see `IgnoreFileNotes`), when any were. */
  ignoreNote?: string
  /** Folders that could not be listed (their path ends in `/`), and why: their files are not listed. */
  unreadable: Array<{path: string; why: string}>
}

/**
 * Lists the regular files below `path` whose workspace-relative path passes `globs`, walking as
 * `search` does (the same ignore rules, no symlinks, `.git` and `node_modules` skipped; see
 * parallel-walk.ts) without opening any file, so empty and binary files are listed too.
 * @throws BadInputError for a malformed glob or a target that is neither a folder nor a file.
 * @throws OutsideWorkspaceError, NotFoundError for a bad `path` (from `Workspace.resolve`).
 */
export async function listMatchingFiles(options: {
  workspace: Workspace
  pool: SearchWorkerPool
  request: FileListRequest
  signal?: AbortSignal
}): Promise<FileListOutcome> {
  const {workspace, pool, request, signal} = options
  const glob = compileGlobs(request.globs)
  const {path: target, info} = await statPath(workspace, request.path)
  const outcome: FileListOutcome = {target: target.relative, paths: [], isCut: false, unreadable: []}
  if (!info.isFile() && !info.isDirectory()) {
    throw new BadInputError(`"${escapeControls(request.path)}" is neither a folder nor a regular file (a FIFO, socket or device is never searched). Pass a folder or a file to search.`)
  }
  // The glob is matched in the workers, under the search's time limit (see compileGlobs).
  const job = pool.startJob(signal ? {signal} : {})
  const scan: Omit<ScanRequest, 'files' | 'paths'> = {
    maxMatches: request.maxResults + 1,
    maxLineChars: 0,
    maxFileBytes: 0,
    binarySniffBytes: 0,
    ...(glob ? {glob} : {}),
  }
  try {
    if (info.isFile()) {
      const result = await job.scan({...scan, files: [target.real], paths: [target.relative]})
      if (result.matches.length > 0) outcome.paths.push(target.relative)
      return outcome
    }
    let chars = 0
    const notes = new IgnoreFileNotes()
    const folderBases = folderFilterBases(request.globs)
    try {
      await walkInParallel({
        workspace,
        start: relativeBytes(workspace, target),
        job,
        poolSize: pool.size,
        scan,
        ...(folderBases ? {folderBases} : {}),
        notes,
        onResult: (result) => {
          for (const [index, why] of result.unreadable) outcome.unreadable.push({path: result.paths[index] as string, why})
          for (const [index] of result.matches) {
            const path = result.paths[index] as string
            const size = codePointCount(path) + 1
            if (outcome.paths.length >= request.maxResults) outcome.cutBy = 'max_results'
            else if (chars + size > SEARCH_MAX_ANSWER_CHARS) outcome.cutBy = 'answer_size'
            if (outcome.cutBy) {
              outcome.isCut = true
              return true
            }
            chars += size
            outcome.paths.push(path)
          }
          return false
        },
      })
      return outcome
    } finally {
      const note = notes.note()
      if (note !== undefined) outcome.ignoreNote = note
    }
  } finally {
    job.finish()
  }
}
