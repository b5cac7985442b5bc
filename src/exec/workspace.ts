import {lstat, readlink, realpath, stat} from 'node:fs/promises'
import path from 'node:path'

import {BadInputError, NotFoundError, OutsideWorkspaceError} from '../errors.js'

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
}

function isMissing(error: unknown): boolean {
  const code = (error as NodeJS.ErrnoException).code
  return code === 'ENOENT' || code === 'ENOTDIR'
}

/** Turns the kernel's "too many levels of symbolic links" into bad input; rethrows anything else. */
function rethrowUnlessLoop(error: unknown, requested: string): never {
  if ((error as NodeJS.ErrnoException).code === 'ELOOP') throw symlinkLoopError(requested)
  throw error
}

function symlinkLoopError(requested: string): BadInputError {
  return new BadInputError(`Too many symbolic links while resolving "${requested}". Check for a link loop.`)
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
   * @throws BadInputError for an empty path or one containing a NUL byte.
   * @throws OutsideWorkspaceError when the real path lies outside the workspace.
   * @throws NotFoundError when `mustExist` and nothing is there.
   */
  async resolve(requested: string, options: {mustExist?: boolean} = {}): Promise<ResolvedPath> {
    if (requested.length === 0) throw new BadInputError('The path is empty. Pass a path inside the workspace.')
    if (requested.includes('\0')) throw new BadInputError('The path contains a NUL byte. Pass a plain path.')
    const absolute = path.resolve(this.root, requested)
    const {real, exists} = await realPathOf(absolute, requested)
    if (!this.isInside(real)) throw new OutsideWorkspaceError(requested)
    if (options.mustExist && !exists) {
      throw new NotFoundError(`Nothing exists at "${requested}" in the workspace. Check the path with the list tool.`)
    }
    return {real, relative: this.relativeOf(real), exists}
  }
}

/**
 * The real path of `absolute`: realpath of its nearest existing ancestor, with the missing tail
 * appended. A dangling symlink on the way is read and its target resolved in turn.
 */
async function realPathOf(absolute: string, requested: string, hops = 0): Promise<{real: string; exists: boolean}> {
  if (hops > MAX_SYMLINK_HOPS) throw symlinkLoopError(requested)
  const missingTail: string[] = []
  let current = absolute
  for (;;) {
    try {
      await lstat(current)
      break
    } catch (error) {
      if (!isMissing(error)) rethrowUnlessLoop(error, requested)
      const parent = path.dirname(current)
      if (parent === current) break
      missingTail.unshift(path.basename(current))
      current = parent
    }
  }
  let real: string
  try {
    real = await realpath(current)
  } catch (error) {
    if (!isMissing(error)) rethrowUnlessLoop(error, requested)
    // `current` exists but does not resolve: a dangling symlink (possibly through a chain).
    // Follow it by hand so its target, not its parent, decides where the path lies. A relative
    // target is relative to the folder the link really lives in (as the kernel reads it), not
    // to the path as written, which may pass through other symlinks.
    const folder = await realpath(path.dirname(current)).catch((cause: unknown) => rethrowUnlessLoop(cause, requested))
    const target = path.resolve(folder, await readlink(current))
    const followed = await realPathOf(target, requested, hops + 1)
    return {real: path.join(followed.real, ...missingTail), exists: false}
  }
  return {real: path.join(real, ...missingTail), exists: missingTail.length === 0}
}
