import {codexConfigPath} from '../codex/codex-config.js'
import {type McpServerEntry, mcpServersOf} from '../codex/mcp-servers.js'
import type {TomlFile} from '../codex/toml-file.js'
import {
  CODEX_REQUIRED_KEY,
  CODEX_STARTUP_TIMEOUT_KEY,
  CODEX_STARTUP_TIMEOUT_MS_KEY,
  CODEX_STARTUP_TIMEOUT_SEC,
} from '../launch/codex-server-start.js'
import {type CheckResult, ok, warn} from './check.js'
import {tokenEntries} from './http-token-check.js'
import {agentExecLevelOf} from './tool-approval-check.js'

/** The name of the AgentExec check in the report. */
const CHECK = 'codex start-up'

/** Codex's own start-up timeout for a server without one, in seconds (codex-rs `DEFAULT_STARTUP_TIMEOUT`). */
const CODEX_DEFAULT_STARTUP_TIMEOUT_SEC = 30

/**
 * What an `[mcp_servers.<name>]` entry of ak lacks for Codex never to run silently without it
 * (codex-server-start.ts): `required = true`, and a start-up timeout (`startup_timeout_sec` or
 * `startup_timeout_ms`, whatever its value: a user's own is kept). Undefined when it lacks nothing.
 */
export function startupLine(name: string, entry: McpServerEntry): string | undefined {
  const gaps: string[] = []
  const required = entry[CODEX_REQUIRED_KEY]
  if (required !== true) {
    const found = required === undefined ? `no ${CODEX_REQUIRED_KEY}` : `${CODEX_REQUIRED_KEY} = ${JSON.stringify(required)}`
    gaps.push(`${found}, so Codex runs without it, silently, when it starts late or fails`)
  }
  if (entry[CODEX_STARTUP_TIMEOUT_KEY] === undefined && entry[CODEX_STARTUP_TIMEOUT_MS_KEY] === undefined) {
    gaps.push(`no ${CODEX_STARTUP_TIMEOUT_KEY}, so Codex waits ${CODEX_DEFAULT_STARTUP_TIMEOUT_SEC} s for it to start, which a loaded machine can exceed`)
  }
  return gaps.length === 0 ? undefined : `[mcp_servers.${name}] has ${gaps.join('; and ')}`
}

/**
 * The fix for startupLine's problems: the keys to set, after `command` when one writes them
 * (register adds the missing keys and keeps a user's own values, so a user's `required = false`
 * needs the edit).
 */
export function startupFix(name: string, entry: McpServerEntry, file: string, command?: string): string {
  const keys = [
    ...(entry[CODEX_REQUIRED_KEY] === true ? [] : [`${CODEX_REQUIRED_KEY} = true`]),
    ...(entry[CODEX_STARTUP_TIMEOUT_KEY] === undefined && entry[CODEX_STARTUP_TIMEOUT_MS_KEY] === undefined ? [`${CODEX_STARTUP_TIMEOUT_KEY} = ${CODEX_STARTUP_TIMEOUT_SEC}`] : []),
  ]
  const set = `set ${keys.join(' and ')} in [mcp_servers.${name}] of ${file}`
  if (command === undefined || entry[CODEX_REQUIRED_KEY] === false) return set
  return `${command} (it adds ${keys.length === 1 ? 'the key' : 'both keys'}, keeping your other values), or ${set}`
}

/**
 * Checks every `[mcp_servers.*]` entry of `<codexHome>/config.toml` that starts AgentExec (a
 * command line, as agentExecLevelOf reads it) or reaches it over HTTP (a loopback `url` with a
 * `bearer_token_env_var`): without `required = true` and a start-up timeout, Codex leaves a server
 * that is not ready in time out of the session and still runs, without a word. A warning naming
 * each such entry and the keys to add (the block `ak exec config --client codex` prints has both);
 * ok when every entry has them (or there is none, or no readable config).
 */
export function checkExecStartup(codexHome: string, config: TomlFile): CheckResult {
  const file = codexConfigPath(codexHome)
  if (config.status !== 'ok') return ok(CHECK, `no readable ${file} to check`)
  const http = new Set(tokenEntries(config.data).map((entry) => entry.name))
  const entries = Object.entries(mcpServersOf(config.data)).filter(([name, entry]) => http.has(name) || agentExecLevelOf(entry) !== undefined)
  if (entries.length === 0) return ok(CHECK, `no [mcp_servers.*] entry in ${file} starts or reaches AgentExec`)
  const problems = entries.flatMap(([name, entry]) => {
    const line = startupLine(name, entry)
    return line === undefined ? [] : [{name, entry, line}]
  })
  if (problems.length === 0) {
    return ok(CHECK, `${entries.map(([name]) => `[mcp_servers.${name}]`).join(', ')} in ${file}: Codex waits for AgentExec and stops with an error when it does not start`)
  }
  const [first, ...more] = problems
  const fix = `${startupFix(first!.name, first!.entry, file)} (the block "ak exec config --client codex" prints has them)`
  return {...warn(CHECK, first!.line, fix), ...(more.length > 0 ? {notes: more.map((problem) => problem.line)} : {})}
}
