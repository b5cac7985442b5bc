import {BadInputError, DispatchFailedError} from '../errors.js'
import {AGENT_DEPTH_ENV, isTooDeep} from './agent-depth.js'
import {type AgentDefinition, agentFileOptions, asSentenceEnd, readAgentFile} from './agent-file.js'
import {codexExecArgs} from './codex-argv.js'
import {codexConfigLayers, mergeLayers} from './codex-layers.js'
import {type DiscoveredAgent, repositoryRootOf} from './discovery.js'
import {type DispatchOutcome, runDispatch} from './dispatch.js'
import {MAX_AGENT_DEPTH} from './limits.js'
import {mcpServersOf} from './mcp-servers.js'
import type {AgentPolicy} from './policy.js'
import type {CodexAgentRuntime} from './runtime.js'
import {toolNameOf} from './slug.js'
import {CHILD_ENV_REMOVED} from '../token-env.js'

/** The arguments of an `agent_<slug>` tool. */
export interface AgentCallInput {
  prompt: string
  tools?: string[] | undefined
}

/** A planned dispatch: the exact `codex exec` command line and where it runs. */
export interface DispatchPlan {
  command: string
  args: string[]
  cwd: string
  /** Environment entries set on top of the server's own: CODEX_HOME and the run's depth marker (AGENT_DEPTH_ENV). */
  envOverrides: Record<string, string>
  policy: AgentPolicy
}

/**
 * The policy a call runs with (DESIGN §5.2: restrictions never silently disappear): the agent
 * file as read now; when it cannot be read now, the policy it was discovered with (the empty one
 * only when it could not be read then either).
 * @throws DispatchFailedError when the file is gone (the agent is no longer installed), invalid
 *   now, or unreadable now after being invalid at discovery.
 */
export async function currentPolicy(runtime: CodexAgentRuntime, agent: DiscoveredAgent): Promise<AgentPolicy> {
  const tool = toolNameOf(agent.slug)
  const state = await readAgentFile(agent.file, agentFileOptions(agent.origin))
  if (state.status === 'ok') return state.policy
  if (state.status === 'missing') {
    throw new DispatchFailedError(
      `${tool} cannot run: its agent file ${agent.file} no longer exists, so the agent is no longer installed. ` +
        `Put the file back, or restart the server to list the agents installed now.`,
    )
  }
  if (state.status === 'invalid') {
    throw new DispatchFailedError(`${tool} cannot run: its agent file ${agent.file} is invalid: ${asSentenceEnd(state.reason).slice(0, -1)}. Fix the agent file; the next call reads it again.`)
  }
  const discovered = agent.state
  if (discovered.status === 'ok' || discovered.status === 'unreadable') {
    runtime.log.warn(`cannot read ${agent.file} now (${state.reason}); running ${tool} with the policy it had when the server started`)
    return discovered.policy
  }
  throw new DispatchFailedError(
    `${tool} cannot run: its agent file ${agent.file} cannot be read (${state.reason}) and was invalid when the server started. ` +
      `Fix the agent file; the next call reads it again.`,
  )
}

/**
 * Plans a call: re-reads the agent file and the Codex home's config now (so edits apply on the
 * next call), checks the request against the agent's policy, and maps it to `codex exec` arguments.
 * @throws DispatchFailedError when the agent file does not parse or its policy cannot be enforced,
 *   or a config Codex loads for the run cannot be read or parsed; BadInputError when `tools` asks for something the policy
 *   does not allow.
 */
export async function planAgentCall(runtime: CodexAgentRuntime, agent: DiscoveredAgent, tools?: string[]): Promise<DispatchPlan> {
  const policy = await currentPolicy(runtime, agent)
  const layers = await codexConfigLayers(runtime.codexHome, runtime.cwd, runtime.systemConfig ? {systemConfig: runtime.systemConfig} : {}).catch((error: unknown) => {
    throw error instanceof DispatchFailedError ? new DispatchFailedError(`Cannot run ${toolNameOf(agent.slug)}: ${error.message}`) : error
  })
  const depthMarker = {name: AGENT_DEPTH_ENV, value: String(runtime.agentDepth.depth + 1)}
  const args = codexExecArgs(
    policy,
    {
      depthMarker,
      cwd: runtime.cwd,
      isInsideGitRepo: (await repositoryRootOf(runtime.cwd)) !== undefined,
      configServers: mcpServersOf(mergeLayers(layers)),
    },
    tools,
  )
  return {command: runtime.codexCommand, args, cwd: runtime.cwd, envOverrides: {CODEX_HOME: runtime.codexHome, [depthMarker.name]: depthMarker.value}, policy}
}

/**
 * Runs one `agent_<slug>` call (DESIGN §5.4): takes its place in line for a dispatch slot on
 * arrival (so waiting calls start first in, first out), plans it meanwhile, runs `codex exec` with
 * the prompt on stdin once it has the slot, and returns its stdout as the answer (see `agentAnswer`).
 * @param onProgress called with a short message when the call waits for a slot, when the run starts,
 *   and for lines Codex logs on stderr
 * @throws BadInputError for an empty prompt or a refused `tools` list; DispatchFailedError when
 *   `codex` cannot start, exits non-zero (the message carries its captured stderr) or is cancelled.
 */
