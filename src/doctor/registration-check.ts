import {existsSync} from 'node:fs'
import path from 'node:path'

import {codexConfigPath} from '../codex/codex-config.js'
import {REGISTERED_TOOL_TIMEOUT_SEC} from '../codex/limits.js'
import {type McpServerEntry, mcpServersOf, runsAgentRuntime} from '../codex/mcp-servers.js'
import type {TomlFile} from '../codex/toml-file.js'
import {type CheckResult, fail, ok, warn} from './check.js'

/** The command that (re-)registers the runtime. */
const REGISTER = 'ak codex-agent-runtime register'

/**
 * Checks that `<codexHome>/config.toml` has an `[mcp_servers.*]` entry that starts the Codex
 * agent runtime, that its command and entry file exist (clients start it with absolute paths),
 * that it is enabled, and that it has `tool_timeout_sec = REGISTERED_TOOL_TIMEOUT_SEC` (Codex's
 * default of 120 s would cut long agent calls; notes/codex.md §4).
 */
export function checkRegistration(codexHome: string, config: TomlFile): CheckResult {
  const file = codexConfigPath(codexHome)
  if (config.status === 'invalid' || config.status === 'unreadable') {
    return warn('agent runtime', `cannot tell: ${file} cannot be read or parsed`, `fix ${file} first (see "codex config")`)
  }
  const entries = Object.entries(config.status === 'ok' ? mcpServersOf(config.data) : {}).filter(([, entry]) => runsAgentRuntime(entry))
  if (entries.length === 0) return warn('agent runtime', `not registered in ${file}`, REGISTER)
  const [name, entry] = entries[0] as [string, McpServerEntry]
  const table = `[mcp_servers.${name}]`
  const reregister = `${REGISTER} --name ${name}`
  const missing = launchFilesMissing(entry)
  if (missing) return fail('agent runtime', `${table} starts ${missing}, which does not exist`, reregister)
  if (entry.enabled === false) return warn('agent runtime', `${table} is disabled (enabled = false)`, `set enabled = true in ${table} of ${file}`)
  const timeout = entry.tool_timeout_sec
  if (timeout !== REGISTERED_TOOL_TIMEOUT_SEC) {
    const found = timeout === undefined ? 'no tool_timeout_sec (Codex default: 120 s)' : `tool_timeout_sec = ${String(timeout)}`
    return warn('agent runtime', `${table} has ${found}, not ${REGISTERED_TOOL_TIMEOUT_SEC}, so long agent calls time out`, reregister)
  }
  return ok('agent runtime', `registered as ${table} in ${file} with tool_timeout_sec = ${REGISTERED_TOOL_TIMEOUT_SEC}`)
}

/** The entry's absolute command or absolute first argument (ak's entry file) when it is missing. */
function launchFilesMissing(entry: McpServerEntry): string | undefined {
  const args = Array.isArray(entry.args) ? entry.args : []
  for (const file of [entry.command, args[0]]) {
    if (typeof file === 'string' && path.isAbsolute(file) && !existsSync(file)) return file
  }
  return undefined
}
