import {realpath, stat} from 'node:fs/promises'
import {homedir} from 'node:os'
import path from 'node:path'

import {BadInputError, NotFoundError, OutsideWorkspaceError, SymlinkLoopError} from '../errors.js'
import {escapeControls} from '../text-escape.js'
import {displayName, parseDisplayPath} from './display-name.js'
import {explainFsError} from './fs-errors.js'
import {type FolderCursor, openFolderCursor} from './workspace-walk.js'

/** Symlinks followed while resolving one path before giving up (Linux's own limit is 40). */
export const MAX_SYMLINK_HOPS = 40

/**
 * Longest `path` argument, in characters: the system's PATH_MAX of 4096 bytes, each of which the
 * display form may write as four characters (`\xff`).
 */
export const MAX_PATH_ARGUMENT_CHARS = 16_384

/** Longest file name, in bytes, that Linux and macOS file systems accept (NAME_MAX). */
export const MAX_NAME_BYTES = 255

const SLASH = 0x2f
/** `~`, which ak refuses at the start of a path (it does not expand it). */
const TILDE = 0x7e
/** A UTF-16 surrogate not part of a pair (with the u flag, a pair is one code point and does not match). */
const LONE_SURROGATE = /[\uD800-\uDFFF]/u
const SLASH_BYTES = Buffer.from('/')
const DOT = Buffer.from('.')
const DOT_DOT = Buffer.from('..')

/** A path inside the workspace, after resolving symlinks. */
export interface ResolvedPath {
  /** Absolute real path as bytes (every symlink resolved; a missing tail kept as written). */
  real: Buffer
  /** `real` relative to the workspace root in the display form (see display-name.ts); `.` for the root. */
  relative: string
  /** Whether something exists at `real`. */
  exists: boolean
  /**
   * The names at the end of `real` that do not exist yet, in order (empty when `exists`): the
   * folder `real` without them exists, and is a folder.
   */
  missing: Buffer[]
  /**
   * Set (true) when the path as written names a folder: it ends in `/`, `/.` or `/..`. Such a path
   * to an existing file is refused by `resolve`; one that does not exist yet must become a folder.
   */
  namesFolder?: true
}

/** An existing path inside the workspace whose folder is held open to reach it (Workspace.resolveHeld). */
export interface HeldPath extends ResolvedPath {
  /**
   * A path that reaches the object at `real` through the held folder (`/proc/self/fd/N/name`, or
   * `/proc/self/fd/N/.` for the folder itself) on Linux; undefined where no folder is held (open
   * `real` from the root then, see confined-open.ts).
   */
  via?: Buffer
  /** Closes the held folder; call it once the object is open (a second call does nothing). */
  release(): void
}

/** The path `folder/name` as bytes. */
export function joinBytes(folder: Uint8Array, name: Uint8Array): Buffer {
  return folder.length === 1 && folder[0] === SLASH
    ? Buffer.concat([SLASH_BYTES, name])
    : Buffer.concat([folder, SLASH_BYTES, name])
}

/** The names of a path given as bytes, in order; a trailing `/` becomes a final `.` (it names a folder). */
function namesOf(bytes: Buffer): Buffer[] {
  const names = splitPath(bytes)
  if (bytes.at(-1) === SLASH) names.push(DOT)
  return names
}

/** The names of a path given as bytes, in order, without empty ones (`a//b/` gives `a`, `b`). */
export function splitPath(bytes: Buffer): Buffer[] {
  const names: Buffer[] = []
  let start = 0
  for (let index = 0; index <= bytes.length; index++) {
    if (index === bytes.length || bytes[index] === SLASH) {
      if (index > start) names.push(bytes.subarray(start, index))
      start = index + 1
    }
  }
  return names
}

/** The real path `real` (bytes) without its last name (never above `/`). */
export function parentOf(real: Buffer): Buffer {
  const cut = real.lastIndexOf(SLASH)
  return cut <= 0 ? SLASH_BYTES : real.subarray(0, cut)
}

