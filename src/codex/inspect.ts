import {DispatchFailedError, NotFoundError} from '../errors.js'
import {type AgentOrigin, describeOrigin} from './agent-file.js'
import {planAgentCall} from './agent-call.js'
import type {AgentPolicy} from './policy.js'
import type {CodexAgentRuntime} from './runtime.js'
import {toolNameOf} from './slug.js'

/** What `inspect` reports about one agent (DESIGN §6). */
export interface AgentReport {
  slug: string
  tool: string
  origin: AgentOrigin
  file: string
  status: 'ok' | 'unreadable' | 'invalid' | 'missing'
  /** Why the file is unreadable or invalid. */
  reason?: string
  /** The parsed policy; the empty policy for an unreadable file, absent for an invalid one. */
  policy?: AgentPolicy
  /** Where a call runs and the exact command it starts (absent when calls fail before starting). */
  cwd: string
  env?: Record<string, string>
  command?: string
  args?: string[]
}

/**
 * Reports where the agent `slug` came from, its parsed policy and the exact `codex exec` command a
 * call without `tools` would run, re-reading the agent file as a call does.
 * @throws NotFoundError when no agent has that slug (the message lists those that exist).
 */
export async function inspectAgent(runtime: CodexAgentRuntime, slug: string): Promise<AgentReport> {
  const agent = runtime.discovery.agents.find((candidate) => candidate.slug === slug)
  if (!agent) {
    const known = runtime.discovery.agents.map((candidate) => candidate.slug)
    throw new NotFoundError(
      `No agent "${slug}" was found. ${known.length > 0 ? `Agents found: ${known.join(', ')}.` : 'No agents were found at all.'} ` +
        `Run \`ak codex-agent-runtime serve --list-only\` to see where ak looked.`,
    )
  }
  const report: AgentReport = {slug, tool: toolNameOf(slug), origin: agent.origin, file: agent.file, status: 'ok', cwd: runtime.cwd}
  try {
    const plan = await planAgentCall(runtime, agent)
    Object.assign(report, {policy: plan.policy, env: plan.envOverrides, command: plan.command, args: plan.args})
  } catch (error) {
    if (!(error instanceof DispatchFailedError)) throw error
    report.reason = error.message
  }
  if (agent.state.status !== 'ok') {
    report.status = agent.state.status
    report.reason = agent.state.reason
  }
  return report
}

/** The report as text for people. */
export function renderAgentReport(report: AgentReport): string {
  const lines = [
    `agent: ${report.slug} (tool ${report.tool})`,
    `origin: ${describeOrigin(report.origin)}`,
    `file: ${report.file}`,
    `status: ${report.status}${report.reason ? ` (${report.reason})` : ''}`,
  ]
  if (report.policy) {
    const policy = report.policy
    lines.push('policy:')
    lines.push(`  sandbox_mode: ${policy.sandboxMode ?? '(Codex default)'}`)
    lines.push(`  model: ${policy.model ?? '(Codex default)'}`)
    lines.push(`  model_reasoning_effort: ${policy.reasoningEffort ?? '(Codex default)'}`)
    lines.push(`  developer_instructions: ${policy.developerInstructions === undefined ? '(none)' : `${policy.developerInstructions.length} characters`}`)
    const servers = Object.entries(policy.mcpServers)
    lines.push(`  mcp_servers: ${servers.length === 0 ? '(none of its own)' : servers.map(([name, entry]) => describeServer(name, entry)).join('; ')}`)
    if (policy.otherConfig.length > 0) lines.push(`  other config: ${policy.otherConfig.map((item) => item.key).join(', ')}`)
  }
  if (report.args && report.command && report.env) {
    lines.push(`runs in: ${report.cwd}`)
    const assignments = Object.entries(report.env).map(([name, value]) => `${name}=${shellQuote(value)}`)
    lines.push(`command: ${[...assignments, ...[report.command, ...report.args].map(shellQuote)].join(' ')}`)
    lines.push('(the prompt is written to its stdin)')
  }
  return `${lines.join('\n')}\n`
}

function describeServer(name: string, entry: Record<string, unknown>): string {
  const limits = ['enabled_tools', 'disabled_tools']
    .filter((key) => Array.isArray(entry[key]))
    .map((key) => `${key}: ${(entry[key] as string[]).join(', ') || '(none)'}`)
  return limits.length > 0 ? `${name} (${limits.join('; ')})` : name
}

/** A word quoted for a POSIX shell when it needs to be. */
export function shellQuote(word: string): string {
  return /^[A-Za-z0-9_@%+=:,./-]+$/.test(word) ? word : `'${word.replace(/'/g, `'\\''`)}'`
}
