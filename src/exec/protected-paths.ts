/**
 * Protected paths (DESIGN §4.9): what a level may cause.
 *
 * THE RULE. A file or folder inside the workspace is protected when other programs run what it
 * holds, or follow it to something they run, automatically: without the user choosing to run the
 * project's code. Git runs the programs its config names (`core.fsmonitor`, `core.hooksPath`,
 * `core.sshCommand`, `core.pager`, aliases, filters, `include.path`) and its hooks at the user's
 * next `git status` or `git commit`; editors, shells and agents read their folder's settings when
 * the folder is opened. So the `files` level, which lets an agent change the project's files,
 * would otherwise let it make something run, and a sandboxed command could plant what runs
 * outside its sandbox later.
 *
 * Not protected, by the same rule: the project's own sources and scripts, including those the
 * user has chosen to run through git (`.husky/`, `.pre-commit-config.yaml`, lefthook files: hooks
 * the project ships and the user installed, which run the project's code anyway, like `npm test`);
 * `.gitignore`, `.gitattributes` (they pick filters only the protected config or the user's own
 * config can define); `.github/` (it runs on a server, when the user pushes).
 *
 * This list is the one policy: the file tools refuse to create, change, move onto or delete a
 * protected path (`assertWritablePath`, judged on what confinement resolved, so a symlink, a
 * renamed parent or a case-folding file system cannot spell it differently), and the terminal
 * sandbox binds the same paths read-only inside every writable root (sandbox.ts). Reads, `list`
 * and `search` are not affected. The operator may make named protected paths writable
 * (`--allow-protected`, `createAgentExec({allowProtected})`).
 */
import {lstatSync, realpathSync} from 'node:fs'
import nodePath from 'node:path'

import {BadInputError, ProtectedPathError} from '../errors.js'
import {escapeControls} from '../text-escape.js'
import {hooksFolderOf, readConfigSync} from './git-hooks-path.js'
import type {ConfinedFolder} from './files/confined-open.js'
import {joinBytes, type ResolvedPath, type Workspace} from './workspace.js'

/** One protected name, and why it is protected. */
export interface ProtectedName {
  /** The file or folder name as its program spells it; matched ignoring ASCII case. */
  readonly name: string
  /** What the program expects there; `.git` is a folder, or a file that points git at one. */
  readonly kind: 'folder' | 'file' | 'git'
  /** Who runs what it holds, and when (quoted in refusals, `ak doctor` and the docs). */
  readonly runBy: string
}

/** The name of git's folder (or pointer file) in a repository's work tree. */
export const GIT_NAME = '.git'

/**
 * Names protected wherever they appear in the workspace (a nested project, a subfolder opened on
 * its own, a folder a shell enters). `.git` is protected as a whole only as an entry (it may not be
 * created, replaced or deleted); inside a `.git` folder only GIT_CONTROL_ENTRIES are protected, so
 * that git can still write objects, refs and the index.
 */
