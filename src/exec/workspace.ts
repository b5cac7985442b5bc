import {lstat, readlink, realpath, stat} from 'node:fs/promises'
import path from 'node:path'

import {BadInputError, NotFoundError, OutsideWorkspaceError, SymlinkLoopError} from '../errors.js'

/** Symlinks followed while resolving one path before giving up (Linux's own limit is 40). */
export const MAX_SYMLINK_HOPS = 40

/** A path inside the workspace, after resolving symlinks. */
export interface ResolvedPath {
  /** Absolute real path (every symlink resolved; a missing tail kept as written). */
  real: string
  /** `real` relative to the workspace root, with `/` separators; `.` for the root itself. */
  relative: string
  /** Whether something exists at `real`. */
  exists: boolean
  /**
   * Set (true) when the path as written names a folder: it ends in `/`, `/.` or `/..`. Such a path
   * to an existing file is refused by `resolve`; one that does not exist yet must become a folder.
   */
  namesFolder?: true
}

function isMissing(error: unknown): boolean {
  const code = (error as NodeJS.ErrnoException).code
  return code === 'ENOENT' || code === 'ENOTDIR'
}

function notAFolderError(requested: string): BadInputError {
  return new BadInputError(
    `A part of "${requested}" is a file, not a folder (a path ending in "/" names a folder). ` +
      'Check the path with the list tool.',
  )
}

function upFromMissingError(requested: string): BadInputError {
  return new BadInputError(
    `"${requested}" goes up ("..") out of a folder that does not exist, which the system refuses too. ` +
      'Remove the "..", or create the folder first.',
  )
}

/**
 * The folder an AgentExec server is confined to (DESIGN §4.2).
 *
 * Every file tool calls `resolve` before touching the disk. The check is made on the real path
 * (symlinks resolved) with a separator boundary, so `/ws_evil` is not inside `/ws`. A path that
 * does not exist yet is checked through its nearest existing ancestor; only "does not exist"
 * errors take that route, and a dangling symlink is followed by reading the link, never treated
 * as missing. This is a check, not a security boundary: see the README.
 */
export class Workspace {
  private constructor(
    /** The workspace's real path. */
    readonly root: string,
  ) {}

  /**
   * Opens a workspace folder.
   * @throws BadInputError when `dir` does not exist or is not a directory.
   */
  static async open(dir: string): Promise<Workspace> {
    const absolute = path.resolve(dir)
    let info
    try {
      info = await stat(absolute)
    } catch {
      throw new BadInputError(`Workspace "${dir}" does not exist. Pass --workspace an existing folder.`)
    }
    if (!info.isDirectory()) {
      throw new BadInputError(`Workspace "${dir}" is not a folder. Pass --workspace an existing folder.`)
    }
    return new Workspace(await realpath(absolute))
  }

  /** Whether the real path `real` is the root or lies below it. */
  isInside(real: string): boolean {
    if (real === this.root) return true
    const base = this.root.endsWith(path.sep) ? this.root : this.root + path.sep
    return real.startsWith(base)
  }

  /** `real` relative to the root, with `/` separators (`.` for the root). */
  relativeOf(real: string): string {
    const relative = path.relative(this.root, real)
    return relative === '' ? '.' : relative.split(path.sep).join('/')
  }

  /**
   * Resolves a tool's `path` argument (relative to the workspace, or absolute) to a real path
   * inside the workspace.
   * @throws BadInputError for an empty path or one containing a NUL byte, a path that goes through
   *   a file as if it were a folder (`file.txt/`), or one with `..` after a missing folder.
   * @throws SymlinkLoopError (a BadInputError) after MAX_SYMLINK_HOPS symlinks.
   * @throws OutsideWorkspaceError when the real path lies outside the workspace.
   * @throws NotFoundError when `mustExist` and nothing is there.
   */
  async resolve(requested: string, options: {mustExist?: boolean} = {}): Promise<ResolvedPath> {
    if (requested.length === 0) throw new BadInputError('The path is empty. Pass a path inside the workspace.')
    if (requested.includes('\0')) throw new BadInputError('The path contains a NUL byte. Pass a plain path.')
    const {real, exists, namesFolder} = await this.walk(requested)
    if (!this.isInside(real)) throw new OutsideWorkspaceError(requested)
    if (options.mustExist && !exists) {
      throw new NotFoundError(`Nothing exists at "${requested}" in the workspace. Check the path with the list tool.`)
    }
    return {real, relative: this.relativeOf(real), exists, ...(namesFolder ? {namesFolder} : {})}
  }

  /**
   * Walks `requested` one name at a time as the kernel does: `..` goes to the parent of the real
   * folder reached so far (not of the path as written), and a symlink's target continues the walk
   * from the real folder holding the link. The first missing name ends the walk; the rest is kept
   * as written, but a `..` in it is refused, since the kernel fails such a path (ENOENT). A refusal
   * made while the walk stands outside the workspace says only "outside", revealing nothing there.
   */
  private async walk(requested: string): Promise<{real: string; exists: boolean; namesFolder?: true}> {
    const pending = namesOf(requested)
    const namesFolder = ['.', '..'].includes(pending.at(-1) ?? '.') || undefined
    let real = path.isAbsolute(requested) ? path.sep : this.root
    let isFolder = true
    let hops = 0
    const refuse = (error: BadInputError) => (this.isInside(real) ? error : new OutsideWorkspaceError(requested))
    for (let name = pending.shift(); name !== undefined; name = pending.shift()) {
      if (!isFolder) throw refuse(notAFolderError(requested))
      if (name === '.') continue
      if (name === '..') {
        real = path.dirname(real)
        continue
      }
      const next = path.join(real, name)
      let info
      try {
        info = await lstat(next)
      } catch (error) {
        if (!isMissing(error)) throw error
        const tail = [name, ...pending].filter((rest) => rest !== '.')
        if (tail.includes('..')) throw refuse(upFromMissingError(requested))
        return {real: path.join(real, ...tail), exists: false, namesFolder}
      }
      if (info.isSymbolicLink()) {
        if (++hops > MAX_SYMLINK_HOPS) throw refuse(new SymlinkLoopError(requested))
        const target = await readlink(next)
        if (path.isAbsolute(target)) real = path.sep
        pending.unshift(...namesOf(target))
        continue
      }
      real = next
      isFolder = info.isDirectory()
    }
    return {real, exists: true, namesFolder}
  }
}

/** The names of a path, in order; a trailing separator becomes a final `.` (it names a folder). */
function namesOf(requested: string): string[] {
  const names = requested.split(path.sep).filter((name) => name !== '')
  if (requested.endsWith(path.sep)) names.push('.')
  return names
}
