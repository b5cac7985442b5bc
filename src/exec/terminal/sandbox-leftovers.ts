/**
 * What a sandboxed command leaves behind that would run outside the sandbox later (DESIGN §4.8,
 * §4.9). The binds of sandbox-protected.ts hold what exists when a command starts; no bind can
 * cover a folder that does not exist yet, so a command can make a new repository (`git init n`,
 * `git -C n config core.fsmonitor …`, `git add n`: the user's next `git status` at the root runs
 * git inside `n`), a bare one (`git init --bare b` with `core.worktree`), or a protected name in a
 * new folder (`sub/.envrc`, `sub/.vscode/tasks.json`). So after each sandboxed command, and at
 * each answer while it runs, the workspace is walked again and what the command made is
 * neutralised:
 *
 * - A git folder the sandbox did not bind before the command (a `.git` folder, the folder a `.git`
 *   file or link names inside the roots, a folder holding `HEAD` with `objects/` and `refs/` or a
 *   `commondir`: git's own rule; and those below `modules/` and `worktrees/`) keeps working: its
 *   `config` and `config.worktree` keep only NEW_REPOSITORY_CONFIG_KEYS (git-config-filter.ts; a
 *   plain `git init` or `git clone` is left untouched), its hooks that do not end in `.sample` are
 *   moved out, and so is a `commondir` that names anything but a git folder the sandbox bound.
 * - Any other protected name (protected-paths.ts) that the sandbox did not bind or hold is moved
 *   out, unless it is empty (an empty file or folder runs nothing; the sandbox binds it read-only
 *   before the next command, and a placeholder of another command looks the same).
 * - Only what changed during the command is touched: an entry whose status change time (ctime,
 *   which no command can set) is older than the command (less CHANGE_CLOCK_SLACK_MS) is the
 *   user's, found because the walk before the command stopped short of it; a folder counts as
 *   changed when anything in it changed (up to CHANGED_SCAN_MAX_ENTRIES entries; past that, it
 *   is taken as changed).
 * - Moved means into the quarantine folder of ak's state folder (quarantine.ts), at the entry's
 *   path in the workspace; the answer and one stderr line say what went where and why. Paths the
 *   operator allowed (`--allow-protected`) are left alone.
 *
 * The walk is the one before the command: breadth first, at most PROTECTED_WALK_MAX_FOLDERS
 * folders per root, never into `node_modules`, reading each folder's names by its path, again only
 * when it changed since the last walk (folder-digests.ts). A folder
 * holding anything to judge is then opened without following a link at its name and verified
 * (its `/proc/self/fd` link) to be the folder the walk reached, and its entries are read, renamed
 * and written through that descriptor, so a link a running command made never leads the check to
 * judge or change anything outside. A walk that reaches the limit stops, and the answer says that
 * deeper folders were not checked.
 */
import {type Dirent, type Stats, constants} from 'node:fs'
import {type FileHandle, lstat, open, readdir, realpath} from 'node:fs/promises'
import path from 'node:path'

import {escapeControls} from '../../text-escape.js'
import {describeSystemError, isSystemError} from '../fs-errors.js'
import {CAN_VERIFY_DESCRIPTORS, FOLDER_OPEN_FLAGS, descriptorPath, descriptorTarget} from '../files/confined-open.js'
import {filterGitConfig} from '../git-config-filter.js'
import {GIT_CONFIG_MAX_BYTES} from '../git-hooks-path.js'
import {GIT_INDEX_MAX_BYTES, SHARED_INDEX_PREFIX, gitlinksOf} from '../git-index.js'
import {
  type AllowedProtectedPaths,
  GIT_CONTROL_ENTRIES,
  GIT_HEAD_RULE,
  GIT_NAME,
  GIT_NESTED_FOLDERS,
  NEW_REPOSITORY_CONFIG_KEYS,
  type ProtectedName,
  gitdirOf,
  protectedNameOf,
} from '../protected-paths.js'
import type {Logger} from '../../log.js'
import {Quarantine} from './quarantine.js'
import {CHANGE_CLOCK_SLACK_MS, folderDigests} from './folder-digests.js'
import {PROTECTED_WALK_MAX_FOLDERS} from './sandbox-protected.js'

export {CHANGE_CLOCK_SLACK_MS} from './folder-digests.js'

