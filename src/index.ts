/**
 * ak's library entry (`import … from "@agentorg/ak"`).
 */
export {Workspace} from './exec/workspace.js'
export {LEVELS, type Level} from './exec/level.js'
export {SANDBOX_MODES, type SandboxMode} from './exec/terminal/sandbox-policy.js'
export {createAgentExec, type AgentExec, type AgentExecOptions} from './exec/create-agent-exec.js'
export type {Logger} from './log.js'
export {AK_VERSION} from './version.js'
export {
  createCodexAgentRuntime,
  type CodexAgentRuntime,
  type CodexAgentRuntimeOptions,
} from './codex/runtime.js'
export {discoverAgents, type Discovery, type DiscoveredAgent, type ProjectAgents} from './codex/discovery.js'
export {createCodexAgentServer} from './codex/server.js'
export type {AgentDefinition, AgentOrigin} from './codex/agent-file.js'
export type {AgentPolicy} from './codex/policy.js'