/**
 * The folder an AgentExec server is confined to (DESIGN §4.2).
 *
 * `resolve` judges a tool's `path` argument before anything touches the disk outside: the walk
 * goes one name at a time as the kernel does, and it makes system calls only at or below the
 * root. Above the root it moves by the root's own names alone (the root is a real path, so its
 * ancestors are plain folders); any other name there, or a symlink whose target leaves the root,
 * ends the walk as "outside" without looking at the target. So a refusal reads the same whether
 * the outside path exists or not.
 *
 * Below the root the walk looks at each name through the folder it is in (workspace-walk.ts), so
 * that what it answers (missing, a file, a link leading outside) is about an object proven to lie
 * inside. src/exec/files/confined-open.ts then opens the object the same way and verifies what
 * was opened, so a path swapped after this check cannot move the work outside.
 */
export class Workspace {
  /** The root's names, outermost first (empty when the root is `/`). */
  private readonly rootNames: Buffer[]

  private constructor(
    /** The workspace's real path. */
    readonly root: string,
    /** The workspace's real path as bytes. */
    readonly rootBytes: Buffer,
    /** Absolute spellings of the root as it was given (through symlinks), accepted in absolute paths. */
    private readonly aliases: Buffer[],
  ) {
    this.rootNames = namesOf(rootBytes).filter((name) => !name.equals(DOT))
  }

  /**
   * Opens a workspace folder.
   * @throws BadInputError when `dir` is empty, does not exist or is not a directory.
   */
  static async open(dir: string): Promise<Workspace> {
    if (dir.trim() === '') {
      throw new BadInputError('The workspace path is empty. Pass --workspace an existing folder (for example --workspace .).')
    }
    const absolute = path.resolve(dir)
    let info
    try {
      info = await stat(absolute)
    } catch (error) {
      const shown = escapeControls(dir)
      if (/^~(?:\/|$)/.test(dir)) {
        throw new BadInputError(
          `Workspace "${shown}" does not exist: ak does not expand "~" (a shell does, and MCP clients start servers without one). ` +
            `Pass the absolute path, such as "${escapeControls(path.join(homedir(), dir.slice(1)))}".`,
        )
      }
      if ((error as NodeJS.ErrnoException).code === 'ELOOP') {
        throw new BadInputError(`Workspace "${shown}" is a loop of symbolic links. Pass --workspace an existing folder.`)
      }
      throw new BadInputError(`Workspace "${shown}" does not exist. Pass --workspace an existing folder.`)
    }
    if (!info.isDirectory()) {
      throw new BadInputError(`Workspace "${escapeControls(dir)}" is not a folder. Pass --workspace an existing folder.`)
    }
    const root = await realpath(absolute)
    const aliases = absolute === root ? [] : [Buffer.from(absolute)]
    return new Workspace(root, Buffer.from(root), aliases)
  }

  /** Whether the real path `real` (text or bytes) is the root or lies below it. */
  isInside(real: string | Uint8Array): boolean {
    const bytes = typeof real === 'string' ? Buffer.from(real) : Buffer.from(real.buffer, real.byteOffset, real.byteLength)
    const root = this.rootBytes
    if (!bytes.subarray(0, root.length).equals(root)) return false
    if (bytes.length === root.length) return true
    return root.at(-1) === SLASH || bytes[root.length] === SLASH
  }

  /** `real` (inside the workspace) relative to the root, in the display form (`.` for the root). */
  relativeOf(real: Uint8Array): string {
    const skip = this.rootBytes.length === 1 ? 1 : this.rootBytes.length + 1
    return real.length <= this.rootBytes.length ? '.' : displayName(real.subarray(skip))
  }