/** Entries looked at, at most, to tell whether a protected folder changed during the command; past that it counts as changed. */
export const CHANGED_SCAN_MAX_ENTRIES = 10_000
/** Folders whose names the walk reads at once (the thread pool reads them side by side). */
const WALK_READS_AT_ONCE = 16
/** Depth of git folders below `modules/` and `worktrees/` looked into (as the sandbox's walk). */
const NESTED_MAX_DEPTH = 8
/** Longest `.git` file or `commondir` read, in bytes. */
const POINTER_MAX_BYTES = 4096
/** Mode of a config written anew (less the umask), as git writes it. */
const CONFIG_MODE = 0o644

/** What the sandbox knew before the command (sandbox-protected.ts's plan), against which the check judges. */
export interface LeftoverBaseline {
  /** Real paths of the writable roots. */
  roots: readonly string[]
  /** Real path of the workspace, which the allowed paths and the report are relative to. */
  workspace: string
  allowed: AllowedProtectedPaths
  /** Paths the sandbox bound or held for the command (git folders, protected entries, placeholders): left alone. */
  known: ReadonlySet<string>
  /** Git folders the sandbox bound: a `commondir` may name one of them. */
  gitFolders: ReadonlySet<string>
  /** When the sandbox looked, before the command started (ms since the epoch). */
  since: number
}

/** One thing the check did. */
export interface LeftoverAction {
  /** The path in the workspace (display form). */
  path: string
  /** `filtered`: a git config rewritten with the allowed keys only; `moved`: the entry went. */
  action: 'filtered' | 'moved'
  /** Who would have run it (the protected name's `runBy`). */
  why: string
  /** For `filtered`, the keys dropped. */
  dropped: string[]
  /** Where the entry (for `filtered`, the original file) is now, for messages. */
  to: string
  /** Whether it went into the quarantine folder (false: renamed beside itself, quarantine.ts). */
  isInQuarantine: boolean
}

/** What one check found and did. */
export interface LeftoverReport {
  actions: LeftoverAction[]
  /** What could not be neutralised, one sentence each. */
  failures: string[]
  /** Whether the walk stopped at PROTECTED_WALK_MAX_FOLDERS in a root. */
  isWalkCut: boolean
}

const SLASH = 0x2f

function join(folder: Buffer, name: Buffer | string): Buffer {
  const tail = typeof name === 'string' ? Buffer.from(name) : name
  return folder.length === 1 && folder[0] === SLASH ? Buffer.concat([folder, tail]) : Buffer.concat([folder, Buffer.from('/'), tail])
}

/** Opens the folder at the real path `real` without following a link at its name, verified to be that very folder; undefined when it is not. */
async function openVerified(real: Buffer): Promise<FileHandle | undefined> {
  if (!CAN_VERIFY_DESCRIPTORS) return undefined
  const handle = await open(real, FOLDER_OPEN_FLAGS).catch(() => undefined)
  if (!handle) return undefined
  try {
    if (descriptorTarget(handle.fd).equals(real)) return handle
  } catch {}
  await handle.close()
  return undefined
}

/** The `/proc/self/fd/N` path of an open folder, through which its entries are reached. */
function through(handle: FileHandle): string {
  return descriptorPath(handle.fd)
}

async function lstatIn(handle: FileHandle, name: string | Buffer): Promise<Stats | undefined> {
  return lstat(join(Buffer.from(through(handle)), name)).catch(() => undefined)
}

/** Reads at most `limit` bytes of the regular file `name` in the open folder, never through a link; undefined when it is none or longer. */
async function readIn(handle: FileHandle, name: string, limit: number): Promise<Buffer | undefined> {
  const file = await open(`${through(handle)}/${name}`, constants.O_RDONLY | constants.O_NOFOLLOW | constants.O_NONBLOCK).catch(() => undefined)
  if (!file) return undefined
  try {
    const info = await file.stat()
    if (!info.isFile() || info.size > limit) return undefined
    const buffer = Buffer.alloc(info.size)
    const {bytesRead} = await file.read(buffer, 0, buffer.length, 0)
    return buffer.subarray(0, bytesRead)
  } finally {
    await file.close()
  }
}

/** Checks run one at a time in this process, so two never move the same entry. */
let turn: Promise<unknown> = Promise.resolve()

/**
 * Walks the roots of `baseline` for what a command made that would run outside the sandbox, and
 * neutralises it into `quarantine` (see the module comment). Never throws: what cannot be done is
 * in the report's failures.
 */
