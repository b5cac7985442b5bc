import {BadInputError} from '../errors.js'
import {type McpServerEntry, isOverridableKey, runsAgentRuntime} from './mcp-servers.js'
import {type AgentPolicy, type ConfigOverride, flatten} from './policy.js'
import {tomlValue} from './toml-value.js'

/** What besides the policy decides a dispatch's argument list. */
export interface ArgvContext {
  /**
   * The environment variable marking the run's depth (see agent-depth.ts), passed to every stdio
   * MCP server of the run through `-c mcp_servers.<name>.env.<name>=<value>`: Codex starts MCP
   * servers with a reduced environment, so the run's own variable would not reach them.
   */
  depthMarker?: {name: string; value: string}
  /** The server's working directory, where the agent runs (`--cd`). */
  cwd: string
  /**
   * Whether `cwd` is inside a git repository. Outside one, `codex exec` refuses to run unless
   * given `--skip-git-repo-check` (notes/codex.md §4); ak passes it there, since the operator
   * chose the folder by starting the server in it.
   */
  isInsideGitRepo: boolean
  /**
   * The `mcp_servers` of every config the dispatched Codex loads (system, Codex home, trusted
   * project layers), merged: see codexConfigLayers.
   */
  configServers: Record<string, McpServerEntry>
}

/**
 * The arguments of `codex exec` for one call (DESIGN §5.4), the prompt being read from stdin (`-`):
 * `exec --cd <cwd> --color never [--skip-git-repo-check] [-s <sandbox_mode>] [-m <model>]`, then
 * `-c` overrides for the reasoning effort, the developer instructions, the file's other config
 * keys and its MCP servers, `-c mcp_servers.<name>.enabled=false` for every server entry that
 * runs this runtime (no unbounded recursion), and the overrides that narrow MCP tools to `tools`.
 * @param tools the call's optional `tools` list (see narrowTools)
 * @throws BadInputError when `tools` names something the policy does not allow or that cannot be enforced
 */
export function codexExecArgs(policy: AgentPolicy, context: ArgvContext, tools?: string[]): string[] {
  const args = ['exec', '--cd', context.cwd, '--color', 'never']
  if (!context.isInsideGitRepo) args.push('--skip-git-repo-check')
  if (policy.sandboxMode) args.push('-s', policy.sandboxMode)
  if (policy.model !== undefined) args.push('-m', policy.model)
  const overrides: ConfigOverride[] = []
  if (policy.reasoningEffort !== undefined) overrides.push({key: 'model_reasoning_effort', value: policy.reasoningEffort})
  if (policy.developerInstructions !== undefined) overrides.push({key: 'developer_instructions', value: policy.developerInstructions})
  overrides.push(...policy.otherConfig)
  for (const [name, entry] of Object.entries(policy.mcpServers)) overrides.push(...flatten(['mcp_servers', name], entry))

  const servers = effectiveServers(policy, context.configServers)
  for (const [name, entry] of Object.entries(servers)) {
    if (runsAgentRuntime(entry)) overrides.push({key: `mcp_servers.${name}.enabled`, value: false})
  }
  if (context.depthMarker) {
    const {name: variable, value} = context.depthMarker
    for (const [name, entry] of Object.entries(servers)) {
      if (typeof entry.command === 'string' && isOverridableKey(name)) overrides.push({key: `mcp_servers.${name}.env.${variable}`, value})
    }
  }
  if (tools) overrides.push(...narrowTools(servers, tools))

  for (const {key, value} of overrides) args.push('-c', `${key}=${tomlValue(value)}`)
  args.push('-')
  return args
}

/**
 * The MCP servers a dispatched Codex sees: the loaded configs' entries with the agent file's merged
 * over them key by key (the agent file is applied as a layer above them).
 */
export function effectiveServers(policy: AgentPolicy, configServers: Record<string, McpServerEntry>): Record<string, McpServerEntry> {
  const servers: Record<string, McpServerEntry> = Object.create(null) as Record<string, McpServerEntry>
  for (const [name, entry] of Object.entries(configServers)) servers[name] = {...entry}
  for (const [name, entry] of Object.entries(policy.mcpServers)) servers[name] = {...servers[name], ...entry}
  return servers
}

/**
 * The overrides that limit the agent's MCP tools to `requested`: names `<server>` (all of that
 * server's allowed tools) or `<server>.<tool>`. Every other server is disabled
 * (`mcp_servers.<name>.enabled=false`); a server named with tools gets exactly those
 * (`mcp_servers.<name>.enabled_tools=[…]`).
 * @throws BadInputError listing every name that is unknown, disabled, outside the server's
 *   `enabled_tools`, inside its `disabled_tools`, or not expressible as a `-c` override.
 */
export function narrowTools(servers: Record<string, McpServerEntry>, requested: string[]): ConfigOverride[] {
  const usable = Object.entries(servers).filter(([, entry]) => !runsAgentRuntime(entry) && entry.enabled !== false)
  const usableNames = new Set(usable.map(([name]) => name))
  const whole = new Set<string>()
  const picked = new Map<string, string[]>()
  const problems: string[] = []
  for (const name of requested) {
    const dot = name.indexOf('.')
    const server = dot === -1 ? name : name.slice(0, dot)
    const tool = dot === -1 ? undefined : name.slice(dot + 1)
    const entry = Object.hasOwn(servers, server) ? servers[server] : undefined
    if (!entry || !isOverridableKey(server)) {
      problems.push(`"${name}": ${entry ? 'this server name cannot be enforced through codex exec overrides' : `no MCP server "${server}" is configured for this agent`}`)
      continue
    }
    if (!usableNames.has(server)) {
      problems.push(`"${name}": the MCP server "${server}" is disabled for this agent`)
      continue
    }
    if (tool === undefined) {
      whole.add(server)
      continue
    }
    if (tool === '') {
      problems.push(`"${name}": the tool name after "${server}." is empty`)
      continue
    }
    const enabled = entry.enabled_tools
    if (Array.isArray(enabled) && !enabled.includes(tool)) {
      problems.push(`"${name}": the agent's policy allows only ${enabled.map((t) => `${server}.${t}`).join(', ') || 'no tools'} of "${server}"`)
      continue
    }
    const disabled = entry.disabled_tools
    if (Array.isArray(disabled) && disabled.includes(tool)) {
      problems.push(`"${name}": the agent's policy disables this tool`)
      continue
    }
    picked.set(server, [...(picked.get(server) ?? []), tool])
  }
  if (problems.length > 0) {
    const allowed = [...usableNames].sort()
    throw new BadInputError(
      `The tools argument cannot be honoured: ${problems.join('; ')}. ` +
        (allowed.length > 0
          ? `Name servers as <server> or <server>.<tool> among: ${allowed.join(', ')}; or leave tools out.`
          : `This agent has no MCP servers to choose from; leave tools out.`),
    )
  }
  const overrides: ConfigOverride[] = []
  for (const [name] of usable) {
    if (whole.has(name)) continue
    const tools = picked.get(name)
    if (tools) overrides.push({key: `mcp_servers.${name}.enabled_tools`, value: [...new Set(tools)]})
    else overrides.push({key: `mcp_servers.${name}.enabled`, value: false})
  }
  return overrides
}