export const PROTECTED_NAMES: readonly ProtectedName[] = [
  {
    name: GIT_NAME,
    kind: 'git',
    runBy: 'git reads its config and runs its hooks at the next git command; a .git file points git at another folder',
  },
  {name: '.codex', kind: 'folder', runBy: 'Codex and ak codex-agent-runtime load its config and agents (sandbox mode, MCP servers, commands)'},
  {name: '.agents', kind: 'folder', runBy: 'Codex loads the skills it holds into its agents when it starts here (Codex keeps it read-only in its own sandbox too)'},
  {name: '.claude', kind: 'folder', runBy: 'Claude Code loads its settings (hooks, MCP servers, permissions) when it starts here'},
  {name: '.gemini', kind: 'folder', runBy: 'Gemini CLI loads its settings (MCP servers, tool commands) when it starts here'},
  {name: '.cursor', kind: 'folder', runBy: 'Cursor loads its rules and MCP servers when the folder is opened'},
  {name: '.vscode', kind: 'folder', runBy: 'VS Code runs tasks marked runOn folderOpen and the programs its settings name when the folder is opened'},
  {name: '.idea', kind: 'folder', runBy: 'JetBrains IDEs run the interpreters, SDKs and tools its settings name when the project is opened'},
  {name: '.zed', kind: 'folder', runBy: 'Zed runs the language servers and tasks its settings name when the folder is opened'},
  {
    name: '.devcontainer',
    kind: 'folder',
    runBy: 'dev container tools run its initializeCommand on the host when the folder is reopened in a container',
  },
  {name: '.devcontainer.json', kind: 'file', runBy: 'dev container tools run its initializeCommand on the host'},
  {name: '.mcp.json', kind: 'file', runBy: 'MCP clients (Claude Code and others) start the servers it names when they start here'},
  {name: '.envrc', kind: 'file', runBy: 'direnv runs it when a shell enters the folder'},
  {name: 'mise.toml', kind: 'file', runBy: 'mise runs its [hooks] and tasks it names when a shell enters the folder'},
  {name: '.mise.toml', kind: 'file', runBy: 'mise runs its [hooks] when a shell enters the folder'},
  {name: 'mise.local.toml', kind: 'file', runBy: 'mise runs its [hooks] and tasks it names when a shell enters the folder'},
  {name: '.mise.local.toml', kind: 'file', runBy: 'mise runs its [hooks] when a shell enters the folder'},
  {name: '.mise', kind: 'folder', runBy: 'mise reads its config.toml ([hooks]) when a shell enters the folder'},
  {name: '.exrc', kind: 'file', runBy: 'vim and neovim with exrc set run it when they start in the folder'},
  {name: '.nvimrc', kind: 'file', runBy: 'neovim with exrc set runs it when it starts in the folder'},
  {name: '.nvim.lua', kind: 'file', runBy: 'neovim with exrc set runs it when it starts in the folder'},
  {name: '.helix', kind: 'folder', runBy: 'Helix starts the language servers its languages.toml names when a file is opened'},
  {name: 'opencode.json', kind: 'file', runBy: 'opencode loads its MCP servers, commands and permissions when it starts here'},
  {name: 'opencode.jsonc', kind: 'file', runBy: 'opencode loads its MCP servers, commands and permissions when it starts here'},
  {name: '.opencode', kind: 'folder', runBy: 'opencode loads its agents, commands and plugins when it starts here'},
  {name: '.windsurf', kind: 'folder', runBy: 'Windsurf loads its rules, workflows and hooks when the folder is opened'},
  {name: '.continue', kind: 'folder', runBy: 'Continue loads its config and MCP servers when the folder is opened'},
  {name: '.kiro', kind: 'folder', runBy: 'Kiro runs its hooks and MCP servers when the folder is opened'},
  {name: '.roo', kind: 'folder', runBy: 'Roo Code loads its MCP servers and modes when the folder is opened'},
  {name: '.amazonq', kind: 'folder', runBy: 'Amazon Q loads its MCP servers and agents when it starts here'},
  {name: '.qwen', kind: 'folder', runBy: 'Qwen Code loads its settings (MCP servers, tool commands) when it starts here'},
]

/**
 * Entries of a git folder that git runs or follows: `config` (programs it names), `config.worktree`
 * (the same, per work tree), `commondir` (makes git read another folder's config and hooks),
 * `hooks/` and `info/`. The same entries are protected in the git folders of submodules and linked
 * work trees (below GIT_NESTED_FOLDERS). Everything else (objects, refs, the index, logs, HEAD,
 * COMMIT_EDITMSG) stays writable.
 */
export const GIT_CONTROL_ENTRIES: readonly ProtectedName[] = [
  {name: 'config', kind: 'file', runBy: 'git runs the programs its config names (core.fsmonitor, core.hooksPath, core.sshCommand, aliases, filters)'},
  {name: 'config.worktree', kind: 'file', runBy: 'git reads it as config for the work tree'},
  {name: 'commondir', kind: 'file', runBy: 'git reads config and hooks from the folder it names'},
  {name: 'hooks', kind: 'folder', runBy: 'git runs its hooks at commits, merges and checkouts'},
  {name: 'info', kind: 'folder', runBy: 'git reads its attributes and excludes'},
]

