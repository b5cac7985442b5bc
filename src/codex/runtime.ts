import {type Logger, silentLogger} from '../log.js'
import {type AgentDepth, detectAgentDepth} from './agent-depth.js'
import {type Discovery, discoverAgents} from './discovery.js'
import {type DispatchLimiter, createDispatchLimiter} from './dispatch-limiter.js'
import {DEFAULT_MAX_DISPATCHES} from './limits.js'
import {type CodexRoots, resolveRoots} from './roots.js'

/** Options of createCodexAgentRuntime; every one has a default. */
export interface CodexAgentRuntimeOptions {
  /** Default: `$CODEX_HOME`, else `~/.codex`. */
  codexHome?: string
  /** Default: `$AGENTKIT_PLUGIN_DIR`, else `~/.claude/plugins`. */
  pluginRoot?: string
  /** Where discovery starts and where agents run. Default: the process's working directory. */
  cwd?: string
  /** Dispatches at once. Default DEFAULT_MAX_DISPATCHES (2). */
  maxDispatches?: number
  /** The `codex` executable. Default `codex`, looked up on PATH at each call. */
  codexCommand?: string
  /** The environment dispatched runs inherit (CODEX_HOME is then set). Default: this process's. */
  env?: NodeJS.ProcessEnv
  /** Default: the user's home folder (the project walk stops before it). */
  homeDir?: string
  /** Codex's system-wide config, which dispatched runs load too. Default SYSTEM_CODEX_CONFIG. */
  systemConfig?: string
  /** How deep in a chain of agents this runtime runs. Default: detected (detectAgentDepth). */
  agentDepth?: AgentDepth
  log?: Logger
}

/** What one serving process shares between its calls: the discovered agents and the dispatch slots. */
export interface CodexAgentRuntime extends CodexRoots {
  cwd: string
  discovery: Discovery
  limiter: DispatchLimiter
  codexCommand: string
  env: NodeJS.ProcessEnv
  /** Codex's system-wide config path when not the default (tests). */
  systemConfig?: string
  /** How deep in a chain of agents this runtime runs; at MAX_AGENT_DEPTH it refuses agent calls. */
  agentDepth: AgentDepth
  log: Logger
  /** Registers a running dispatch so close() can stop it; returns the function that unregisters it. */
  track(controller: AbortController): () => void
  /** Stops every running dispatch (and its process tree) and resolves once they have all ended. Idempotent. */
  close(): Promise<void>
}

/**
 * Discovers the agents once (DESIGN §5.2) and prepares to dispatch them. The tool list is fixed
 * at start; each call re-reads its agent file.
 * @throws BadInputError for an empty root flag; RootUnreadableError when a root cannot be read.
 */
export async function createCodexAgentRuntime(options: CodexAgentRuntimeOptions = {}): Promise<CodexAgentRuntime> {
  const cwd = options.cwd ?? process.cwd()
  const env = options.env ?? process.env
  const roots = resolveRoots({codexHome: options.codexHome, pluginRoot: options.pluginRoot}, {env, cwd, ...(options.homeDir ? {homeDir: options.homeDir} : {})})
  const discovery = await discoverAgents(roots, {cwd, ...(options.homeDir ? {homeDir: options.homeDir} : {})})
  // Running dispatches, each with the function that reports it finished.
  const running = new Map<AbortController, Promise<void>>()
  const finishers = new Map<AbortController, () => void>()
  return {
    ...roots,
    cwd,
    discovery,
    limiter: createDispatchLimiter(options.maxDispatches ?? DEFAULT_MAX_DISPATCHES),
    codexCommand: options.codexCommand ?? 'codex',
    env,
    ...(options.systemConfig ? {systemConfig: options.systemConfig} : {}),
    agentDepth: options.agentDepth ?? (await detectAgentDepth(env)),
    log: options.log ?? silentLogger,
    track(controller) {
      running.set(controller, new Promise((resolve) => finishers.set(controller, resolve)))
      return () => {
        finishers.get(controller)?.()
        finishers.delete(controller)
        running.delete(controller)
      }
    },
    async close() {
      const finished = [...running.values()]
      for (const controller of running.keys()) controller.abort()
      await Promise.all(finished)
    },
  }
}
