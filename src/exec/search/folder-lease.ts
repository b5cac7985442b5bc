/**
 * Open folders of the search walk. A subfolder is opened through its parent folder's descriptor
 * (`/proc/self/fd/N/name` on Linux), so the parent must stay open, under the same descriptor
 * number, until every subfolder waiting to be walked has been opened: a closed descriptor's number
 * can be given to another file at once, and a path through it would then lead somewhere else. A
 * lease counts its holders and closes the folder when the last one lets go.
 */
import {closeSync} from 'node:fs'

import {folderBase} from '../files/confined-open.js'
import {joinBytes} from '../workspace.js'

/** An open folder of the workspace, verified inside, with a count of holders. */
export class FolderLease {
  private holders = 1
  private readonly base: Buffer

  /**
   * Takes over the open descriptor `fd` of the folder whose real path is `real`, with one holder
   * (the caller).
   */
  constructor(
    readonly fd: number,
    readonly real: Buffer,
  ) {
    this.base = folderBase(fd, real)
  }

  /** A path that reaches the entry `name` of this very folder while the lease is held. */
  entry(name: Uint8Array): Buffer {
    return joinBytes(this.base, name)
  }

  /** The path that names this folder itself (for readdir). */
  get self(): Buffer {
    return this.base
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
