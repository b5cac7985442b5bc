/**
 * The AgentExec library (`import {createAgentExec} from "@agentorg/exec"`, or from "@agentorg/ak"):
 * the server of `ak exec serve` mounted in a host application's HTTP server (DESIGN §4.6).
 * Published as the checked entry dist/exec.js over the one-file bundle (scripts/build.js); these
 * declarations are its types.
 */
export {createAgentExec, type AgentExec, type AgentExecOptions} from './exec/serving/create-agent-exec.js'
export {LEVELS, type Level} from './exec/level.js'
export {SANDBOX_MODES, type SandboxMode} from './exec/terminal/sandbox-policy.js'
export type {Logger} from './log.js'
