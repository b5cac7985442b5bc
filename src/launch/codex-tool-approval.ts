/**
 * How Codex decides whether an MCP tool call may run, for the entries ak writes into (and
 * `ak doctor` reads from) Codex's `config.toml`.
 *
 * Codex 0.171 reads `default_tools_approval_mode` in an `[mcp_servers.<name>]` table (the mode of
 * every tool of that server) and `approval_mode` in `[mcp_servers.<name>.tools.<tool>]` (one tool,
 * winning over the server's mode). Each is one of CODEX_APPROVAL_MODES (`AppToolApproval` in
 * codex-rs/config/src/mcp_types.rs); `auto` is the default. Under `auto` a tool needs approval
 * unless its annotations mark it read-only, or mark it neither destructive nor open-world (a
 * missing hint counts as yes: `requires_mcp_tool_approval` in codex-rs/core/src/mcp_tool_call.rs);
 * `writes` asks for every tool not marked read-only, `prompt` for every tool. Every ak tool that
 * changes something (edit, exec_command, write_stdin, agent_*) is destructive or open-world, so it
 * needs approval under all three. `codex exec` runs with the approval policy `never`, so it cannot
 * ask and declines the call ("MCP tool call requires approval, but approval policy is never"), and
 * so does an interactive Codex whose `approval_policy` is `never`. `approve` runs the server's
 * tools without asking. (Checked against Codex 0.171: its config refuses other values, and its
 * binary holds that message.)
 */

/** The key of an `[mcp_servers.<name>]` table that sets the approval mode of all its tools. */
export const CODEX_APPROVAL_KEY = 'default_tools_approval_mode'

/** The key of an `[mcp_servers.<name>.tools.<tool>]` table that sets one tool's approval mode. */
export const CODEX_TOOL_APPROVAL_KEY = 'approval_mode'

/** The approval modes Codex 0.171 accepts (it refuses a config with any other value). */
export const CODEX_APPROVAL_MODES = ['auto', 'prompt', 'writes', 'approve'] as const
export type CodexApprovalMode = (typeof CODEX_APPROVAL_MODES)[number]

/** The mode under which Codex runs a tool without asking, as ak writes it. */
export const CODEX_APPROVAL_WITHOUT_ASKING: CodexApprovalMode = 'approve'

/** The mode to set instead to be asked before every call of a tool that changes something. */
export const CODEX_APPROVAL_ASKING: CodexApprovalMode = 'writes'

/** The comment ak writes on the line above the key: what it does, and how to be asked instead. */
export const CODEX_APPROVAL_COMMENT =
  `Codex runs these tools without asking (codex exec cannot ask, so it would decline them); ` +
  `set "${CODEX_APPROVAL_ASKING}" to have Codex ask before each change`

/** The two lines ak writes into an `[mcp_servers.<name>]` table: the comment, then the key. */
export const CODEX_APPROVAL_LINES = [`# ${CODEX_APPROVAL_COMMENT}`, `${CODEX_APPROVAL_KEY} = "${CODEX_APPROVAL_WITHOUT_ASKING}"`]

/**
 * The approval mode Codex applies to `tool` of the server `entry` (a parsed `[mcp_servers.<name>]`
 * table): the tool's own `tools.<tool>.approval_mode`, else the server's
 * `default_tools_approval_mode`, else `auto`. A value Codex would refuse counts as `auto`.
 */
export function codexApprovalModeOf(entry: Record<string, unknown>, tool: string): CodexApprovalMode {
  const tools = entry.tools
  const own = tools && typeof tools === 'object' ? (tools as Record<string, unknown>)[tool] : undefined
  const toolMode = own && typeof own === 'object' ? (own as Record<string, unknown>)[CODEX_TOOL_APPROVAL_KEY] : undefined
  for (const mode of [toolMode, entry[CODEX_APPROVAL_KEY]]) {
    if ((CODEX_APPROVAL_MODES as readonly unknown[]).includes(mode)) return mode as CodexApprovalMode
  }
  return 'auto'
}

/**
 * Which of `tools` (tools of the server `entry` that are not annotated read-only, so need approval
 * unless their mode is `approve`) `codex exec` would decline, in the order given.
 */
export function toolsCodexExecDeclines(entry: Record<string, unknown>, tools: readonly string[]): string[] {
  return tools.filter((tool) => codexApprovalModeOf(entry, tool) !== CODEX_APPROVAL_WITHOUT_ASKING)
}
