import {readFile} from 'node:fs/promises'
import path from 'node:path'
import stripJsonComments from 'strip-json-comments'

import {shellQuote} from '../codex/inspect.js'
import type {McpServerEntry} from '../codex/mcp-servers.js'
import {type CheckResult, type DoctorEnvironment, fail, ok, warn} from './check.js'
import {clientEnvironment, probeStdioServer} from './stdio-probe.js'
import {agentExecLevelOf} from './tool-approval-check.js'

/** The name of the check in the report. */
const CHECK = 'client entries'

/** A config file of an MCP client that `ak exec config` writes a block for, and where its servers are. */
interface ClientFile {
  /** The client, as `ak exec config --client` names it. */
  client: 'gemini' | 'opencode' | 'cursor' | 'windsurf' | 'zed'
  file: string
  /** The key of the object holding the servers by name. */
  key: 'mcpServers' | 'mcp' | 'context_servers'
}

/**
 * The config files the check reads: each client's user file and the current project's (the places
 * client-blocks.ts says its blocks go). OpenCode's user folder follows XDG_CONFIG_HOME; Zed's too.
 */
export function clientFiles(environment: Pick<DoctorEnvironment, 'cwd' | 'env' | 'homeDir'>): ClientFile[] {
  const {cwd, homeDir} = environment
  const config = environment.env.XDG_CONFIG_HOME?.trim() || path.join(homeDir, '.config')
  return [
    {client: 'gemini', file: path.join(homeDir, '.gemini', 'settings.json'), key: 'mcpServers'},
    {client: 'gemini', file: path.join(cwd, '.gemini', 'settings.json'), key: 'mcpServers'},
    ...['opencode.json', 'opencode.jsonc'].flatMap((name) => [
      {client: 'opencode' as const, file: path.join(config, 'opencode', name), key: 'mcp' as const},
      {client: 'opencode' as const, file: path.join(cwd, name), key: 'mcp' as const},
      {client: 'opencode' as const, file: path.join(cwd, '.opencode', name), key: 'mcp' as const},
    ]),
    {client: 'cursor', file: path.join(homeDir, '.cursor', 'mcp.json'), key: 'mcpServers'},
    {client: 'cursor', file: path.join(cwd, '.cursor', 'mcp.json'), key: 'mcpServers'},
    {client: 'windsurf', file: path.join(homeDir, '.codeium', 'windsurf', 'mcp_config.json'), key: 'mcpServers'},
    {client: 'zed', file: path.join(config, 'zed', 'settings.json'), key: 'context_servers'},
    {client: 'zed', file: path.join(cwd, '.zed', 'settings.json'), key: 'context_servers'},
  ]
}

/** An entry of a client file that starts AgentExec, as a launch line. */
interface FoundEntry {
  client: ClientFile['client']
  file: string
  name: string
  command: string
  args: string[]
  env: Record<string, string>
  /** Gemini CLI only: whether the entry has `trust: true`. */
  trusted?: boolean
}

/** The launch line of a stdio entry in any of the clients' shapes (OpenCode's one `command` array), or undefined for an HTTP entry. */
function launchOf(entry: Record<string, unknown>): {command: string; args: string[]; env: Record<string, string>} | undefined {
  const env = Object.fromEntries(Object.entries((entry.env ?? entry.environment ?? {}) as Record<string, unknown>).map(([name, value]) => [name, String(value)]))
  if (Array.isArray(entry.command) && typeof entry.command[0] === 'string') return {command: entry.command[0], args: entry.command.slice(1).map(String), env}
  if (typeof entry.command === 'string') return {command: entry.command, args: Array.isArray(entry.args) ? entry.args.map(String) : [], env}
  // Zed's older shape: {command: {path, args, env}}.
  const nested = entry.command as {path?: unknown; args?: unknown; env?: unknown} | undefined
  if (nested && typeof nested.path === 'string') return launchOf({command: nested.path, args: nested.args, env: nested.env})
  return undefined
}