/**
 * GIT FOLDERS ANYWHERE. Git takes any folder for a git folder when it holds a valid `HEAD` (with
 * `objects/` and `refs/`, or a `commondir`: git's setup.c, is_git_directory), whatever its name: a
 * bare repository, the folder a `.git` file's `gitdir:` names, or the workspace root itself; `git
 * status` run there, or below it with `core.worktree` set, reads its config. So the file tools
 * also protect (1) a file named HEAD anywhere but inside a `.git` folder (creating one is what
 * would make a folder a git folder; git itself writes HEAD, the file tools need not), and (2) the
 * GIT_CONTROL_ENTRIES of any folder that holds a HEAD, judged on the disk when the write is
 * judged (see gitFolderProtectionOf). Every gitdir a `.git` file in the workspace names is such a
 * folder (git refuses one without HEAD), so this one rule covers the folders `.git` files point
 * at, as the sandbox's binds do. The sandbox binds the control entries of `.git` folders, of
 * gitdir targets and of their submodules' and work trees' folders, but not of every folder
 * holding a HEAD; what a command makes that way is neutralised after it (sandbox-leftovers.ts).
 */
export const GIT_HEAD_RULE: ProtectedName = {
  name: 'HEAD',
  kind: 'file',
  runBy: 'git takes a folder holding HEAD (with objects/ and refs/) for a repository, and runs the programs its config names at git status there',
}

/** What protects the folder a repository's `core.hooksPath` names (git-hooks-path.ts). */
export const HOOKS_PATH_RULE: ProtectedName = {
  name: 'core.hooksPath',
  kind: 'folder',
  runBy: "git runs the hooks in the folder its config's core.hooksPath names at commits, merges and checkouts",
}

/**
 * The config keys a git folder made by a sandboxed command keeps (sandbox-leftovers.ts), as
 * `section.key` or `section.*.key` (any subsection), matched ignoring case but for the
 * subsection: what `git init` and `git clone` write (also `--bare`, `--filter`, `--no-tags`, a
 * sha256 or reftable repository) and the identity a command sets for its commits. None names a
 * program or another file git reads: every other key (`core.fsmonitor`, `core.hooksPath`,
 * `core.sshCommand`, `core.pager`, `core.editor`, `core.worktree`, aliases, filters, diff and
 * merge drivers, `include.path`, `submodule.*.update`, `remote.*.uploadpack`…) is moved out with
 * the original file. `core.worktree` is left out too: it is what makes a bare repository found by
 * git in a folder work on the folder around it, and a submodule's work tree is found through its
 * `.git` file without it.
 */
export const NEW_REPOSITORY_CONFIG_KEYS: readonly string[] = [
  'core.repositoryformatversion',
  'core.filemode',
  'core.bare',
  'core.logallrefupdates',
  'core.ignorecase',
  'core.precomposeunicode',
  'core.symlinks',
  'extensions.objectformat',
  'extensions.refstorage',
  'extensions.partialclone',
  'remote.*.url',
  'remote.*.fetch',
  'remote.*.tagopt',
  'remote.*.promisor',
  'remote.*.partialclonefilter',
  'branch.*.remote',
  'branch.*.merge',
  'user.name',
  'user.email',
]

/** Folders of a git folder that hold the git folders of submodules (`modules`) and linked work trees (`worktrees`). */
export const GIT_NESTED_FOLDERS: readonly string[] = ['modules', 'worktrees']

/** A protected path found in a path: where the protection starts, and which name protects it. */
export interface Protection {
  /** The protected path relative to the workspace, in the display form (`sub/.git/config`). */
  readonly path: string
  readonly rule: ProtectedName
}

/** `name` with ASCII letters in lower case (case-insensitive file systems fold them; nothing else is folded). */
export function foldCase(name: string): string {
  return name.replace(/[A-Z]/g, (letter) => letter.toLowerCase())
}

const BY_NAME = new Map(PROTECTED_NAMES.map((rule) => [rule.name, rule]))
const GIT_CONTROL_BY_NAME = new Map(GIT_CONTROL_ENTRIES.map((rule) => [rule.name, rule]))

/** The entry of PROTECTED_NAMES that the file or folder name `name` is (matched ignoring ASCII case), or undefined. */
export function protectedNameOf(name: string): ProtectedName | undefined {
  return BY_NAME.get(foldCase(name))
}

