import type {Dirent, Stats} from 'node:fs'
import {lstat, readdir, stat} from 'node:fs/promises'
import {homedir} from 'node:os'
import path from 'node:path'

import {AkError} from '../errors.js'
import {type AgentDefinition, type AgentFileState, type AgentOrigin, agentFileOptions, asSentenceEnd, readAgentFile} from './agent-file.js'
import {TRUST_LEVEL_VALUES, canonical, codexConfigPath, readCodexConfig} from './codex-config.js'
import {SLUG_MAX_CHARS} from './limits.js'
import {type ProjectTrust, projectTrustOf} from './project-trust.js'
import type {CodexRoots} from './roots.js'
import {slugOfFileName, toolNameOf} from './slug.js'
import {describeFsError} from './toml-file.js'
import {tomlValue} from './toml-value.js'

/** A discovery root (user agents, plugin root) exists but cannot be read. Exit code 1. */
export class RootUnreadableError extends AkError {}

/** What discovery found about the project agents folder. */
export type ProjectAgents =
  | {status: 'none'}
  | {status: 'served'; dir: string}
  | {status: 'skipped'; dir: string; reason: string}

/** A served agent with its file as read at discovery. */
export interface DiscoveredAgent extends AgentDefinition {
  state: AgentFileState
}

/** Everything discovery found, and what it has to say about it. */
export interface Discovery extends CodexRoots {
  project: ProjectAgents
  /** The agents served, one per slug, sorted by slug. */
  agents: DiscoveredAgent[]
  /** Lines for stderr: agents replaced or hidden, files ignored, files that cannot be read or parsed. */
  notes: string[]
}

/**
 * Finds the agents to serve (DESIGN §5.2), in three sources:
 * 1. project agents: the nearest `<dir>/.codex/agents/` at or above `cwd` (the walk stops at the
 *    first folder holding `.git`, before the home folder, and at `/`), served only when
 *    `<codexHome>/config.toml` trusts the project folder or its repository root;
 * 2. user agents: `<codexHome>/agents/`;
 * 3. staged kit agents: `<pluginRoot>/<kit>/.codex/agents/`.
 * A project agent replaces a user agent of the same slug, a user agent beats a staged one, and
 * between kits the kit whose name sorts first wins. Only `*.toml` files whose name is a valid slug
 * are agents; symlinked ones in the project folder are ignored.
 * @throws RootUnreadableError when `<codexHome>/agents` or the plugin root exists but cannot be read.
 */
export async function discoverAgents(
  roots: CodexRoots,
  options: {cwd?: string; homeDir?: string} = {},
): Promise<Discovery> {
  const notes: string[] = []
  const winners = new Map<string, AgentDefinition>()

  const project = await discoverProject(roots.codexHome, options.cwd ?? process.cwd(), options.homeDir ?? homedir())
  const projectAgents = project.status === 'served' ? await scanFolder(project.dir, {kind: 'project'}, notes, true) : []
  if (project.status === 'skipped') notes.push(`project agents in ${project.dir} are not served: ${project.reason}`)

  const userDir = path.join(roots.codexHome, 'agents')
  let userAgents: AgentDefinition[]
  try {
    userAgents = await scanFolder(userDir, {kind: 'user'}, notes, false)
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') userAgents = []
    else throw new RootUnreadableError(`Cannot read the user agents folder ${userDir} (${describeFsError(error)}). Fix it or choose another --codex-home.`)
  }

  for (const agent of userAgents) winners.set(agent.slug, agent)
  for (const agent of projectAgents) {
    if (winners.has(agent.slug)) notes.push(`project agent ${agent.slug} (${agent.file}) replaces the user agent of the same slug`)
    winners.set(agent.slug, agent)
  }
  for (const agent of await scanKits(roots.pluginRoot, notes)) {
    const winner = winners.get(agent.slug)
    if (winner) {
      notes.push(`${describe(agent.origin)} agent ${agent.slug} is hidden by the ${describe(winner.origin)} agent of the same slug`)
      continue
    }
    winners.set(agent.slug, agent)
  }

  const agents: DiscoveredAgent[] = []
  for (const agent of [...winners.values()].sort((a, b) => compare(a.slug, b.slug))) {
    const state = await readAgentFile(agent.file, agentFileOptions(agent.origin))
    notes.push(...fileNotes(agent, state))
    agents.push({...agent, state})
  }
  return {...roots, project, agents, notes}
}

