/**
 * Open folders of the search walk. A subfolder is opened through its parent folder's descriptor
 * (`/proc/self/fd/N/name` on Linux), so the parent must stay open, under the same descriptor
 * number, until every subfolder waiting to be walked has been opened: a closed descriptor's number
 * can be given to another file at once, and a path through it would then lead somewhere else. A
 * lease counts its holders and closes the folder when the last one lets go.
 */
import {isUtf8} from 'node:buffer'
import {closeSync} from 'node:fs'

import {folderBase} from '../files/confined-open.js'
import {joinBytes} from '../workspace.js'

/** An open folder of the workspace, verified inside, with a count of holders. */
export class FolderLease {
  private holders = 1
  private readonly base: Buffer
  /** `base` as text when its bytes are valid UTF-8 (always, on Linux), else undefined. */
  private readonly baseText: string | undefined

  /**
   * Takes over the open descriptor `fd` of the folder whose real path is `real`, with one holder
   * (the caller).
   */
  constructor(
    readonly fd: number,
    readonly real: Buffer,
  ) {
    this.base = folderBase(fd, real)
    this.baseText = isUtf8(this.base) ? this.base.toString('utf8') : undefined
  }

  /**
   * A path that reaches the entry `name` of this very folder while the lease is held. A name
   * given as text must be the exact decoding of its bytes (valid UTF-8); the path is then text too
   * when this folder's own path can be.
   */
  entry(name: string | Uint8Array): string | Buffer {
    if (typeof name !== 'string') return joinBytes(this.base, name)
    if (this.baseText === undefined) return joinBytes(this.base, Buffer.from(name))
    return this.baseText === '/' ? `/${name}` : `${this.baseText}/${name}`
  }

  /** The path that names this folder itself (for readdir). */
  get self(): Buffer {
    return this.base
  }

  /** `self` as text, when its bytes are valid UTF-8 (always, on Linux); else undefined. */
  get selfText(): string | undefined {
    return this.baseText
  }

  /** Adds a holder. */
  hold(): void {
    if (this.holders === 0) throw new Error('FolderLease.hold after the folder was closed')
    this.holders++
  }

  /**
   * Removes a holder; the last one closes the folder. Synchronously: closing a folder never waits
   * on a disk, and a queued close would cost more than the close itself.
   */
  release(): void {
    if (this.holders === 0) return
    if (--this.holders === 0) closeSync(this.fd)
  }
}