/**
 * The git folder the text of a `.git` file names (its `gitdir:` line), resolved against `folder`,
 * the folder that holds the `.git` file; undefined when it names none. Pure.
 */
export function gitdirOf(text: string, folder: string): string | undefined {
  const match = /^gitdir:\s*(.+?)\s*$/m.exec(text)
  return match ? nodePath.resolve(folder, match[1] as string) : undefined
}

/**
 * The protection that covers `relative` (a path relative to the workspace in the display form, as
 * ResolvedPath.relative; `.` for the root), or undefined when it is not protected. The first
 * protected name from the root wins: `.vscode/.git/config` is protected as `.vscode`. Pure.
 */
export function protectionOf(relative: string): Protection | undefined {
  if (relative === '.' || relative === '') return undefined
  const names = relative.split('/')
  let isInGit = false
  for (let index = 0; index < names.length; index++) {
    const rule = protectedNameOf(names[index] as string)
    if (!rule) continue
    if (rule.kind !== 'git' || index === names.length - 1) return {path: names.slice(0, index + 1).join('/'), rule}
    isInGit = true
    const inGit = gitControlOf(names, index + 1)
    if (inGit) return inGit
  }
  // HEAD outside a .git folder would make its folder a git folder (GIT_HEAD_RULE).
  if (!isInGit && foldCase(names.at(-1) as string) === foldCase(GIT_HEAD_RULE.name)) return {path: relative, rule: GIT_HEAD_RULE}
  return undefined
}

/**
 * The protection of `real` (an absolute real path, as bytes, of `relative`, its display form
 * relative to the workspace) by HOOKS_PATH_RULE: `real` lies in (or is) the folder the
 * `core.hooksPath` of a repository names, for each repository whose work tree or bare git folder is
 * a folder on the way from `/` to `real` (a `.git` folder, a `.git` file's gitdir, a folder holding
 * HEAD). A hooks folder that is the workspace root or lies outside it is not judged. Reads the file
 * system (an lstat or two per folder on the way, and the configs found).
 */
export function hooksPathProtectionOf(real: Uint8Array, relative: string): Protection | undefined {
  if (relative === '.' || relative === '') return undefined
  const target = Buffer.from(real).toString('utf8')
  const names = relative.split('/')
  const parts = target.split('/')
  for (let count = 1; count < parts.length; count++) {
    const folder = parts.slice(0, count).join('/') || '/'
    const dotGit = nodePath.join(folder, GIT_NAME)
    const info = lstatSync(dotGit, {throwIfNoEntry: false})
    let gitFolder: string | undefined
    if (info?.isDirectory()) gitFolder = dotGit
    else if (info?.isFile()) gitFolder = gitdirOf(readConfigSync(dotGit) ?? '', folder)
    else if (lstatSync(nodePath.join(folder, GIT_HEAD_RULE.name), {throwIfNoEntry: false})) gitFolder = folder
    const hooks = gitFolder === undefined ? undefined : hooksFolderOf(gitFolder, folder)
    if (hooks === undefined) continue
    let hooksReal = hooks
    try {
      hooksReal = realpathSync(hooks)
    } catch {}
    if (target !== hooksReal && !target.startsWith(`${hooksReal}/`)) continue
    const below = target === hooksReal ? 0 : target.slice(hooksReal.length + 1).split('/').length
    if (below >= names.length) continue // the workspace root, or above it
    return {path: names.slice(0, names.length - below).join('/'), rule: HOOKS_PATH_RULE}
  }
  return undefined
}

/**
 * The protection of `real` (an absolute real path, as bytes, of `relative`, its display form
 * relative to the workspace) by GIT_HEAD_RULE's second part: the first folder on the way from the
 * workspace root that holds a HEAD (so git takes it for a git folder) when the next name is one of
 * its GIT_CONTROL_ENTRIES. Reads the file system (one lstat per folder on the way, never following
 * the HEAD it finds); undefined when no such folder is on the way.
 */