/** The stderr notes about one agent file as read: unreadable, invalid, gone, or a `name` differing from its slug. */
export function fileNotes(agent: AgentDefinition, state: AgentFileState): string[] {
  const tool = toolNameOf(agent.slug)
  if (state.status === 'unreadable') {
    return [`warning: cannot read ${agent.file} (${state.reason}); ${tool} is listed with an empty policy, which allows everything`]
  }
  if (state.status === 'invalid' || state.status === 'missing') {
    return [`warning: ${agent.file}: ${asSentenceEnd(state.reason)} Every call to ${tool} fails until it is fixed.`]
  }
  if (state.name !== undefined && state.name !== agent.slug) {
    return [`warning: ${agent.file} names the agent "${state.name}", but it is served as ${tool} after its file name`]
  }
  return []
}

/**
 * Finds the project agents folder and decides whether it is served (see discoverAgents): the
 * reason it is skipped otherwise. ak never writes trust.
 */
export async function discoverProject(codexHome: string, cwd: string, homeDir: string): Promise<ProjectAgents> {
  const found = await findProjectFolder(cwd, homeDir)
  if (!found) return {status: 'none'}
  const {projectDir, dir} = found
  if (found.problem) return {status: 'skipped', dir, reason: found.problem}

  const configPath = codexConfigPath(codexHome)
  const config = await readCodexConfig(codexHome)
  if (config.status === 'invalid') return {status: 'skipped', dir, reason: `cannot check trust: ${configPath} does not parse (${config.reason})`}
  if (config.status === 'unreadable' || config.status === 'too-large' || config.status === 'not-regular') return {status: 'skipped', dir, reason: `cannot check trust: cannot read ${configPath} (${config.reason})`}
  const data = config.status === 'ok' ? config.data : {}
  const trust = await projectTrustOf(data, projectDir, cwd)
  if (trust.level !== 'trusted') return {status: 'skipped', dir, reason: untrustedReason(trust, configPath)}
  try {
    const info = await stat(dir)
    if (!info.isDirectory()) return {status: 'skipped', dir, reason: 'the folder cannot be read (ENOTDIR: a file is where a folder is expected)'}
    await readdir(dir)
  } catch (error) {
    return {status: 'skipped', dir, reason: `the folder cannot be read (${describeFsError(error)})`}
  }
  return {status: 'served', dir}
}

/** Why a project that is not trusted is skipped, naming the entry that decided or what is missing. */
export function untrustedReason(trust: ProjectTrust, configPath: string): string {
  const where = trust.repoRoot && trust.repoRoot !== trust.projectDir ? `${trust.projectDir} (repository ${trust.repoRoot})` : trust.projectDir
  if (trust.level === 'untrusted') {
    const by = trust.decidedBy === trust.projectDir ? '' : ` through [projects."${trust.decidedBy}"]`
    return `the project ${trust.projectDir} is marked untrusted${by} in ${configPath}`
  }
  if (trust.level === 'invalid') {
    const value = tomlValue(trust.invalidValue)
    const accepted = TRUST_LEVEL_VALUES.map((level) => `"${level}"`).join(' or ')
    return `the project ${trust.projectDir} is not trusted: in ${configPath}, [projects."${trust.decidedBy}"] has trust_level = ${value}, which Codex does not accept (only ${accepted})`
  }
  const bare = trust.withoutTrustLevel.map((key) => `[projects."${key}"] has no trust_level, so Codex ignores it`)
  return `the project ${where} is not recorded as trusted in ${configPath}${bare.length > 0 ? ` (${bare.join('; ')})` : ''}; trust it in Codex first`
}

interface ProjectFolder {
  projectDir: string
  /** `<projectDir>/.codex/agents` */
  dir: string
  /** Why the folder cannot be served whatever the trust: a symlink, or it cannot be examined. */
  problem?: string
}

