import {BadInputError} from '../../errors.js'
import {escapeControls} from '../../text-escape.js'
import {codePointCount} from '../code-points.js'
import {statConfined} from '../files/confined-open.js'
import {SEARCH_MAX_ANSWER_CHARS} from '../limits.js'
import type {Workspace} from '../workspace.js'
import {compileGlobs, createFolderFilter} from './glob-filter.js'
import {IgnoreFileNotes} from './ignore-file.js'
import {relativeBytes} from './run-search.js'
import type {ScanRequest} from './scanner.js'
import {type WalkedFile, walkFiles} from './walk.js'
import type {SearchWorkerPool} from './worker-pool.js'

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
}

/**
 * Lists the regular files below `path` whose workspace-relative path passes `globs`, walking as
 * `search` does (the same ignore rules, no symlinks, `.git` and `node_modules` skipped; see
 * `walkFiles`) without opening any file, so empty and binary files are listed too.
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
  const target = await workspace.resolve(request.path, {mustExist: true})
  const info = await statConfined(workspace, target.real, request.path)
  const outcome: FileListOutcome = {target: target.relative, paths: [], isCut: false}
  if (!info.isFile() && !info.isDirectory()) {
    throw new BadInputError(`"${escapeControls(request.path)}" is neither a folder nor a file. Pass a folder to search.`)
  }
  // The glob is matched in the workers, under the search's time limit (see compileGlobs); in
  // order, one batch at a time, since matching a name is quick next to walking to it.
  const job = pool.startJob(signal ? {signal} : {})
  const passing = async (files: WalkedFile[]): Promise<string[]> => {
    const scan: ScanRequest = {
      files: files.map((file) => file.path),
      paths: files.map((file) => file.shown),
      maxMatches: files.length,
      maxLineChars: 0,
      maxFileBytes: 0,
      binarySniffBytes: 0,
      root: workspace.rootBytes,
      ...(glob ? {glob} : {}),
    }
    const result = await job.scan(scan)
    return result.matches.map(([index]) => (files[index] as WalkedFile).shown)
  }
  try {
    if (info.isFile()) {
      outcome.paths.push(...(await passing([{path: target.real, shown: target.relative}])))
      return outcome
    }
    let pending: WalkedFile[] = []
    let pendingBytes = 0
    let chars = 0
    const flush = async (): Promise<boolean> => {
      for (const path of await passing(pending)) {
        const size = codePointCount(path) + 1
        if (outcome.paths.length >= request.maxResults) outcome.cutBy = 'max_results'
        else if (chars + size > SEARCH_MAX_ANSWER_CHARS) outcome.cutBy = 'answer_size'
        if (outcome.cutBy) {
          outcome.isCut = true
          return false
        }
        chars += size
        outcome.paths.push(path)
      }
      pending = []
      pendingBytes = 0
      return true
    }
    const notes = new IgnoreFileNotes()
    try {
      for await (const files of walkFiles(workspace, relativeBytes(workspace, target), createFolderFilter(request.globs), undefined, notes)) {
        signal?.throwIfAborted()
        for (const file of files) {
          pending.push(file)
          pendingBytes += batchBytes(file, true)
        }
        if (pendingBytes >= SEARCH_BATCH_BYTES && !(await flush())) return outcome
      }
      if (pending.length > 0) await flush()
      return outcome
    } finally {
      const note = notes.note()
      if (note !== undefined) outcome.ignoreNote = note
    }
  } finally {
    job.finish()
  }
}
