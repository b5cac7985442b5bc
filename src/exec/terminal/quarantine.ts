/**
 * Where the sandbox puts what a command left that would run outside it later
 * (sandbox-leftovers.ts): a private folder in ak's state folder, beside the journals (DESIGN
 * §4.10, journal/state-folder.ts):
 *
 *     <state folder>/quarantine/<32 hex digits: the workspace, as its journal>/<time>-<n>/<path in the workspace>
 *
 * One folder per check that moves something, named by the time (UTC, to the second) and a count,
 * holding each moved entry at its path relative to the workspace. Folders are 0700, made and
 * checked as the journal's are (openPrivateFolder), so no other user reads or swaps them.
 *
 * An entry is moved by renaming it, from the verified folder that holds it (its `/proc/self/fd`
 * path, so a link a command made on the way is never followed) into the quarantine. Where that
 * cannot be (the state folder lies on another file system, or cannot be used), the entry is
 * renamed in its own folder instead, to its name followed by QUARANTINE_SUFFIX and the time, a
 * name no program looks for; the report says which.
 */
import {mkdir, rename} from 'node:fs/promises'
import path from 'node:path'

import {errorCode} from '../fs-errors.js'
import {journalName} from '../journal/journal.js'
import {PRIVATE_FOLDER_MODE, openPrivateFolder, shownPath} from '../journal/state-folder.js'

/** The quarantine's folder below the state folder. */
export const QUARANTINE_FOLDER = 'quarantine'
/** What follows an entry's name when it is set aside in its own folder: `.envrc.ak-quarantined-20261203T101500Z`. */
export const QUARANTINE_SUFFIX = '.ak-quarantined-'

/** Where one entry went. */
export interface QuarantinedEntry {
  /** Where it is now, for messages (`~/.local/state/ak/quarantine/…/sub/.envrc`, or `sub/.envrc.ak-quarantined-…`). */
  shown: string
  /** Whether it went into the quarantine folder (false: renamed in its own folder). */
  isInQuarantine: boolean
}

/** The quarantine of one workspace; each `Quarantine` is one check's folder, made on first use. */
export class Quarantine {
  private folder: Promise<string | undefined> | undefined
  private readonly stamp: string
  private static count = 0

  /**
   * @param stateFolder ak's state folder (the journal's, `Journal.folder`)
   * @param workspaceRoot the workspace's real path
   */
  constructor(
    private readonly stateFolder: string,
    private readonly workspaceRoot: string,
    now = new Date(),
  ) {
    this.stamp = `${now.toISOString().replace(/[-:]/g, '').replace(/\.\d+Z$/, 'Z')}-${++Quarantine.count}`
  }

  /** This check's folder (real path), made private on first use; undefined when the state folder cannot be used. */
  private open(): Promise<string | undefined> {
    this.folder ??= openPrivateFolder(this.stateFolder, [QUARANTINE_FOLDER, journalName(this.workspaceRoot), this.stamp], {create: true}).catch(
      () => undefined,
    )
    return this.folder
  }

  /** The folder in the quarantine that receives the entry at `relative` (path in the workspace), its folders made private. */
  private async placeFor(relative: string): Promise<string | undefined> {
    const folder = await this.open()
    if (folder === undefined) return undefined
    // Inside the quarantine whatever the path holds (a root outside the workspace gives `..`).
    const place = path.join(folder, ...relative.split('/').filter((name) => name !== '' && name !== '.' && name !== '..'))
    await mkdir(path.dirname(place), {recursive: true, mode: PRIVATE_FOLDER_MODE})
    return place
  }

  /**
   * Moves the entry `name` of the verified folder whose descriptor path is `through` (its
   * `/proc/self/fd/N`) and whose path in the workspace is `relative`'s folder, into the quarantine
   * (or, failing that, beside itself under a name no program looks for).
   * @throws the system error of the rename in its own folder, when both fail
   */
  async move(through: string, name: Buffer, relative: string): Promise<QuarantinedEntry> {
    const from = Buffer.concat([Buffer.from(`${through}/`), name])
    const place = await this.placeFor(relative).catch(() => undefined)
    if (place !== undefined) {
      try {
        await rename(from, place)
        return {shown: shownPath(place), isInQuarantine: true}
      } catch (error) {
        // Another file system: set it aside where it is.
        if (errorCode(error) !== 'EXDEV') throw error
      }
    }
    const suffix = `${QUARANTINE_SUFFIX}${this.stamp}`
    await rename(from, Buffer.concat([from, Buffer.from(suffix)]))
    return {shown: `${relative}${suffix}`, isInQuarantine: false}
  }

  /** The check's folder for messages, once something went there. */
  async shownFolder(): Promise<string | undefined> {
    const folder = this.folder ? await this.folder : undefined
    return folder === undefined ? undefined : shownPath(folder)
  }
}
