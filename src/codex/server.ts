import {setTimeout as delay} from 'node:timers/promises'

import {type CallToolResult, McpServer, type RegisteredTool} from '@modelcontextprotocol/server'
import {z} from 'zod'

import {type ConnectionClient, type TextFirstSwitch, textFirstSwitch} from '../mcp/text-first-clients.js'
import {type ServedTasks, serveTasks} from '../mcp/tasks/serve-tasks.js'
import {TaskStore} from '../mcp/tasks/task-store.js'
import {advertisedInputSchema, parseToolInput} from '../mcp/tool-input.js'
import {toolErrorResult} from '../mcp/tool-error.js'
import {AK_VERSION} from '../version.js'
import {runAgentCall} from './agent-call.js'
import type {DiscoveredAgent} from './discovery.js'
import {AGENT_CALL_YIELD_MS, DEFAULT_MAX_DISPATCHES, PROGRESS_MESSAGE_MAX_CHARS, PROGRESS_MIN_INTERVAL_MS} from './limits.js'
import type {CodexAgentRuntime} from './runtime.js'
import {toolNameOf} from './slug.js'

/** The name the runtime reports in MCP's `serverInfo`. */
export const CODEX_AGENT_SERVER_NAME = 'ak-codex-agent-runtime'

/** The input schema of every `agent_<slug>` tool. */
export const agentToolInput = z.object({
  prompt: z
    .string({error: 'prompt must be a string: what the agent should do.'})
    .min(1, 'prompt is empty. Say what the agent should do.')
    .describe('What the agent should do. Sent to the agent as its prompt.'),
  tools: z
    .array(z.string())
    .optional()
    .describe(
      'Optional: narrow the MCP tools the agent may use, as "<server>" (all of its allowed tools) or "<server>.<tool>", ' +
        "after the agent's MCP servers. Servers not named are disabled. Names the agent's policy does not allow are refused.",
    ),
})

/** The `outputSchema` of every `agent_<slug>` tool: the agent's final message as a field. */
export const agentToolOutput = z.object({
  final_message: z.string().describe("The agent's final message (what codex exec printed); empty when it gave none."),
  output_dropped_bytes: z.number().int().describe("Bytes of the agent's output dropped past the capture limit; 0 when whole."),
})

/** The description of an agent's tool: the file's `description`, then what a call does. */
export function agentToolDescription(agent: DiscoveredAgent, cwd: string, maxDispatches = DEFAULT_MAX_DISPATCHES): string {
  const summary =
    agent.state.status === 'invalid' || agent.state.status === 'missing'
      ? `Codex agent "${agent.slug}". Its agent file is invalid, so every call fails until it is fixed.`
      : (agent.state.status === 'ok' && agent.state.description?.trim()) || `Codex agent "${agent.slug}".`
  return (
    `${summary}\n\nRuns the agent as a fresh \`codex exec\` in ${cwd} and answers with its final message ` +
    '(also as the structured field final_message). ' +
    `A failed run is a tool error carrying Codex's stderr. At most ${maxDispatches} agents run at once; other calls wait.`
  )
}

/**
 * Builds one MCP server instance with one `agent_<slug>` tool per discovered agent. Every
 * transport serves instances made here.
 */
export function createCodexAgentServer(runtime: CodexAgentRuntime, client?: ConnectionClient): McpServer {
  const server = new McpServer(
    {name: CODEX_AGENT_SERVER_NAME, version: AK_VERSION},
    {
      capabilities: {tools: {}},
      instructions: `Codex agents as tools. Each agent_<slug> tool runs that agent as a fresh codex exec in ${runtime.cwd}.`,
    },
  )
  // Every agent tool's text is its answer; the structured form restates it for programs.
  const textFirst = textFirstSwitch(server, client)
  let tasks: ServedTasks | undefined
  for (const agent of runtime.discovery.agents) {
    textFirst.withholdOutputSchema(registerAgentTool(server, runtime, agent, textFirst, () => tasks))
  }
  if (runtime.discovery.agents.length > 0) tasks = serveTasks(server, agentTaskStore(runtime), AGENT_TASK_OWNER)
  return server
}

