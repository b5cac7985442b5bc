/**
 * How `Workspace.resolve` steps from folder to folder (DESIGN §4.2: judge opened objects, not
 * spellings).
 *
 * On Linux the walk holds the folder it is in open (`O_PATH`, which needs no read permission, as
 * a path walk does not) and looks at each next name through that descriptor
 * (`/proc/self/fd/N/name`). So every fact the walk answers with (a name is missing, is a file, is a
 * link and where that points) is about an entry of a folder proven to lie inside, even while a local
 * process swaps a folder on the way for a link to the outside: the answer can never depend on what
 * exists outside. A folder reached by `..` and the folder the walk ends in are checked, through
 * their descriptors, to be at the real path the walk expects.
 *
 * These system calls are synchronous: each takes microseconds on a local disk and none can wait
 * on a FIFO or a device, while a trip through libuv's thread pool costs tens of microseconds and
 * more on a busy machine (see docs/benchmarks.md).
 *
 * Where descriptors cannot name their object (macOS), the walk looks at paths (`lstat` of the real
 * path so far), and a swap higher up at the right instant is not detected (the README says so).
 */
import {closeSync, lstatSync, openSync, readlinkSync, type Stats} from 'node:fs'
import {lstat, readlink} from 'node:fs/promises'

import {BadInputError} from '../errors.js'
import {escapeControls} from '../text-escape.js'
import {CAN_VERIFY_DESCRIPTORS, descriptorEntry, descriptorPath, FOLDER_PATH_FLAGS} from './files/descriptors.js'

const SLASH = 0x2f

/** A folder handed over by a walk: `via` reaches the object through it; `release` closes it. */
export interface Handed {
  via?: Buffer
  release(): void
}

/** What a name in a folder is, as `lstat` sees it (a link is not followed). */
export type EntryKind = 'missing' | 'folder' | 'link' | 'other'

/**
 * The folder a path walk is in. Its methods are synchronous on Linux and return promises
 * elsewhere; the walk awaits them in both cases. Errors other than those documented are the
 * system's (the walk explains them with explainFsError).
 */
export interface FolderCursor {
  /** The real path of the folder the cursor is in; undefined when it is in none (above the root). */
  readonly real: Buffer | undefined
  /** What the entry `name` (one name, not `.` or `..`) of the folder is. */
  kindOf(name: Buffer): EntryKind | Promise<EntryKind>
  /** The target of the link `name` of the folder, as written. */
  readLink(name: Buffer): Buffer | Promise<Buffer>
  /**
   * Moves into the subfolder `name`, whose real path is `real`.
   * @throws BadInputError when it is no longer a folder (it changed since kindOf).
   */
  enter(name: Buffer, real: Buffer): void
  /**
   * Moves to the parent folder, whose real path is `real`.
   * @throws BadInputError when the parent is not at `real` (the folder was moved meanwhile).
   */
  up(real: Buffer): void
  /** Moves to the workspace root. */
  toRoot(): void
  /** Leaves every folder (the walk goes on above the root, by names alone). */
  leave(): void
  /**
   * Checks that the folder the cursor is in is still at its real path, then lets it go.
   * @throws BadInputError when it is not (it was moved or replaced during the walk).
   */
  finish(): void
  /**
   * Checks as `finish` does, and hands the folder over instead of letting it go: `via` reaches the
   * object at `real` (the folder itself, or one of its entries) through it; `release` closes it.
   * `via` is undefined where there is no folder to hand (no descriptors, or the root is gone).
   */
  hand(real: Buffer): Handed
  /** Lets the folder go (after an error); harmless after finish or hand. */
  release(): void
}

/** The error of a walk whose folder changed under it: retrying sees the new state. */
export function folderChangedError(requested: string): BadInputError {
  return new BadInputError(
    `"${escapeControls(requested)}" changed while it was being resolved (a folder on the way was moved or replaced). Retry.`,
  )
}

function kindOfStats(info: Stats | undefined): EntryKind {
  if (info === undefined) return 'missing'
  if (info.isSymbolicLink()) return 'link'
  return info.isDirectory() ? 'folder' : 'other'
}

function isMissing(error: unknown): boolean {
  const code = (error as NodeJS.ErrnoException).code
  return code === 'ENOENT' || code === 'ENOTDIR'
}

/** Joins a real folder path and one name (bytes). */
function join(folder: Buffer, name: Buffer): Buffer {
  return folder.length === 1 ? Buffer.concat([folder, name]) : Buffer.concat([folder, Buffer.from('/'), name])
}