export function neutraliseLeftovers(baseline: LeftoverBaseline, quarantine: Quarantine): Promise<LeftoverReport> {
  const result = turn.then(() => check(baseline, quarantine))
  turn = result.catch(() => undefined)
  return result
}

async function check(baseline: LeftoverBaseline, quarantine: Quarantine): Promise<LeftoverReport> {
  const report: LeftoverReport = {actions: [], failures: [], isWalkCut: false}
  const threshold = baseline.since - CHANGE_CLOCK_SLACK_MS
  const isChanged = (info: Stats) => info.ctimeMs >= threshold
  const seen = new Set<string>()
  const relative = (real: Buffer) => path.relative(baseline.workspace, real.toString())
  const isInsideRoots = (real: string) => baseline.roots.some((root) => real === root || real.startsWith(root.endsWith('/') ? root : `${root}/`))
  const isAllowed = (real: Buffer) => {
    const inWorkspace = relative(real)
    return inWorkspace !== '' && !inWorkspace.startsWith('..') && baseline.allowed.covers(inWorkspace)
  }
  const shown = (real: Buffer) => escapeControls(relative(real))

  const failed = (real: Buffer, error: unknown) => {
    const reason = isSystemError(error) ? describeSystemError(error) : error instanceof Error ? error.message : String(error)
    report.failures.push(`could not move ${shown(real)} (${reason}); remove it before running git or opening the folder`)
  }
  /** Moves the entry `name` of the open folder `folder` (real path) out, recording why. */
  const moveOut = async (handle: FileHandle, folder: Buffer, name: Buffer | string, why: string) => {
    const real = join(folder, name)
    try {
      const moved = await quarantine.move(through(handle), Buffer.from(name), relative(real))
      report.actions.push({path: shown(real), action: 'moved', why, dropped: [], to: moved.shown, isInQuarantine: moved.isInQuarantine})
    } catch (error) {
      failed(real, error)
    }
  }

  /** Whether anything in the folder at `real` (itself included) changed during the command. */
  const changedWithin = async (real: Buffer, info: Stats, budget: {left: number}): Promise<boolean> => {
    if (isChanged(info)) return true
    const handle = await openVerified(real)
    if (!handle) return true
    try {
      const entries = await readdir(through(handle), {withFileTypes: true, encoding: 'buffer'}).catch(() => [] as Dirent<Buffer>[])
      for (const entry of entries) {
        if (--budget.left <= 0) return true
        const child = await lstatIn(handle, entry.name)
        if (!child) continue
        if (isChanged(child)) return true
        if (child.isDirectory() && (await changedWithin(join(real, entry.name), child, budget))) return true
      }
      return false
    } finally {
      await handle.close()
    }
  }

  /** A git config (`config`, `config.worktree`) of a git folder the sandbox did not bind: only the allowed keys stay. */
  const configEntry = async (handle: FileHandle, folder: Buffer, rule: ProtectedName) => {
    const real = join(folder, rule.name)
    const info = await lstatIn(handle, rule.name)
    if (!info || !isChanged(info) || isAllowed(real)) return
    const text = info.isFile() ? await readIn(handle, rule.name, GIT_CONFIG_MAX_BYTES) : undefined
    if (text === undefined) return moveOut(handle, folder, rule.name, rule.runBy)
    const filtered = filterGitConfig(text.toString('utf8'), NEW_REPOSITORY_CONFIG_KEYS)
    if (filtered.isUnchanged) return
    try {
      const moved = await quarantine.move(through(handle), Buffer.from(rule.name), relative(real))
      const file = await open(`${through(handle)}/${rule.name}`, constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL | constants.O_NOFOLLOW, CONFIG_MODE)
      try {
        await file.writeFile(filtered.text)
      } finally {
        await file.close()
      }
      const dropped = filtered.unreadLines > 0 ? [...filtered.dropped, `${filtered.unreadLines} unreadable line${filtered.unreadLines === 1 ? '' : 's'}`] : filtered.dropped
      report.actions.push({path: shown(real), action: 'filtered', why: rule.runBy, dropped, to: moved.shown, isInQuarantine: moved.isInQuarantine})
    } catch (error) {
      failed(real, error)
    }
  }

  /** The hooks of a git folder the sandbox did not bind: every changed one but `*.sample` goes. */
  const hooksEntry = async (handle: FileHandle, folder: Buffer, rule: ProtectedName) => {
    const real = join(folder, rule.name)
    const info = await lstatIn(handle, rule.name)
    if (!info || isAllowed(real)) return
    if (!info.isDirectory()) {
      if (isChanged(info)) await moveOut(handle, folder, rule.name, rule.runBy)
      return
    }
    const hooks = await openVerified(real)
    if (!hooks) return void report.failures.push(`could not check ${shown(real)}: it changed while it was checked; run the command again`)
    try {
      const entries = await readdir(through(hooks), {encoding: 'buffer'}).catch(() => [] as Buffer[])
      for (const name of entries) {
        if (name.toString().endsWith('.sample')) continue
        const hook = await lstatIn(hooks, name)
        if (hook && isChanged(hook)) await moveOut(hooks, real, name, rule.runBy)
      }
    } finally {
      await hooks.close()
    }
  }

  /** A `commondir` of a git folder the sandbox did not bind: kept only when it names a git folder the sandbox bound. */
  const commondirEntry = async (handle: FileHandle, folder: Buffer, rule: ProtectedName) => {
    const real = join(folder, rule.name)
    const info = await lstatIn(handle, rule.name)
    if (!info || !isChanged(info) || isAllowed(real)) return
    const text = info.isFile() ? await readIn(handle, rule.name, POINTER_MAX_BYTES) : undefined
    const named = text === undefined ? undefined : await realpath(path.resolve(folder.toString(), text.toString('utf8').trim())).catch(() => undefined)
    if (named !== undefined && baseline.gitFolders.has(named)) return
    await moveOut(handle, folder, rule.name, rule.runBy)
  }

  /**
   * A git folder: its control entries when the sandbox did not bind it, then the git folders below
   * its modules/ and worktrees/, and, when it has a work tree (`workTree`, its real path), the
   * repositories its index gained during the command (gitlinks), wherever they lie.
   */
  const gitFolder = async (folder: Buffer, handle: FileHandle, workTree?: Buffer) => {
    const key = folder.toString()
    if (seen.has(key)) return
    seen.add(key)
    if (workTree !== undefined) await gitlinks(handle, workTree)
    if (!baseline.known.has(key) && !isAllowed(folder)) {
      for (const rule of GIT_CONTROL_ENTRIES) {
        if (rule.name === 'config' || rule.name === 'config.worktree') await configEntry(handle, folder, rule)
        else if (rule.name === 'hooks') await hooksEntry(handle, folder, rule)
        else if (rule.name === 'commondir') await commondirEntry(handle, folder, rule)
      }
    }
    for (const nested of GIT_NESTED_FOLDERS) await nestedGitFolders(join(folder, nested), 0)
  }

  const nestedGitFolders = async (folder: Buffer, depth: number): Promise<void> => {
    if (depth >= NESTED_MAX_DEPTH) return
    const handle = await openVerified(folder)
    if (!handle) return
    try {
      if (depth > 0 && (await lstatIn(handle, GIT_HEAD_RULE.name))) return await gitFolder(folder, handle)
      const entries = await readdir(through(handle), {withFileTypes: true, encoding: 'buffer'}).catch(() => [] as Dirent<Buffer>[])
      for (const entry of entries) if (entry.isDirectory()) await nestedGitFolders(join(folder, entry.name), depth + 1)
    } finally {
      await handle.close()
    }
  }

  /** The repositories the index of the open git folder gained during the command: each one's `.git`, judged as the walk's. */
  const gitlinks = async (handle: FileHandle, workTree: Buffer) => {
    const info = await lstatIn(handle, 'index')
    if (!info || !isChanged(info)) return
    const config = (await readIn(handle, 'config', GIT_CONFIG_MAX_BYTES))?.toString('utf8') ?? ''
    const oidBytes = /^\s*objectformat\s*=\s*"?sha256/im.test(config) ? 32 : 20
    // A split index (git update-index --split-index) keeps most entries in sharedindex.<id> files
    // beside it: every one is read, so a gitlink kept only there is found too.
    const names = await readdir(through(handle)).catch(() => [] as string[])
    const links: Buffer[] = []
    for (const name of ['index', ...names.filter((entry) => entry.startsWith(SHARED_INDEX_PREFIX))]) {
      const index = await readIn(handle, name, GIT_INDEX_MAX_BYTES)
      if (index) links.push(...gitlinksOf(index, oidBytes))
    }
    for (const link of links) {
      if (link.toString().split('/').some((name) => name === '' || name === '.' || name === '..')) continue
      const repository = join(workTree, link)
      const opened = await openVerified(repository)
      if (!opened) continue
      try {
        const dotGitInfo = await lstatIn(opened, GIT_NAME)
        if (dotGitInfo) await dotGit(opened, repository, Buffer.from(GIT_NAME), dotGitInfo)
      } finally {
        await opened.close()
      }
    }
  }

  /** A `.git` entry (`kind`: its Dirent or lstat): a git folder, or a file or link naming one inside the roots. */
  const dotGit = async (handle: FileHandle, folder: Buffer, name: Buffer, kind: Pick<Stats, 'isDirectory' | 'isFile' | 'isSymbolicLink'>) => {
    const real = join(folder, name)
    let target: Buffer | undefined = real
    if (!kind.isDirectory()) {
      const pointer = kind.isFile() ? await readIn(handle, name.toString(), POINTER_MAX_BYTES) : undefined
      const named = kind.isSymbolicLink() ? real.toString() : gitdirOf(pointer?.toString('utf8') ?? '', folder.toString())
      const resolved = named === undefined ? undefined : await realpath(named).catch(() => undefined)
      target = resolved !== undefined && isInsideRoots(resolved) ? Buffer.from(resolved) : undefined
    }
    if (target === undefined) return
    const git = await openVerified(target)
    if (!git) return
    try {
      await gitFolder(target, git, folder)
    } finally {
      await git.close()
    }
  }

  /** Any other protected name: moved out when the sandbox did not hold it, it holds something, and it changed. */
  const protectedEntry = async (handle: FileHandle, folder: Buffer, name: Buffer, rule: ProtectedName) => {
    const real = join(folder, name)
    if (baseline.known.has(real.toString()) || isAllowed(real)) return
    const info = await lstatIn(handle, name)
    if (!info) return
    if (info.isFile() && info.size === 0) return
    if (info.isDirectory()) {
      const inside = await openVerified(real)
      const isEmpty = inside ? (await readdir(through(inside)).catch(() => ['?'])).length === 0 : false
      await inside?.close()
      if (isEmpty || !(await changedWithin(real, info, {left: CHANGED_SCAN_MAX_ENTRIES}))) return
    } else if (!isChanged(info)) return
    await moveOut(handle, folder, name, rule.runBy)
  }

  for (const root of baseline.roots) {
    // The queue is never shifted (that moves every folder after the first): `visited` is where it starts.
    const queue: Buffer[] = [Buffer.from(root)]
    let visited = 0
    while (visited < queue.length) {
      if (visited >= PROTECTED_WALK_MAX_FOLDERS) {
        report.isWalkCut = true
        break
      }
      // Breadth first, WALK_READS_AT_ONCE folders read at once.
      const batch = queue.slice(visited, visited + Math.min(WALK_READS_AT_ONCE, PROTECTED_WALK_MAX_FOLDERS - visited))
      visited += batch.length
      // Read by their paths (one round trip each, for a folder changed since the last walk): a
      // folder swapped for a link meanwhile is not followed, and nothing is judged, read or changed
      // in a folder before it is opened and verified (skipped when it is not the folder reached).
      const digests = await Promise.all(batch.map((folder) => folderDigests.read(folder)))
      for (const [index, digest] of digests.entries()) {
        const folder = batch[index] as Buffer
        const byName = new Map(digest.notable.map((entry) => [entry.name.toString(), entry]))
        const head = byName.get(GIT_HEAD_RULE.name)
        const isGitFolder = head && !head.isDirectory() && ((byName.get('objects')?.isDirectory() && byName.get('refs')?.isDirectory()) || byName.has('commondir'))
        const judged = digest.notable.filter((entry) => protectedNameOf(entry.name.toString()) !== undefined)
        for (const name of digest.folders) queue.push(join(folder, Buffer.from(name, 'latin1')))
        if (!isGitFolder && judged.length === 0) continue
        const handle = await openVerified(folder)
        if (!handle) continue
        try {
          if (isGitFolder) await gitFolder(folder, handle)
          for (const entry of judged) {
            const rule = protectedNameOf(entry.name.toString()) as ProtectedName
            if (rule.kind === 'git') await dotGit(handle, folder, entry.name, entry)
            else await protectedEntry(handle, folder, entry.name, rule)
          }
        } finally {
          await handle.close()
        }
      }
    }
  }
  return report
}

