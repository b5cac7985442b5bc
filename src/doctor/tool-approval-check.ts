import path from 'node:path'

import {codexConfigPath} from '../codex/codex-config.js'
import {type McpServerEntry, mcpServersOf} from '../codex/mcp-servers.js'
import type {TomlFile} from '../codex/toml-file.js'
import {LEVELS, type Level, levelIncludes} from '../exec/level.js'
import {EXEC_TOOLS} from '../exec/tools/index.js'
import {CODEX_APPROVAL_KEY, CODEX_APPROVAL_WITHOUT_ASKING, toolsCodexExecDeclines} from '../launch/codex-tool-approval.js'
import {type CheckResult, ok, warn} from './check.js'

/** The name of the AgentExec check in the report. */
const CHECK = 'codex entries'

/** Words that name AgentExec on its own: the `agentexec` bin, its one-file build, its package. */
const AGENTEXEC_NAMES = new Set(['agentexec', 'agentexec.js'])

/** Words that name ak: its bin, the clone's entry file, the one-file CLI, its package. */
function namesAk(word: string): boolean {
  const base = path.basename(word)
  return base === 'ak' || base === 'ak.mjs' || word.endsWith('/bin/run.js') || word.startsWith('@agentorg/ak')
}

/**
 * The level of the AgentExec server an `[mcp_servers.<name>]` entry starts (`ak … exec serve`, the
 * `agentexec` bin or one-file build, `npx -y @agentorg/exec`), read from its `--level` argument
 * (`read` when absent, as the server does); undefined when the entry does not start AgentExec or
 * names a level the server would refuse.
 */
export function agentExecLevelOf(entry: McpServerEntry): Level | undefined {
  const words = [entry.command, ...(Array.isArray(entry.args) ? entry.args : [])].filter((word): word is string => typeof word === 'string')
  const runsAk = words.some(namesAk) && words.some((word, index) => word === 'exec' && words[index + 1] === 'serve')
  const runsAgentExec = words.some((word) => AGENTEXEC_NAMES.has(path.basename(word)) || word.startsWith('@agentorg/exec'))
  if (!runsAk && !runsAgentExec) return undefined
  const at = words.lastIndexOf('--level')
  const level = at >= 0 ? words[at + 1] : words.findLast((word) => word.startsWith('--level='))?.slice('--level='.length)
  if (level === undefined) return 'read'
  return (LEVELS as readonly string[]).includes(level) ? (level as Level) : undefined
}

/** The tools an AgentExec entry offers Codex at `level` that change something (not annotated read-only), after its enabled_tools/disabled_tools. */
function writeToolsOf(entry: McpServerEntry, level: Level): string[] {
  const enabled = Array.isArray(entry.enabled_tools) ? entry.enabled_tools : undefined
  const disabled = Array.isArray(entry.disabled_tools) ? entry.disabled_tools : []
  return EXEC_TOOLS.filter((tool) => levelIncludes(level, tool.level) && tool.annotations.readOnlyHint !== true)
    .map((tool) => tool.name)
    .filter((name) => (enabled === undefined || enabled.includes(name)) && !disabled.includes(name))
}

/**
 * What Codex does with calls of `tools` that need approval, given the config's `approval_policy`:
 * an interactive session asks unless the policy is `never`; `codex exec` always runs with `never`.
 */
function whoDeclines(tools: string[], config: Record<string, unknown>): string {
  const list = tools.length === 1 ? tools[0]! : `${tools.slice(0, -1).join(', ')} and ${tools.at(-1)!}`
  return config.approval_policy === 'never'
    ? `Codex and codex exec decline ${list} (approval_policy = "never")`
    : `codex exec declines ${list} (it cannot ask) and Codex asks before each call`
}

/**
 * A line about the tools of the entry `name` that `codex exec` would decline, or undefined when it
 * declines none of `tools` (see codex-tool-approval.ts).
 * @param config the parsed config.toml, for its `approval_policy`
 */
export function declinedToolsLine(name: string, entry: McpServerEntry, tools: readonly string[], config: Record<string, unknown>): string | undefined {
  const declined = toolsCodexExecDeclines(entry, tools)
  if (declined.length === 0) return undefined
  const mode = entry[CODEX_APPROVAL_KEY]
  const found = mode === undefined ? `no ${CODEX_APPROVAL_KEY}` : `${CODEX_APPROVAL_KEY} = ${JSON.stringify(mode)}`
  return `[mcp_servers.${name}] has ${found}, so ${whoDeclines(declined, config)}`
}

/**
 * The fix for declined tools: the key to set, after `command` when one writes it, and when the user
 * set a mode of their own, that keeping it means being asked (and codex exec declining).
 */
export function approvalFix(name: string, entry: McpServerEntry, file: string, command?: string): string {
  const set = `set ${CODEX_APPROVAL_KEY} = "${CODEX_APPROVAL_WITHOUT_ASKING}" in [mcp_servers.${name}] of ${file}`
  if (entry[CODEX_APPROVAL_KEY] !== undefined) return `${set}, or keep yours to be asked before each call`
  return command === undefined ? set : `${command} (it adds the key), or ${set}`
}

/**
 * Checks every `[mcp_servers.*]` entry of `<codexHome>/config.toml` that starts AgentExec at
 * `files` or `terminal`: its tools that change something need approval in Codex unless the entry
 * has `default_tools_approval_mode = "approve"` (or the tool's own `approval_mode`), so without it
 * `codex exec` declines edit, exec_command and write_stdin. A warning per problem, naming the
 * tools; ok when there is nothing to decline (or no such entry, or no config); a warning when the
 * config exists but cannot be read or parsed.
 */
export function checkExecApproval(codexHome: string, config: TomlFile): CheckResult {
  const file = codexConfigPath(codexHome)
  if (config.status === 'missing') return ok(CHECK, `no ${file} to read`)
  if (config.status !== 'ok') {
    return warn(CHECK, `cannot check the AgentExec entries of ${file}: ${config.reason}`, `fix ${file} (Codex cannot load it either), then run ak doctor again`)
  }
  const entries = Object.entries(mcpServersOf(config.data)).flatMap(([name, entry]) => {
    const level = agentExecLevelOf(entry)
    return level === undefined ? [] : [{name, entry, level}]
  })
  if (entries.length === 0) return ok(CHECK, `no [mcp_servers.*] entry in ${file} starts AgentExec`)
  const problems = entries.flatMap(({name, entry, level}) => {
    const line = declinedToolsLine(name, entry, writeToolsOf(entry, level), config.data)
    return line === undefined ? [] : [{name, entry, line}]
  })
  if (problems.length === 0) {
    return ok(CHECK, `${entries.map(({name, level}) => `[mcp_servers.${name}] (${level})`).join(', ')} in ${file}: Codex runs their tools`)
  }
  const [first, ...more] = problems
  return {
    ...warn(CHECK, first!.line, approvalFix(first!.name, first!.entry, file)),
    ...(more.length > 0 ? {notes: more.map((problem) => problem.line)} : {}),
  }
}