  /**
   * Resolves a tool's `path` argument (relative to the workspace, or absolute; in the display
   * form, see display-name.ts) to a real path inside the workspace.
   * @throws BadInputError for an empty path, a NUL byte, a leading `~`, a malformed escape, a
   *   name longer than MAX_NAME_BYTES, a path that goes through a file as if it were a folder
   *   (`file.txt/`), one with `..` after a missing folder, or a folder it may not look into.
   * @throws SymlinkLoopError (a BadInputError) after MAX_SYMLINK_HOPS symlinks.
   * @throws OutsideWorkspaceError when the path leads outside the workspace.
   * @throws NotFoundError when `mustExist` and nothing is there.
   * With `hold`, an existing path comes back as a HeldPath (see resolveHeld).
   */
  async resolve(requested: string, options: {mustExist?: boolean; hold?: boolean} = {}): Promise<ResolvedPath> {
    const shown = escapeControls(requested.slice(0, 200)) + (requested.length > 200 ? '…' : '')
    if (requested.length === 0) throw new BadInputError('The path is empty. Pass a path inside the workspace ("." for its root).')
    if (requested.length > MAX_PATH_ARGUMENT_CHARS) {
      throw new BadInputError(
        `The path "${shown}" has ${requested.length} characters; a path may have at most ${MAX_PATH_ARGUMENT_CHARS} ` +
          '(the system allows 4096 bytes). Pass a shorter path.',
      )
    }
    if (LONE_SURROGATE.test(requested)) {
      throw new BadInputError(`The path "${shown}" holds a lone UTF-16 surrogate, which is not a character. Pass the path as it is shown.`)
    }
    const bytes = parseDisplayPath(requested)
    // Judged on the decoded bytes, so that an escaped `\x7e` is refused as a typed `~` is.
    if (bytes[0] === TILDE) {
      throw new BadInputError(
        `The path "${shown}" starts with "~". ak does not expand "~": paths are relative to the workspace, ` +
          `or absolute inside it. For a file really named "${shown}", write "./${shown}".`,
      )
    }
    if (bytes.includes(0)) throw new BadInputError(`The path "${shown}" contains a NUL byte, which no file name can hold. Pass a plain path.`)
    const resolved = await this.walk(this.unaliased(bytes), requested, 0, options.hold === true)
    if (options.mustExist && !resolved.exists) {
      throw new NotFoundError(`Nothing exists at "${shown}" in the workspace. Check the path with the list tool.`)
    }
    return resolved
  }

  /**
   * Resolves `requested` as `resolve` with `mustExist` does, and keeps the folder the walk ended in
   * open: open the object by `via` (through that folder, so neither a second walk nor a swap of a
   * folder on the way stands between the check and the open), then call `release`.
   * @throws as `resolve` does.
   */
  async resolveHeld(requested: string): Promise<HeldPath> {
    const resolved = (await this.resolve(requested, {mustExist: true, hold: true})) as Partial<HeldPath> & ResolvedPath
    return {...resolved, release: resolved.release ?? (() => undefined)}
  }

  /**
   * Where the symlink at `linkReal` (a real path inside the workspace) leads, judged as `resolve`
   * judges a path: the target `written` is followed from the link's folder.
   * @throws as `resolve` does (without NotFoundError).
   */
  async resolveLinkTarget(linkReal: Buffer, written: Buffer): Promise<ResolvedPath> {
    const start = written[0] === SLASH ? this.unaliased(written) : joinBytes(parentOf(linkReal), written)
    // Reading the link itself was the first of the MAX_SYMLINK_HOPS the system allows.
    return this.walk(start, displayName(linkReal), 1)
  }

  /** `bytes` with a leading alias of the root (its spelling as given) replaced by the real root. */
  private unaliased(bytes: Buffer): Buffer {
    for (const alias of this.aliases) {
      if (bytes.subarray(0, alias.length).equals(alias) && (bytes.length === alias.length || bytes[alias.length] === SLASH)) {
        return Buffer.concat([this.rootBytes, bytes.subarray(alias.length)])
      }
    }
    return bytes
  }