/** What the check did, for the agent, at the end of the command's answer; undefined when there is nothing to say. */
export function describeLeftovers(report: LeftoverReport, quarantineFolder: string | undefined): string | undefined {
  const lines: string[] = []
  if (report.actions.length > 0) {
    lines.push(
      'The sandbox neutralised what this command left that programs outside the sandbox would run later' +
        `${quarantineFolder ? ` (the quarantine is ${quarantineFolder})` : ''}:`,
    )
    for (const action of report.actions) {
      const where = action.isInQuarantine ? 'the quarantine' : action.to
      const what =
        action.action === 'filtered'
          ? `dropped ${action.dropped.join(', ')}, keeping only the settings git init and git clone write (the original is in ${where})`
          : `moved to ${where}`
      lines.push(`- ${action.path}: ${what}. Why: ${action.why}.`)
    }
  }
  for (const failure of report.failures) lines.push(`The sandbox ${failure}.`)
  if (report.isWalkCut) {
    lines.push(
      `The sandbox checked the first ${PROTECTED_WALK_MAX_FOLDERS} folders of the workspace for repositories and settings this command ` +
        'made, and stopped there: deeper ones were not checked.',
    )
  }
  return lines.length === 0 ? undefined : `[ak] ${lines.join('\n')}`
}

