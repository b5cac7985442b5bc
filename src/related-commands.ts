/**
 * The "Related commands" paragraph that ends the help of each `ak codex-agent-runtime` command,
 * so each names the others (oclif prints it at the end of DESCRIPTION).
 */

/** The agent runtime's commands with a line on when to reach for each. */
const AGENT_RUNTIME_COMMANDS = {
  serve: 'list the agents found (--list-only) or serve them over stdio',
  inspect: "show one agent's origin, policy and the exact codex exec a call runs",
  register: "add this runtime to Codex's config.toml",
  unregister: "remove this runtime from Codex's config.toml",
} as const

/** The paragraph naming every agent runtime command but `self`, one per line. */
export function agentRuntimeRelatedCommands(self: keyof typeof AGENT_RUNTIME_COMMANDS): string {
  const others = Object.entries(AGENT_RUNTIME_COMMANDS).filter(([name]) => name !== self)
  return ['Related commands:', ...others.map(([name, what]) => `- ak codex-agent-runtime ${name}: ${what}`)].join('\n')
}