/** The nearest `.codex/agents` at or above `cwd`, stopping at the repository root, before the home folder, and at `/`. */
async function findProjectFolder(cwd: string, homeDir: string): Promise<ProjectFolder | undefined> {
  const home = await canonical(homeDir)
  let dir = await canonical(cwd)
  for (;;) {
    if (dir === home) return undefined
    const codexDir = path.join(dir, '.codex')
    const agentsDir = path.join(codexDir, 'agents')
    const codexInfo = await lstatOf(codexDir)
    if (codexInfo instanceof Error) return {projectDir: dir, dir: agentsDir, problem: `.codex cannot be examined (${describeFsError(codexInfo)})`}
    if (codexInfo?.isSymbolicLink()) {
      if (await stat(agentsDir).then(() => true, () => false)) return {projectDir: dir, dir: agentsDir, problem: '.codex is a symlink'}
    } else if (codexInfo?.isDirectory()) {
      const agentsInfo = await lstatOf(agentsDir)
      if (agentsInfo instanceof Error) return {projectDir: dir, dir: agentsDir, problem: `the folder cannot be read (${describeFsError(agentsInfo)})`}
      if (agentsInfo?.isSymbolicLink()) return {projectDir: dir, dir: agentsDir, problem: 'agents is a symlink'}
      if (agentsInfo) return {projectDir: dir, dir: agentsDir}
    }
    if (await lstatOf(path.join(dir, '.git'))) return undefined
    const parent = path.dirname(dir)
    if (parent === dir) return undefined
    dir = parent
  }
}

/** The first folder at or above `dir` holding `.git` (a folder, or a file for worktrees), if any. */
export async function repositoryRootOf(dir: string): Promise<string | undefined> {
  for (let current = dir; ; current = path.dirname(current)) {
    const info = await lstatOf(path.join(current, '.git'))
    if (info && !(info instanceof Error)) return current
    if (path.dirname(current) === current) return undefined
  }
}

/** Stats of `file` without following a symlink; undefined when absent, the error when it cannot be examined. */
async function lstatOf(file: string): Promise<Stats | Error | undefined> {
  try {
    return await lstat(file)
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code
    return code === 'ENOENT' || code === 'ENOTDIR' ? undefined : (error as Error)
  }
}

/**
 * The agent files of one folder: `*.toml` entries whose name is a valid slug, sorted by name.
 * Symlinked files are followed, except in the project folder where they are ignored.
 * @throws the file-system error when the folder cannot be read.
 */
async function scanFolder(dir: string, origin: AgentOrigin, notes: string[], isProject: boolean): Promise<AgentDefinition[]> {
  const entries = (await readdir(dir, {withFileTypes: true})).sort((a, b) => compare(a.name, b.name))
  const agents: AgentDefinition[] = []
  for (const entry of entries) {
    if (!entry.name.endsWith('.toml')) continue
    const file = path.join(dir, entry.name)
    if (!(await isAgentFileEntry(entry, file))) continue
    const slug = slugOfFileName(entry.name)
    if (!slug) {
      notes.push(
        `warning: ignored ${file}: an agent file name must be a slug ([a-z0-9][a-z0-9_-]*, at most ${SLUG_MAX_CHARS} characters) followed by .toml`,
      )
      continue
    }
    if (entry.isSymbolicLink() && isProject) {
      notes.push(`ignored ${file}: symlinked agent files in the project folder are not served`)
      continue
    }
    agents.push({slug, file, origin})
  }
  return agents
}

/** True for a regular file, or a symlink that does not lead to a folder (a dangling one shows up as unreadable). */
async function isAgentFileEntry(entry: Dirent, file: string): Promise<boolean> {
  if (entry.isFile()) return true
  if (!entry.isSymbolicLink()) return false
  try {
    return (await stat(file)).isFile()
  } catch {
    return true
  }
}

/** Agents of every kit under the plugin root, kits in name order. A missing root is empty. */
async function scanKits(pluginRoot: string, notes: string[]): Promise<AgentDefinition[]> {
  let kits: Dirent[]
  try {
    kits = (await readdir(pluginRoot, {withFileTypes: true})).sort((a, b) => compare(a.name, b.name))
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return []
    throw new RootUnreadableError(`Cannot read the plugin root ${pluginRoot} (${describeFsError(error)}). Fix it or choose another --plugin-root.`)
  }
  const agents: AgentDefinition[] = []
  for (const kit of kits) {
    const kitDir = path.join(pluginRoot, kit.name)
    if (!kit.isDirectory() && !(kit.isSymbolicLink() && (await stat(kitDir).then((info) => info.isDirectory(), () => false)))) continue
    const dir = path.join(kitDir, '.codex', 'agents')
    try {
      agents.push(...(await scanFolder(dir, {kind: 'kit', kit: kit.name}, notes, false)))
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'ENOENT') continue
      notes.push(`warning: kit ${kit.name} skipped: cannot read ${dir} (${describeFsError(error)})`)
    }
  }
  return agents
}

function describe(origin: AgentOrigin): string {
  return origin.kind === 'kit' ? `kit ${origin.kit}'s` : origin.kind
}

/** Code-point order, the same on every machine and locale. */
function compare(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0
}