/** The same in one line for the operator's log; undefined when nothing was done or failed. */
export function leftoversLogLine(report: LeftoverReport, quarantineFolder: string | undefined): string | undefined {
  if (report.actions.length === 0 && report.failures.length === 0) return undefined
  const done = report.actions.map((action) => (action.action === 'filtered' ? `${action.path} (dropped ${action.dropped.join(', ')})` : action.path))
  return (
    `a sandboxed command left what would run outside the sandbox; ${done.length > 0 ? `neutralised ${done.join(', ')}` : 'nothing neutralised'}` +
    `${quarantineFolder ? `, originals in ${quarantineFolder}` : ''}${report.failures.length > 0 ? `; ${report.failures.join('; ')}` : ''}`
  )
}

/**
 * The checks of one sandboxed command: one at each answer while it runs, and one when it has
 * ended (its sandbox gone; its placeholders are removed after it), whose result the answer that
 * reports the end waits for. What they did is kept until the next answer takes it.
 */
export class LeftoverChecks {
  private last: Promise<unknown> = Promise.resolve()
  private final: Promise<unknown> | undefined
  private readonly notices: string[] = []
  private hasToldWalkCut = false

  constructor(
    private readonly baseline: LeftoverBaseline,
    private readonly stateFolder: string,
    private readonly log: Logger,
  ) {}