  /**
   * Walks `bytes` one name at a time as the kernel does: `..` goes to the parent of the real
   * folder reached so far (not of the path as written), and a symlink's target continues the walk
   * from the real folder holding the link. Above the root the walk is lexical (see the class
   * comment). The first missing name ends the walk; the rest is kept as written, but a `..` in
   * it is refused, since the kernel fails such a path (ENOENT). Below the root it looks at each
   * name through the folder it is in (see workspace-walk.ts), so every answer is about an object
   * proven to lie inside.
   */
  private async walk(bytes: Buffer, requested: string, hopsBefore = 0, hold = false): Promise<ResolvedPath | HeldPath> {
    const shown = escapeControls(requested)
    const outside = () => new OutsideWorkspaceError(requested)
    // A stack: the next name is last, so following a link pushes its names in one step.
    const pending = namesOf(bytes).reverse()
    const last = pending[0]
    const namesFolder = last === undefined || last.equals(DOT) || last.equals(DOT_DOT) || undefined
    // Below the root: `real` is a real folder at or below it. Above: `depth` of the root's names reached.
    let real: Buffer | undefined = bytes[0] === SLASH ? undefined : this.rootBytes
    let depth = 0
    if (real === undefined && this.rootNames.length === 0) real = this.rootBytes
    let isFolder = true
    let hops = hopsBefore
    // The folder the walk is in: `real` whenever a name is looked up (a last folder is not entered).
    let cursor: FolderCursor | undefined
    try {
      cursor = openFolderCursor(this.rootBytes, real, requested)
      for (let name = pending.pop(); name !== undefined; name = pending.pop()) {
        if (!isFolder) {
          const note = requested.endsWith('/') ? ' (a path ending in "/" names a folder)' : ''
          throw new BadInputError(`A part of "${shown}" is a file, not a folder${note}. Check the path with the list tool.`)
        }
        if (name.equals(DOT)) continue
        if (real === undefined) {
          // Above the root: only the root's own names lead back in.
          if (name.equals(DOT_DOT)) depth = Math.max(0, depth - 1)
          else if (name.equals(this.rootNames[depth] as Buffer)) depth++
          else throw outside()
          if (depth === this.rootNames.length) {
            real = this.rootBytes
            cursor.toRoot()
          }
          continue
        }
        if (name.equals(DOT_DOT)) {
          if (real.equals(this.rootBytes)) {
            if (this.rootNames.length > 0) {
              real = undefined
              depth = this.rootNames.length - 1
              cursor.leave()
            }
          } else {
            real = parentOf(real)
            cursor.up(real)
          }
          continue
        }
        if (name.length > MAX_NAME_BYTES) {
          throw new BadInputError(
            `A name in "${shown}" is ${name.length} bytes long; file systems allow at most ${MAX_NAME_BYTES} bytes per name. Use a shorter name.`,
          )
        }
        const next = joinBytes(real, name)
        const kind = await cursor.kindOf(name)
        if (kind === 'missing') {
          const tail = [name, ...pending.reverse()].filter((rest) => !rest.equals(DOT))
          if (tail.some((rest) => rest.equals(DOT_DOT))) {
            throw new BadInputError(
              `"${shown}" goes up ("..") out of a folder that does not exist, which the system refuses too. ` +
                'Remove the "..", or create the folder first.',
            )
          }
          cursor.finish()
          const full = joinBytes(real, Buffer.concat(tail.flatMap((rest, index) => (index === 0 ? [rest] : [SLASH_BYTES, rest]))))
          return {real: full, relative: this.relativeOf(full), exists: false, missing: tail, ...(namesFolder ? {namesFolder} : {})}
        }
        if (kind === 'link') {
          if (++hops > MAX_SYMLINK_HOPS) throw new SymlinkLoopError(requested)
          const target = await Promise.resolve(cursor.readLink(name)).catch(() => {
            // EINVAL or ENOENT: the link was replaced or removed since kindOf.
            throw new BadInputError(`"${shown}" changed while it was being resolved (a link on the way was replaced). Retry.`)
          })
          if (target[0] === SLASH) {
            const unaliased = this.unaliased(target)
            pending.push(...namesOf(unaliased).reverse())
            depth = 0
            if (this.rootNames.length === 0) {
              real = this.rootBytes
              cursor.toRoot()
            } else {
              real = undefined
              cursor.leave()
            }
          } else {
            pending.push(...namesOf(target).reverse())
          }
          continue
        }
        isFolder = kind === 'folder'
        if (isFolder && pending.length > 0) cursor.enter(name, next)
        real = next
      }
      if (real === undefined) throw outside()
      const found: ResolvedPath = {real, relative: this.relativeOf(real), exists: true, missing: [], ...(namesFolder ? {namesFolder} : {})}
      if (hold) return {...found, ...cursor.hand(real)}
      cursor.finish()
      return found
    } catch (error) {
      throw explainFsError(error, requested)
    } finally {
      cursor?.release()
    }
  }
}
