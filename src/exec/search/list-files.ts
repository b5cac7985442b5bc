import {BadInputError} from '../../errors.js'
import {escapeControls} from '../../text-escape.js'
import type {Workspace} from '../workspace.js'
import {createFolderFilter, createGlobFilter} from './glob-filter.js'
import {relativeBytes, statVerified} from './run-search.js'
import {walkFiles} from './walk.js'

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
  request: FileListRequest
  signal?: AbortSignal
}): Promise<FileListOutcome> {
  const {workspace, request, signal} = options
  const isIncluded = createGlobFilter(request.globs)
  const target = await workspace.resolve(request.path, {mustExist: true})
  const info = await statVerified(workspace, target, request.path)
  const outcome: FileListOutcome = {target: target.relative, paths: [], isCut: false}
  if (info.isFile()) {
    if (isIncluded(target.relative)) outcome.paths.push(target.relative)
    return outcome
  }
  if (!info.isDirectory()) {
    throw new BadInputError(`"${escapeControls(request.path)}" is neither a folder nor a file. Pass a folder to search.`)
  }
  for await (const files of walkFiles(workspace, relativeBytes(workspace, target), createFolderFilter(request.globs))) {
    signal?.throwIfAborted()
    for (const file of files) {
      if (!isIncluded(file.shown)) continue
      if (outcome.paths.length >= request.maxResults) {
        outcome.isCut = true
        return outcome
      }
      outcome.paths.push(file.shown)
    }
  }
  return outcome
}
