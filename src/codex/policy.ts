import {type McpServerEntry, isOverridableKey, mcpServersOf} from './mcp-servers.js'
import {tomlValue} from './toml-value.js'

/** Codex's sandbox modes, the values `codex exec -s` accepts (notes/codex.md §4). */
export const SANDBOX_MODES = ['read-only', 'workspace-write', 'danger-full-access'] as const
export type SandboxMode = (typeof SANDBOX_MODES)[number]

/** One Codex config value to pass as `-c <key>=<value>`, with `key` a dotted path. */
export interface ConfigOverride {
  key: string
  value: unknown
}

/**
 * What an agent file says about how its agent may run (DESIGN §5.4): sandbox, model, reasoning
 * effort, instructions and MCP servers, plus every other Codex config key it sets. An empty
 * policy (all undefined, no servers, no other keys) leaves everything to Codex's own config,
 * which is permissive.
 */
export interface AgentPolicy {
  sandboxMode?: SandboxMode
  model?: string
  reasoningEffort?: string
  developerInstructions?: string
  /** The agent's own `[mcp_servers.<name>]` entries, as written. */
  mcpServers: Record<string, McpServerEntry>
  /** The file's other Codex config keys, flattened to dotted leaf keys (in file order). */
  otherConfig: ConfigOverride[]
}

/** The policy of an agent file that could not be read: nothing is restricted. */
export const EMPTY_POLICY: AgentPolicy = Object.freeze({mcpServers: {}, otherConfig: []}) as AgentPolicy

/**
 * A policy that cannot be enforced exactly as written. The message is one sentence naming the key
 * and what is wrong; whoever reports it adds what to do.
 */
export class PolicyError extends Error {}

// Keys of the agent-file format that describe the agent rather than configure Codex
// (notes/codex.md §2), and the keys the policy maps to flags of their own.
const DESCRIPTIVE_KEYS = new Set(['name', 'description', 'nickname_candidates'])
const POLICY_KEYS = new Set(['developer_instructions', 'model', 'model_reasoning_effort', 'sandbox_mode', 'mcp_servers'])

/**
 * Reads the policy of a parsed agent file.
 * @throws PolicyError when a policy key has the wrong type or value, or a key cannot be passed to
 *   `codex exec` as a `-c` override (a segment with a dot, space or quote): enforcing part of a
 *   policy would widen what the agent may do.
 */
export function agentPolicyOf(config: Record<string, unknown>): AgentPolicy {
  const policy: AgentPolicy = {mcpServers: {}, otherConfig: []}
  const sandbox = optionalString(config, 'sandbox_mode')
  if (sandbox !== undefined) {
    if (!(SANDBOX_MODES as readonly string[]).includes(sandbox)) {
      throw new PolicyError(`sandbox_mode = "${sandbox}" is not one of ${SANDBOX_MODES.join(', ')}.`)
    }
    policy.sandboxMode = sandbox as SandboxMode
  }
  const model = optionalString(config, 'model')
  if (model !== undefined) policy.model = argumentValue('model', model)
  const effort = optionalString(config, 'model_reasoning_effort')
  if (effort !== undefined) policy.reasoningEffort = effort
  const instructions = optionalString(config, 'developer_instructions')
  if (instructions !== undefined) policy.developerInstructions = instructions

  if (config.mcp_servers !== undefined) {
    if (!isTable(config.mcp_servers)) throw new PolicyError('mcp_servers must be a table of [mcp_servers.<name>] entries.')
    for (const [name, entry] of Object.entries(config.mcp_servers)) {
      if (!isTable(entry)) throw new PolicyError(`mcp_servers.${name} must be a table.`)
      if (!isOverridableKey(name)) {
        throw new PolicyError(`The MCP server name "${name}" cannot be passed to codex exec (use letters, digits, "_" and "-").`)
      }
      for (const list of ['enabled_tools', 'disabled_tools']) {
        const tools = entry[list]
        if (tools !== undefined && !(Array.isArray(tools) && tools.every((tool) => typeof tool === 'string'))) {
          throw new PolicyError(`mcp_servers.${name}.${list} must be a list of tool names.`)
        }
      }
    }
    policy.mcpServers = mcpServersOf(config)
  }

  for (const [key, value] of Object.entries(config)) {
    if (DESCRIPTIVE_KEYS.has(key) || POLICY_KEYS.has(key)) continue
    policy.otherConfig.push(...flatten([key], value))
  }
  return policy
}

/**
 * A value as `-c` overrides: tables become one override per leaf (so a key merges into Codex's
 * config the way a config layer does instead of replacing a whole table); arrays and scalars are
 * leaves.
 * @throws PolicyError for a key segment Codex's dotted `-c` paths cannot express.
 */
export function flatten(keyPath: string[], value: unknown): ConfigOverride[] {
  const last = keyPath[keyPath.length - 1] ?? ''
  if (!isOverridableKey(last)) {
    throw new PolicyError(`The key "${keyPath.join('.')}" cannot be passed to codex exec as a -c override (use letters, digits, "_" and "-").`)
  }
  if (isTable(value) && Object.keys(value).length > 0) {
    return Object.entries(value).flatMap(([key, item]) => flatten([...keyPath, key], item))
  }
  return [{key: keyPath.join('.'), value}]
}

/** True for a TOML table (a plain object, not an array or date). */
export function isTable(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value) && !(value instanceof Date)
}

/**
 * A value ak passes to `codex exec` as an argument of its own (`-m <model>`), exactly as written.
 * @throws PolicyError when it starts with "-" (Codex would read it as a flag, not as the value) or
 *   holds a NUL character (no command-line argument can carry one).
 */
function argumentValue(key: string, value: string): string {
  if (value.startsWith('-')) {
    throw new PolicyError(`${key} = ${tomlValue(value)} starts with "-", so codex exec would read it as a flag instead of the ${key}.`)
  }
  if (value.includes('\0')) throw new PolicyError(`${key} = ${tomlValue(value)} holds a NUL character, which no command-line argument can carry.`)
  return value
}

function optionalString(config: Record<string, unknown>, key: string): string | undefined {
  const value = config[key]
  if (value === undefined) return undefined
  if (typeof value !== 'string') throw new PolicyError(`${key} must be a string, not ${Array.isArray(value) ? 'a list' : typeof value}.`)
  return value
}
