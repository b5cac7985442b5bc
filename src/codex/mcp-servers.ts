/**
 * `[mcp_servers.<name>]` entries of a Codex config or agent file (format: notes/codex.md §3).
 */

/** One MCP server entry as written in TOML (command, args, enabled_tools, …). */
export type McpServerEntry = Record<string, unknown>

/** The `mcp_servers` table of a parsed config or agent file; entries that are not tables are left out. */
export function mcpServersOf(config: Record<string, unknown>): Record<string, McpServerEntry> {
  const table = config.mcp_servers
  if (!table || typeof table !== 'object' || Array.isArray(table)) return {}
  const servers: Record<string, McpServerEntry> = {}
  for (const [name, entry] of Object.entries(table as Record<string, unknown>)) {
    if (entry && typeof entry === 'object' && !Array.isArray(entry)) servers[name] = entry as McpServerEntry
  }
  return servers
}

/** The subcommand whose presence marks an entry as this runtime. */
export const RUNTIME_SUBCOMMAND = 'codex-agent-runtime'

/**
 * True when the entry starts this runtime: its command or one of its arguments is the
 * `codex-agent-runtime` subcommand (or a path ending in it). A dispatched `codex exec` must not
 * start it again, or agents could spawn agents without bound (DESIGN §5.4).
 */
export function runsAgentRuntime(entry: McpServerEntry): boolean {
  const words = [entry.command, ...(Array.isArray(entry.args) ? entry.args : [])]
  return words.some((word) => typeof word === 'string' && (word === RUNTIME_SUBCOMMAND || word.endsWith(`/${RUNTIME_SUBCOMMAND}`)))
}

/** True when `name` can be written as one segment of a Codex `-c` key path (Codex splits keys on dots). */
export function isOverridableKey(name: string): boolean {
  return /^[A-Za-z0-9_-]+$/.test(name)
}
