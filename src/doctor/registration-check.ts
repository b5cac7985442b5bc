import {existsSync} from 'node:fs'
import path from 'node:path'

import {codexConfigPath} from '../codex/codex-config.js'
import {shellQuote} from '../codex/inspect.js'
import {REGISTERED_TOOL_TIMEOUT_SEC} from '../codex/limits.js'
import {type McpServerEntry, mcpServersOf, runsAgentRuntime} from '../codex/mcp-servers.js'
import type {TomlFile} from '../codex/toml-file.js'
import {resolveRoots} from '../codex/roots.js'
import {type CheckResult, type DoctorEnvironment, akFix, fail, ok, warn} from './check.js'
import {isFolder} from './codex-home-check.js'
import {clientEnvironment, probeStdioServer} from './stdio-probe.js'
import {approvalFix, declinedToolsLine} from './tool-approval-check.js'
import {startupFix, startupLine} from './codex-startup-check.js'

/**
 * Checks that `<codexHome>/config.toml` has an `[mcp_servers.*]` entry that starts the Codex
 * agent runtime, that its command and entry file exist (clients start it with absolute paths),
 * that it is enabled, and that it has `tool_timeout_sec` of at least REGISTERED_TOOL_TIMEOUT_SEC (Codex's
 * default of 120 s would cut long agent calls; notes/codex.md §4). Then starts the entry the way
 * Codex does (its command and args, from the current folder, with Codex's reduced environment plus
 * the entry's `env_vars` and `env`) and lists its tools, and warns when `codex exec` would decline
 * them (agent tools need approval unless the entry has `default_tools_approval_mode = "approve"`),
 * or would run without it, silently, when it starts late (no `required = true` or no start-up
 * timeout, codex-startup-check.ts).
 */
export async function checkRegistration(codexHome: string, config: TomlFile, environment: DoctorEnvironment): Promise<CheckResult> {
  const file = codexConfigPath(codexHome)
  const roots = resolveRoots({codexHome: environment.codexHome, pluginRoot: environment.pluginRoot}, {env: environment.env, cwd: environment.cwd, homeDir: environment.homeDir})
  const register = (...extra: string[]) => akFix(['codex-agent-runtime', 'register', ...extra], roots, environment)
  if (config.status !== 'ok' && config.status !== 'missing') {
    return warn('agent runtime', `cannot tell: ${file} cannot be read or parsed`, `fix ${file} first (see "codex config")`)
  }
  const entries = Object.entries(config.status === 'ok' ? mcpServersOf(config.data) : {}).filter(([, entry]) => runsAgentRuntime(entry))
  if (entries.length === 0) {
    if (!(await isFolder(codexHome))) {
      // register needs the home; the "codex home" check gives the fix that creates it.
      return {check: 'agent runtime', status: 'warn', detail: `not registered: the Codex home ${codexHome} does not exist (see "codex home")`}
    }
    return warn('agent runtime', `not registered in ${file}`, register())
  }
  const [name, entry] = entries[0] as [string, McpServerEntry]
  const table = `[mcp_servers.${name}]`
  const reregister = register('--name', name)
  const missing = launchFilesMissing(entry)
  if (missing) return fail('agent runtime', `${table} starts ${missing}, which does not exist`, reregister)
  if (entry.enabled === false) return warn('agent runtime', `${table} is disabled (enabled = false)`, `set enabled = true in ${table} of ${file}`)
  const timeout = entry.tool_timeout_sec
  if (!(typeof timeout === 'number' && timeout >= REGISTERED_TOOL_TIMEOUT_SEC)) {
    const found = timeout === undefined ? 'no tool_timeout_sec (Codex default: 120 s)' : `tool_timeout_sec = ${String(timeout)}`
    return warn('agent runtime', `${table} has ${found}, less than ${REGISTERED_TOOL_TIMEOUT_SEC}, so long agent calls time out`, reregister)
  }
  const command = String(entry.command)
  const args = Array.isArray(entry.args) ? entry.args.map(String) : []
  const outcome = await probeStdioServer({command, args, cwd: environment.cwd, env: entryEnvironment(entry, environment.env)})
  if (!outcome.started) {
    return fail('agent runtime', `${table} does not start: ${outcome.reason}`, `run ${[command, ...args].map(shellQuote).join(' ')} to see the whole error`)
  }
  const declined = declinedToolsLine(name, entry, outcome.tools, config.status === 'ok' ? config.data : {})
  const startup = startupLine(name, entry)
  if (declined) return {...warn('agent runtime', declined, approvalFix(name, entry, file, reregister)), ...(startup ? {notes: [startup]} : {})}
  if (startup) return warn('agent runtime', startup, startupFix(name, entry, file, reregister))
  const count = outcome.tools.length
  return ok(
    'agent runtime',
    `registered as ${table} in ${file} with tool_timeout_sec = ${String(timeout)}; ` +
      `starts and lists ${count} agent ${count === 1 ? 'tool' : 'tools'}`,
  )
}

/** The environment Codex gives the entry: its default variables, the entry's `env_vars` (names), then its `env` table. */
function entryEnvironment(entry: McpServerEntry, env: NodeJS.ProcessEnv): Record<string, string> {
  const forwarded = (Array.isArray(entry.env_vars) ? entry.env_vars : [])
    .map((item) => (typeof item === 'string' ? item : (item as {name?: unknown})?.name))
    .filter((name): name is string => typeof name === 'string')
  const literal = entry.env && typeof entry.env === 'object' && !Array.isArray(entry.env) ? (entry.env as Record<string, unknown>) : {}
  return {
    ...clientEnvironment(env, forwarded),
    ...Object.fromEntries(Object.entries(literal).map(([name, value]) => [name, String(value)])),
  }
}

/** The entry's absolute command or absolute first argument (ak's entry file) when it is missing. */
function launchFilesMissing(entry: McpServerEntry): string | undefined {
  const args = Array.isArray(entry.args) ? entry.args : []
  for (const file of [entry.command, args[0]]) {
    if (typeof file === 'string' && path.isAbsolute(file) && !existsSync(file)) return file
  }
  return undefined
}