/** The entries of `found` that start AgentExec; a line per file that exists but cannot be read as JSON with comments. */
async function readEntries(files: ClientFile[]): Promise<{entries: FoundEntry[]; unreadable: string[]}> {
  const entries: FoundEntry[] = []
  const unreadable: string[] = []
  for (const {client, file, key} of files) {
    let text: string
    try {
      text = await readFile(file, 'utf8')
    } catch {
      continue // no such file: the client is not set up there
    }
    let data: unknown
    try {
      // JSON with comments and trailing commas, as Zed's settings and opencode.jsonc are written.
      data = JSON.parse(stripJsonComments(text, {trailingCommas: true}))
    } catch (error) {
      unreadable.push(`${file} cannot be parsed (${(error as Error).message}), so ${client} cannot read it either`)
      continue
    }
    if (!data || typeof data !== 'object') continue
    const servers = (data as Record<string, unknown>)[key]
    if (!servers || typeof servers !== 'object') continue
    for (const [name, value] of Object.entries(servers as Record<string, unknown>)) {
      if (!value || typeof value !== 'object') continue
      const entry = value as Record<string, unknown>
      const launch = launchOf(entry)
      if (!launch || entry.enabled === false || agentExecLevelOf({command: launch.command, args: launch.args} as McpServerEntry) === undefined) continue
      entries.push({client, file, name, ...launch, ...(client === 'gemini' ? {trusted: entry.trust === true} : {})})
    }
  }
  return {entries, unreadable}
}

/**
 * Finds the entries that start AgentExec in the config files of Gemini CLI, OpenCode, Cursor,
 * Windsurf and Zed (`clientFiles`: user and current project; disabled and HTTP entries left out)
 * and starts each the way its client does (its command and args, from the current folder, with a
 * client's reduced environment plus the entry's own variables), listing its tools. Fails for an
 * entry that does not start, with its error and the command that shows it whole; warns for a file
 * that cannot be parsed and for a Gemini CLI entry without `trust: true` (headless Gemini CLI
 * offers the model none of its tools); ok when every entry starts, or there is none.
 */
export async function checkClientEntries(environment: DoctorEnvironment): Promise<CheckResult> {
  const {entries, unreadable} = await readEntries(clientFiles(environment))
  const label = (entry: FoundEntry) => `${entry.client} "${entry.name}" in ${entry.file}`
  const problems: Array<{entry: FoundEntry; line: string}> = []
  for (const entry of entries) {
    const outcome = await probeStdioServer({command: entry.command, args: entry.args, cwd: environment.cwd, env: {...clientEnvironment(environment.env), ...entry.env}})
    if (!outcome.started) problems.push({entry, line: `${label(entry)} does not start: ${outcome.reason}`})
  }
  if (problems.length > 0) {
    const [first, ...more] = problems
    const result = fail(
      CHECK,
      first!.line,
      `run ${[first!.entry.command, ...first!.entry.args].map(shellQuote).join(' ')} to see the whole error, or replace the entry with the block "ak exec config --client ${first!.entry.client}" prints`,
    )
    const notes = [...more.map((problem) => problem.line), ...unreadable]
    return notes.length > 0 ? {...result, notes} : result
  }
  const untrusted = entries.filter((entry) => entry.trusted === false)
  if (unreadable.length > 0 || untrusted.length > 0) {
    const lines = [...untrusted.map((entry) => `${label(entry)} has no "trust": true, so gemini -p offers the model none of its tools`), ...unreadable]
    const fix = untrusted.length > 0 ? `add "trust": true to the entry (the block "ak exec config --client gemini" prints has it)` : 'fix the file (its client cannot load it either), then run ak doctor again'
    const result = warn(CHECK, lines[0]!, fix)
    return lines.length > 1 ? {...result, notes: lines.slice(1)} : result
  }
  if (entries.length === 0) return ok(CHECK, 'no Gemini CLI, OpenCode, Cursor, Windsurf or Zed config here starts AgentExec')
  return ok(CHECK, `${entries.map(label).join(', ')}: ${entries.length === 1 ? 'starts' : 'each starts'} and lists its tools`)
}
