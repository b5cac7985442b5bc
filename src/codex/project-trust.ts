import {stat} from 'node:fs/promises'
import path from 'node:path'

import {type EntryTrust, type TrustLevel, canonical, entryTrustOf} from './codex-config.js'
import {GIT_POINTER_FILE_MAX_BYTES} from './limits.js'
import {readNamedFile} from './named-file.js'

/** The markers Codex looks for to find a project's root when the config sets no `project_root_markers`. */
export const DEFAULT_PROJECT_ROOT_MARKERS = ['.git']

/** How Codex's config trusts a project folder, and why. */
export interface ProjectTrust {
  /** The folder judged, symlinks resolved. */
  projectDir: string
  /** The project root of a run in `cwd`: the nearest folder at or above it holding a root marker (`.git`), else `cwd`. */
  projectRoot: string
  /** The repository root Codex uses for trust: a git worktree's main repository; undefined outside git. */
  repoRoot: string | undefined
  level: TrustLevel
  /** The deciding entry's `trust_level` when Codex does not accept it (level `invalid`). */
  invalidValue?: unknown
  /** The `[projects."<key>"]` entry that decided, when one did. */
  decidedBy?: string
  /** The key Codex asks to trust when no entry decided: the repository root, else the project root. */
  trustKey: string
  /** Keys Codex looked up whose entry has no `trust_level`; Codex ignores such entries. */
  withoutTrustLevel: string[]
}

/**
 * The trust `config` (a parsed `<codexHome>/config.toml`) gives the folder `dir` for a Codex run
 * in `cwd` (default: `dir` itself), decided as Codex decides whether a project folder's `.codex/`
 * layer is loaded: the folder's own entry first, then the project root's, then the repository
 * root's, where a git worktree's repository root is its main repository; the first entry with a
 * `trust_level` wins, so the most specific entry decides (an `untrusted` folder inside a trusted
 * repository stays untrusted; so does one whose `trust_level` Codex does not accept, level
 * `invalid`). Entries without `trust_level` are skipped, as Codex skips them.
 * Source: openai/codex `codex-rs/core/src/config_loader/mod.rs` (`ProjectTrustContext::decision_for_dir`,
 * `project_trust_context`, `find_project_root`) and `codex-rs/core/src/git_info.rs`
 * (`resolve_root_git_project_for_trust`).
 */
export async function projectTrustOf(config: Record<string, unknown>, dir: string, cwd = dir): Promise<ProjectTrust> {
  const projectDir = await canonical(dir)
  const runDir = await canonical(cwd)
  const projectRoot = await projectRootOf(runDir, projectRootMarkersOf(config))
  const repoRoot = await repositoryRootForTrust(runDir)
  const withoutTrustLevel: string[] = []
  for (const key of [projectDir, projectRoot, repoRoot]) {
    if (key === undefined) continue
    const trust: EntryTrust = await entryTrustOf(config, key)
    if (trust === 'trusted' || trust === 'untrusted') {
      return {projectDir, projectRoot, repoRoot, level: trust, decidedBy: key, trustKey: key, withoutTrustLevel}
    }
    if (typeof trust === 'object') {
      return {projectDir, projectRoot, repoRoot, level: 'invalid', invalidValue: trust.invalid, decidedBy: key, trustKey: key, withoutTrustLevel}
    }
    if (trust === 'no-trust-level' && !withoutTrustLevel.includes(key)) withoutTrustLevel.push(key)
  }
  return {projectDir, projectRoot, repoRoot, level: 'not-recorded', trustKey: repoRoot ?? projectRoot, withoutTrustLevel}
}

/** The config's `project_root_markers` when it is a list of strings, else Codex's default. */
export function projectRootMarkersOf(config: Record<string, unknown>): string[] {
  const markers = config.project_root_markers
  return Array.isArray(markers) && markers.every((marker) => typeof marker === 'string') ? markers : DEFAULT_PROJECT_ROOT_MARKERS
}

/**
 * Codex's project root for a run in `cwd`: the nearest folder at or above it where one of
 * `markers` exists (an empty list means `cwd`), else `cwd` (`find_project_root` in Codex).
 */
export async function projectRootOf(cwd: string, markers: string[]): Promise<string> {
  if (markers.length === 0) return cwd
  for (let dir = cwd; ; dir = path.dirname(dir)) {
    for (const marker of markers) {
      if (await stat(path.join(dir, marker)).catch(() => undefined)) return dir
    }
    if (path.dirname(dir) === dir) return cwd
  }
}

/**
 * The repository root Codex uses for trust (`resolve_root_git_project_for_trust` in Codex): the
 * nearest folder at or above `dir` holding `.git`; when `.git` is a file (a linked worktree:
 * `gitdir: <main>/.git/worktrees/<name>`), the main repository's root instead. Undefined outside a
 * repository, or for a `.git` file that does not point into a `worktrees` folder.
 */
export async function repositoryRootForTrust(dir: string): Promise<string | undefined> {
  for (let current = dir; ; current = path.dirname(current)) {
    const dotGit = path.join(current, '.git')
    const info = await stat(dotGit).catch(() => undefined)
    if (info?.isDirectory()) return canonical(current)
    if (info) return mainRepositoryOf(current, dotGit)
    if (path.dirname(current) === current) return undefined
  }
}

async function mainRepositoryOf(worktreeRoot: string, dotGitFile: string): Promise<string | undefined> {
  const read = await readNamedFile(dotGitFile, {maxBytes: GIT_POINTER_FILE_MAX_BYTES, followLinks: true})
  const text = read.status === 'ok' ? read.bytes.toString('utf8') : undefined
  const pointer = text?.trim().match(/^gitdir:(.*)$/)?.[1]?.trim()
  if (!pointer) return undefined
  const gitDir = await canonical(path.resolve(worktreeRoot, pointer))
  const worktrees = path.dirname(gitDir)
  if (path.basename(worktrees) !== 'worktrees') return undefined
  return canonical(path.dirname(path.dirname(worktrees)))
}