export function gitFolderProtectionOf(real: Uint8Array, relative: string): Protection | undefined {
  if (relative === '.' || relative === '') return undefined
  const names = relative.split('/')
  // The real path of the folder holding names[index] is `real` without its last names.length - index names.
  const bytes = Buffer.from(real)
  const ends: number[] = []
  let end = bytes.length
  for (let count = 0; count < names.length; count++) {
    end = bytes.lastIndexOf(0x2f, end - 1)
    if (end < 0) return undefined
    ends.unshift(end)
  }
  for (let index = 0; index < names.length; index++) {
    const control = GIT_CONTROL_BY_NAME.get(foldCase(names[index] as string))
    if (!control) continue
    const folder = bytes.subarray(0, Math.max(ends[index] as number, 1))
    const head = Buffer.concat([folder, Buffer.from(folder.length === 1 ? GIT_HEAD_RULE.name : `/${GIT_HEAD_RULE.name}`)])
    if (lstatSync(head, {throwIfNoEntry: false})) return {path: names.slice(0, index + 1).join('/'), rule: control}
  }
  return undefined
}

/**
 * The control entry of the git folder whose entries start at `names[start]`, when the path goes
 * through one: a control entry of the folder itself, or any control entry's name below its
 * `modules/` or `worktrees/` (a submodule's name may hold slashes, so its git folder may lie at any
 * depth there).
 */
function gitControlOf(names: readonly string[], start: number): Protection | undefined {
  const first = foldCase(names[start] as string)
  const control = GIT_CONTROL_BY_NAME.get(first)
  if (control) return {path: names.slice(0, start + 1).join('/'), rule: control}
  if (!GIT_NESTED_FOLDERS.includes(first)) return undefined
  for (let index = start + 1; index < names.length; index++) {
    const nested = GIT_CONTROL_BY_NAME.get(foldCase(names[index] as string))
    if (nested) return {path: names.slice(0, index + 1).join('/'), rule: nested}
  }
  return undefined
}

/** The option that makes protected paths writable, as each entry names it (for messages). */
export const ALLOW_PROTECTED_FLAG = '--allow-protected'
/** What separates the paths in one `--allow-protected` value (the flag is given once, as every flag). */
export const ALLOW_PROTECTED_SEPARATOR = ','
/** Help text of `--allow-protected`. */
export const ALLOW_PROTECTED_FLAG_HELP =
  'Protected paths that edit may change and sandboxed commands may write, relative to the workspace and separated by ' +
  `"${ALLOW_PROTECTED_SEPARATOR}", e.g. .vscode/settings.json. Protected are git's config and hooks, agent, editor and shell ` +
  'settings (.codex/, .claude/, .vscode/, .mcp.json, .envrc…); see docs/confinement.md. Default: none.'

/**
 * The paths of one `--allow-protected` value (`a,b`), for AllowedProtectedPaths.parse; empty
 * entries (a trailing comma) are dropped.
 */
export function splitAllowProtectedFlag(value: string | undefined): string[] {
  return (value ?? '').split(ALLOW_PROTECTED_SEPARATOR).map((entry) => entry.trim()).filter((entry) => entry !== '')
}
/** The same as a `createAgentExec` option. */
export const ALLOW_PROTECTED_OPTION = 'allowProtected'

/**
 * The protected paths the operator made writable (`--allow-protected PATH`, repeatable;
 * `createAgentExec({allowProtected: [...]})`): each is a path relative to the workspace that is
 * itself protected, and it makes that path and everything below it writable, to the file tools and
 * in the sandbox. Judged on the real path, as the refusals are: allowing `.vscode` does not allow a
 * `.vscode` that is a symlink to `.git`.
 */
export class AllowedProtectedPaths {
  private constructor(
    /** The allowed paths, normalized (no `./`, no trailing `/`), as given. */
    readonly paths: readonly string[],
  ) {}

  /** Nothing allowed: every protected path is refused. */
  static readonly NONE = new AllowedProtectedPaths([])