/** A cursor holding its folder open and looking through the descriptor (Linux). */
class DescriptorCursor implements FolderCursor {
  real: Buffer | undefined
  private fd = -1

  constructor(
    private readonly root: Buffer,
    private readonly requested: string,
    start: Buffer | undefined,
  ) {
    if (start !== undefined) this.toRoot()
  }

  kindOf(name: Buffer): EntryKind {
    // The root itself is gone (or no longer a folder): every name in it is missing, as lstat says.
    if (this.fd === -1) return 'missing'
    try {
      return kindOfStats(lstatSync(descriptorEntry(this.fd, name), {throwIfNoEntry: false}))
    } catch (error) {
      if (isMissing(error)) return 'missing'
      throw error
    }
  }

  readLink(name: Buffer): Buffer {
    return readlinkSync(descriptorEntry(this.fd, name), {encoding: 'buffer'})
  }

  enter(name: Buffer, real: Buffer): void {
    this.hold(() => openSync(descriptorEntry(this.fd, name), FOLDER_PATH_FLAGS), real)
  }

  up(real: Buffer): void {
    this.hold(() => openSync(descriptorEntry(this.fd, Buffer.from('..')), FOLDER_PATH_FLAGS), real)
    this.check()
  }

  toRoot(): void {
    this.release()
    this.real = this.root
    try {
      this.fd = openSync(this.root, FOLDER_PATH_FLAGS)
    } catch (error) {
      if (!isMissing(error)) throw error
    }
  }

  leave(): void {
    this.release()
    this.real = undefined
  }

  finish(): void {
    if (this.fd !== -1) this.check()
    this.release()
  }

  hand(real: Buffer): Handed {
    const folder = this.real as Buffer
    const cut = real.lastIndexOf(SLASH)
    const isSelf = folder.equals(real)
    const name = isSelf ? Buffer.from('.') : real.subarray(cut + 1)
    // The walk ends in the object's folder or in the folder itself; anything else is opened from the root.
    if (this.fd === -1 || !(isSelf || folder.equals(real.subarray(0, Math.max(cut, 1))))) {
      this.finish()
      return {release() {}}
    }
    this.check()
    let fd = this.fd
    this.fd = -1
    return {
      via: descriptorEntry(fd, name),
      release() {
        if (fd !== -1) closeSync(fd)
        fd = -1
      },
    }
  }

  release(): void {
    if (this.fd !== -1) closeSync(this.fd)
    this.fd = -1
  }

  /** Moves to the folder `open` opens, at `real`; a folder that is not there (any more) is a change. */
  private hold(open: () => number, real: Buffer): void {
    let next: number
    try {
      next = open()
    } catch (error) {
      const code = (error as NodeJS.ErrnoException).code
      if (code === 'ENOENT' || code === 'ENOTDIR' || code === 'ELOOP') throw folderChangedError(this.requested)
      throw error
    }
    this.release()
    this.fd = next
    this.real = real
  }

  /** Whether the folder held is at its real path. */
  private check(): void {
    if (!readlinkSync(descriptorPath(this.fd), {encoding: 'buffer'}).equals(this.real as Buffer)) throw folderChangedError(this.requested)
  }
}

/** A cursor that looks at paths (where descriptors cannot name their object). */
class PathCursor implements FolderCursor {
  constructor(
    private readonly root: Buffer,
    public real: Buffer | undefined,
  ) {}

  async kindOf(name: Buffer): Promise<EntryKind> {
    try {
      return kindOfStats(await lstat(join(this.real as Buffer, name)))
    } catch (error) {
      if (isMissing(error)) return 'missing'
      throw error
    }
  }

  readLink(name: Buffer): Promise<Buffer> {
    return readlink(join(this.real as Buffer, name), {encoding: 'buffer'})
  }

  enter(_name: Buffer, real: Buffer): void {
    this.real = real
  }

  up(real: Buffer): void {
    this.real = real
  }

  toRoot(): void {
    this.real = this.root
  }

  leave(): void {
    this.real = undefined
  }

  finish(): void {}

  hand(): Handed {
    return {release() {}}
  }

  release(): void {}
}

/**
 * A cursor for one walk of a path under the workspace `root` (a real path, bytes), starting in
 * `start` (the root, or undefined above it). `requested` is the path as the caller gave it, for
 * errors. Call `finish` or `release` when the walk ends.
 */
export function openFolderCursor(root: Buffer, start: Buffer | undefined, requested: string): FolderCursor {
  return CAN_VERIFY_DESCRIPTORS ? new DescriptorCursor(root, requested, start) : new PathCursor(root, start)
}