export async function runAgentCall(
  runtime: CodexAgentRuntime,
  agent: DiscoveredAgent,
  input: AgentCallInput,
  options: {signal: AbortSignal; onProgress?: (message: string) => void},
): Promise<AgentAnswer> {
  if (input.prompt.trim() === '') throw new BadInputError('prompt is empty. Say what the agent should do.')
  if (isTooDeep(runtime.agentDepth)) throw tooDeepError(runtime, agent)
  const controller = new AbortController()
  const signal = AbortSignal.any([options.signal, controller.signal])
  const untrack = runtime.track(controller)
  // Take a place in line before anything asynchronous, so that calls waiting for a slot start in
  // the order they arrived (planning reads files and takes longer for some agents than others).
  const mustWait = runtime.limiter.active >= runtime.limiter.max
  const slot = runtime.limiter.acquire(signal)
  slot.catch(() => undefined) // a failed plan is reported instead
  if (mustWait) options.onProgress?.(`${toolNameOf(agent.slug)}: waiting for a free dispatch slot (at most ${runtime.limiter.max} at once)`)
  const plan = await planAgentCall(runtime, agent, input.tools).catch(async (error: unknown) => {
    controller.abort() // leaves the line, or frees the slot below when it was granted meanwhile
    ;(await slot.catch(() => undefined))?.()
    untrack()
    throw error
  })
  const release = await slot.catch((error: unknown) => {
    untrack()
    throw error
  })
  try {
    options.onProgress?.(`${toolNameOf(agent.slug)}: codex exec started`)
    const outcome = await runDispatch({
      command: plan.command,
      args: plan.args,
      cwd: plan.cwd,
      env: dispatchEnvironment(runtime.env, plan.envOverrides),
      prompt: input.prompt,
      signal,
      ...(options.onProgress ? {onStderrLine: options.onProgress} : {}),
    })
    return agentAnswer(agent, outcome)
  } finally {
    release()
    untrack()
  }
}

/** The answer of an `agent_<slug>` call: the text the model reads, and the same as fields (the tool's outputSchema). */
export interface AgentAnswer {
  text: string
  structured: {
    /** The agent's final message (what `codex exec` printed on stdout, without its last line break); '' when there was none. */
    final_message: string
    /** Bytes of the agent's output dropped past the capture limit (0 when whole). */
    output_dropped_bytes: number
  }
}

/** Why a runtime inside a dispatched run does not dispatch: agents do not start agents. */
function tooDeepError(runtime: CodexAgentRuntime, agent: AgentDefinition): DispatchFailedError {
  const {depth, source} = runtime.agentDepth
  return new DispatchFailedError(
    `${toolNameOf(agent.slug)} cannot run here: this agent runtime was started inside an agent run that ak dispatched ` +
      `(${AGENT_DEPTH_ENV}=${depth} in ${source ?? 'its environment'}), and agents may not start agents ` +
      `(at most ${MAX_AGENT_DEPTH} level, as Codex's agents.max_depth). Do the work yourself, or ask the caller to run ${toolNameOf(agent.slug)}.`,
  )
}

/**
 * The answer of a finished run: its stdout (the agent's final message) when it exited 0, with a
 * note when output was cut.
 * @throws DispatchFailedError with the exit code or signal and the captured stderr otherwise.
 */
export function answerText(agent: AgentDefinition, outcome: DispatchOutcome): string {
  return agentAnswer(agent, outcome).text
}

/**
 * The answer of a finished run as text and fields (see `answerText` for the text).
 * @throws DispatchFailedError with the exit code or signal and the captured stderr when it did not exit 0.
 */
export function agentAnswer(agent: AgentDefinition, outcome: DispatchOutcome): AgentAnswer {
  if (outcome.exitCode === 0) {
    const message = outcome.stdout.replace(/\n$/, '')
    let text = message
    if (outcome.stdoutDroppedBytes > 0) text += `\n[output cut: ${outcome.stdoutDroppedBytes} more bytes of the agent's output were dropped]`
    return {
      text: text === '' ? '(the agent finished without a final message)' : text,
      structured: {final_message: message, output_dropped_bytes: outcome.stdoutDroppedBytes},
    }
  }
  const how = outcome.exitCode !== null ? `exited with code ${outcome.exitCode}` : `was stopped by ${outcome.signal}`
  const cut = outcome.stderrDroppedBytes > 0 ? `[the first ${outcome.stderrDroppedBytes} bytes of stderr were dropped]\n` : ''
  const stderr = outcome.stderr.trim() === '' ? '(nothing on stderr)' : cut + outcome.stderr.replace(/\n$/, '')
  throw new DispatchFailedError(`codex exec for ${toolNameOf(agent.slug)} ${how}. Its stderr:\n${stderr}`)
}

/**
 * The environment of a dispatched run: `env` less CHILD_ENV_REMOVED (AgentExec's HTTP bearer
 * token, which every process ak starts would otherwise see), with `overrides` on top.
 */
export function dispatchEnvironment(env: NodeJS.ProcessEnv, overrides: Record<string, string>): NodeJS.ProcessEnv {
  const result: NodeJS.ProcessEnv = {...env, ...overrides}
  for (const name of CHILD_ENV_REMOVED) delete result[name]
  return result
}