  /**
   * Checks and normalizes the operator's list. A path is protected by its names (protectionOf),
   * or, judged on the disk of `workspace` when it is given, by a HEAD beside a control entry
   * (gitFolderProtectionOf) or a repository's core.hooksPath (hooksPathProtectionOf): so
   * `.githooks/pre-commit` is accepted where `core.hooksPath = .githooks`.
   * @param workspace the workspace folder (any path to it); without it, only names are judged
   * @throws BadInputError for an empty, absolute or `..` path, or one that is not protected (the
   *   message names the protected names).
   */
  static parse(paths: readonly string[] | undefined, workspace?: string): AllowedProtectedPaths {
    if (!paths || paths.length === 0) return AllowedProtectedPaths.NONE
    const normalized = paths.map((given) => {
      const shown = escapeControls(given)
      const names = given.split('/').filter((name) => name !== '' && name !== '.')
      if (given.startsWith('/') || given.startsWith('~') || names.length === 0 || names.includes('..')) {
        throw new BadInputError(
          `${ALLOW_PROTECTED_FLAG} "${shown}" is not a path inside the workspace. Name a protected path relative to the workspace, ` +
            'such as .vscode/settings.json.',
        )
      }
      const path = names.join('/')
      // A control entry's name may be protected by a HEAD beside it (gitFolderProtectionOf), which only the disk tells.
      const isProtected =
        protectionOf(path) !== undefined ||
        names.some((name) => GIT_CONTROL_BY_NAME.has(foldCase(name))) ||
        (workspace !== undefined && diskProtectionOf(workspace, path) !== undefined)
      if (!isProtected) {
        throw new BadInputError(
          `${ALLOW_PROTECTED_FLAG} "${shown}" is not a protected path, so it is writable already. Protected are ${describeProtectedNames()}.`,
        )
      }
      return path
    })
    return new AllowedProtectedPaths([...new Set(normalized)])
  }

  /** Whether `relative` (display form, relative to the workspace) is a folder on the way to an allowed path. */
  leadsTo(relative: string): boolean {
    return this.below(relative).length > 0
  }

  /** The allowed paths that lie below the folder `relative` (display form, relative to the workspace). */
  below(relative: string): string[] {
    const folded = `${foldCase(relative)}/`
    return this.paths.filter((allowed) => foldCase(allowed).startsWith(folded))
  }

  /** Whether `relative` (display form, relative to the workspace) is an allowed path or lies below one. */
  covers(relative: string): boolean {
    const folded = foldCase(relative)
    return this.paths.some((allowed) => {
      const prefix = foldCase(allowed)
      return folded === prefix || folded.startsWith(`${prefix}/`)
    })
  }
}

/**
 * The protection of `relative` (normalized, relative to the folder `workspace`) that only the disk
 * tells: a HEAD beside a control entry, or a core.hooksPath. Judged on its real path: the real
 * path of its nearest existing folder, then the names that do not exist yet. Undefined when
 * neither protects it, or the workspace cannot be read.
 */
function diskProtectionOf(workspace: string, relative: string): Protection | undefined {
  let root: string
  try {
    root = realpathSync(workspace)
  } catch {
    return undefined
  }
  let existing = nodePath.join(root, relative)
  const missing: string[] = []
  for (;;) {
    try {
      existing = realpathSync(existing)
      break
    } catch {
      if (existing === root) return undefined
      missing.unshift(nodePath.basename(existing))
      existing = nodePath.dirname(existing)
    }
  }
  const real = nodePath.join(existing, ...missing)
  const inside = nodePath.relative(root, real)
  if (inside === '' || inside.startsWith('..') || nodePath.isAbsolute(inside)) return undefined
  const bytes = Buffer.from(real)
  return gitFolderProtectionOf(bytes, inside) ?? hooksPathProtectionOf(bytes, inside)
}

/** The protected names for messages: `.git (config, hooks/, …), .codex/, …`. */
export function describeProtectedNames(): string {
  const shown = (rule: ProtectedName) => (rule.kind === 'folder' ? `${rule.name}/` : rule.name)
  const git = `${GIT_NAME} (itself, and its ${GIT_CONTROL_ENTRIES.map(shown).join(', ')}, also in ${GIT_NESTED_FOLDERS.map((name) => `${name}/`).join(' and ')})`
  const anywhere = `${GIT_HEAD_RULE.name} outside ${GIT_NAME} and the same entries of any folder holding one, the folder ${HOOKS_PATH_RULE.name} names`
  return [git, anywhere, ...PROTECTED_NAMES.filter((rule) => rule.kind !== 'git').map(shown)].join(', ')
}

/** What a file tool is about to do to a path, for the refusal. */
export type WriteAction = 'create' | 'change' | 'delete' | 'move onto'

