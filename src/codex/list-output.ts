import type {AgentOrigin} from './agent-file.js'
import type {Discovery} from './discovery.js'

/**
 * The `--list-only` text (DESIGN §5.3): the Codex home, the plugin root, the project agents line
 * when a project folder was found (served, or skipped with its reason), the number of agents,
 * then one line per agent: its slug and, where known, its origin (the owning kit, or
 * `(project)`), plus `[invalid]` or `[unreadable]` for a file whose calls fail or whose policy is empty.
 */
export function renderAgentList(discovery: Discovery): string {
  const lines = [`codex home: ${discovery.codexHome}`, `plugin root: ${discovery.pluginRoot}`]
  if (discovery.project.status === 'served') lines.push(`project agents: ${discovery.project.dir}`)
  if (discovery.project.status === 'skipped') lines.push(`project agents: skipped (${discovery.project.reason})`)
  lines.push(`agents: ${discovery.agents.length}`)
  for (const agent of discovery.agents) {
    const parts = [agent.slug]
    const origin = originLabel(agent.origin)
    if (origin) parts.push(origin)
    if (agent.state.status !== 'ok') parts.push(`[${agent.state.status}]`)
    lines.push(parts.join('  '))
  }
  return `${lines.join('\n')}\n`
}

/** The origin shown in lists: the kit's name, `(project)`, or nothing for a user agent. */
export function originLabel(origin: AgentOrigin): string | undefined {
  if (origin.kind === 'kit') return origin.kit
  if (origin.kind === 'project') return '(project)'
  return undefined
}