  /** Runs a check now, in turn with the previous one. Never rejects. */
  check(): Promise<void> {
    const run = this.last.then(() => this.run())
    this.last = run.catch(() => undefined)
    return this.last as Promise<void>
  }

  /** Runs the last check once `ended` (the command's end: its sandbox, and so its mounts, gone) settles. */
  finishAfter(ended: Promise<unknown>): void {
    this.final = ended.catch(() => undefined).then(() => this.check())
  }

  /** Settles once the last check (finishAfter's) has run; at once when none was asked for. */
  finished(): Promise<unknown> {
    return this.final ?? Promise.resolve()
  }

  /** What the checks did since the last call, for the answer; undefined when nothing. */
  take(): string | undefined {
    return this.notices.length === 0 ? undefined : this.notices.splice(0).join('\n')
  }

  private async run(): Promise<void> {
    const quarantine = new Quarantine(this.stateFolder, this.baseline.workspace)
    let report: LeftoverReport
    try {
      report = await neutraliseLeftovers(this.baseline, quarantine)
    } catch (error) {
      report = {actions: [], failures: [`could not look for what the command left (${error instanceof Error ? error.message : String(error)})`], isWalkCut: false}
    }
    if (report.isWalkCut && this.hasToldWalkCut) report.isWalkCut = false
    this.hasToldWalkCut ||= report.isWalkCut
    const folder = await quarantine.shownFolder()
    const notice = describeLeftovers(report, folder)
    if (notice !== undefined) this.notices.push(notice)
    const line = leftoversLogLine(report, folder)
    if (line !== undefined) this.log.warn(line)
  }
}