function refusal(requested: string, protection: Protection, action: WriteAction): ProtectedPathError {
  const shown = escapeControls(requested)
  const via = protection.path === requested ? '' : ` (it is, or lies in, ${escapeControls(protection.path)})`
  return new ProtectedPathError(
    `"${shown}" is a protected path${via}: ${protection.rule.runBy}. The file tools never ${action} a protected path, so that an ` +
      'agent cannot make something run outside the tools. If this agent is meant to change it, the operator can start the ' +
      `server with ${ALLOW_PROTECTED_FLAG} ${escapeControls(protection.path)} (createAgentExec option ${ALLOW_PROTECTED_OPTION}); ` +
      'nothing the agent sends can.',
  )
}

/**
 * Refuses a write to a protected path. The file tools call it for every path they will create,
 * replace, delete or move onto, with what `Workspace.resolve` gave for it (its real path, so a
 * symlink or a case-folding spelling cannot hide a protected path). A path that does not exist yet
 * is judged with every missing folder that creating it would make (`a/.git/HEAD` creates `a/.git`).
 * Reads the file system to find folders holding a HEAD and the folders core.hooksPath names
 * (refuseProtected); call `assertWritableEntry` too once the folder that will hold the path is
 * open, to judge the folder actually opened.
 * @param target the resolved path
 * @param allowed the operator's allowance (`runtime.allowedProtected`)
 * @param action what is about to happen, for the message
 * @param requested the path as the caller gave it, for the message (default: `target.relative`)
 * @throws ProtectedPathError naming the rule that protects it and how the operator allows it
 */
export function assertWritablePath(
  target: ResolvedPath,
  allowed: AllowedProtectedPaths,
  action: WriteAction,
  requested: string = target.relative,
): void {
  refuseProtected(target.real, target.relative, allowed, action, requested)
  // The missing folders on the way are created too (the last missing name is the target itself);
  // an allowed path may be created with the folders that lead to it.
  const names = target.relative.split('/')
  for (let missing = target.missing.length - 1; missing >= 1; missing--) {
    const folder = names.slice(0, names.length - missing).join('/')
    const above = protectionOf(folder)
    if (above && !allowed.covers(folder) && !allowed.leadsTo(folder)) throw refusal(requested, above, 'create')
  }
}

/**
 * Refuses a write to the entry `name` of the open `folder`, judged on where the folder really is
 * now (Linux: its descriptor's path), so a parent renamed or swapped after `Workspace.resolve`
 * cannot carry a write into a protected folder. Call it right before creating, replacing,
 * deleting or renaming onto the entry.
 * @throws ProtectedPathError as assertWritablePath
 */
export function assertWritableEntry(
  workspace: Workspace,
  folder: ConfinedFolder,
  name: Uint8Array,
  allowed: AllowedProtectedPaths,
  action: WriteAction,
  requested: string,
): void {
  const real = folder.realNow
  // A folder found outside is refused by confinement's own checks; only inside is judged here.
  if (!workspace.isInside(real)) return
  const full = joinBytes(real, name)
  refuseProtected(full, workspace.relativeOf(full), allowed, action, requested)
}

/**
 * Refuses a write to `relative` (display form, relative to the workspace), whose real path is
 * `real`, when writeProtectionOf protects it and `allowed` does not cover it.
 */
function refuseProtected(real: Uint8Array, relative: string, allowed: AllowedProtectedPaths, action: WriteAction, requested: string): void {
  const protection = writeProtectionOf(real, relative)
  if (protection && !allowed.covers(relative)) throw refusal(requested, protection, action)
}

/**
 * What protects `relative` (display form, relative to the workspace), whose real path is `real`,
 * from writes: its names (protectionOf), a HEAD beside a control entry (gitFolderProtectionOf) or a
 * core.hooksPath (hooksPathProtectionOf), judged in that order, so the file system is read only
 * when the names alone do not protect it. Undefined when nothing does. For writers other than the
 * file tools (`ak exec undo`), which word their own refusal.
 */
export function writeProtectionOf(real: Uint8Array, relative: string): Protection | undefined {
  return protectionOf(relative) ?? gitFolderProtectionOf(real, relative) ?? hooksPathProtectionOf(real, relative)
}