/** The runtime is served over stdio alone: one connection, so one owner of its tasks. */
const AGENT_TASK_OWNER = 'stdio'
const agentTaskStores = new WeakMap<CodexAgentRuntime, TaskStore>()

/** The tasks of `runtime`'s agent calls (DESIGN §4.11), shared by its server instances. */
function agentTaskStore(runtime: CodexAgentRuntime): TaskStore {
  let store = agentTaskStores.get(runtime)
  if (!store) agentTaskStores.set(runtime, (store = new TaskStore()))
  return store
}

function registerAgentTool(
  server: McpServer,
  runtime: CodexAgentRuntime,
  agent: DiscoveredAgent,
  textFirst: TextFirstSwitch,
  tasks: () => ServedTasks | undefined,
): RegisteredTool {
  const name = toolNameOf(agent.slug)
  return server.registerTool(
    name,
    {
      title: `Codex agent ${agent.slug}`,
      description: agentToolDescription(agent, runtime.cwd, runtime.limiter.max),
      // Checked in the handler, so that an argument the tool does not define is refused with ak's message.
      inputSchema: advertisedInputSchema(agentToolInput),
      outputSchema: agentToolOutput,
      annotations: {readOnlyHint: false, destructiveHint: agent.state.status !== 'ok' || agent.state.policy.sandboxMode !== 'read-only', openWorldHint: true},
    },
    async (input: unknown, ctx) => {
      const started = performance.now()
      const progressToken = ctx.mcpReq._meta?.progressToken
      let progress = 0
      let lastSent = -Infinity
      let lastMessage: string | undefined
      let isTask = false
      const onProgress = (message: string) => {
        lastMessage = `${name}: ${message}`
        if (progressToken === undefined || isTask) return
        const now = performance.now()
        if (progress > 0 && now - lastSent < PROGRESS_MIN_INTERVAL_MS) return
        lastSent = now
        progress += 1
        void ctx.mcpReq
          .notify({
            method: 'notifications/progress',
            params: {progressToken, progress, message: message.slice(0, PROGRESS_MESSAGE_MAX_CHARS)},
          })
          .catch(() => undefined)
      }
      // The client's cancel of the call stops the run until the call becomes a task; then only tasks/cancel does.
      const stop = new AbortController()
      ctx.mcpReq.signal.addEventListener('abort', () => !isTask && stop.abort(), {once: true})
      if (ctx.mcpReq.signal.aborted) stop.abort()
      const withStructured = !textFirst.isTextFirst(ctx.mcpReq.envelope)
      const running: Promise<CallToolResult> = (async () => {
        try {
          const {input: args} = parseToolInput({name, inputSchema: agentToolInput}, input)
          const answer = await runAgentCall(runtime, agent, args, {signal: stop.signal, onProgress})
          runtime.log.info(`${name} ${elapsed(started)} ok${isTask ? ' (task)' : ''}`)
          return {content: [{type: 'text', text: answer.text}], ...(withStructured ? {structuredContent: answer.structured} : {})}
        } catch (error) {
          runtime.log.info(`${name} ${elapsed(started)} error${isTask ? ' (task)' : ''}: ${(error instanceof Error ? error.message : String(error)).split('\n', 1)[0]}`)
          return toolErrorResult(error)
        }
      })()
      const offer = tasks()?.offerFor(ctx)
      if (offer) {
        const waitOver = new AbortController()
        const isDone = await Promise.race([running.then(() => true), delay(AGENT_CALL_YIELD_MS, false, {signal: waitOver.signal}).catch(() => true)])
        waitOver.abort()
        if (!isDone && !stop.signal.aborted) {
          isTask = offer.start({
            outcome: running as Promise<Record<string, unknown>>,
            cancel: async () => {
              stop.abort()
              await running
            },
            statusMessage: () => lastMessage ?? `${name}: codex exec running`,
          })
          if (isTask) {
            runtime.log.info(`${name} ${elapsed(started)} running as a task`)
            // Replaced by the task's CreateTaskResult.
            return {content: [{type: 'text', text: ''}], structuredContent: {final_message: '', output_dropped_bytes: 0}}
          }
        }
      }
      return await running
    },
  )
}

function elapsed(started: number): string {
  return `${Math.round(performance.now() - started)}ms`
}
