/**
 * The environment variable that holds AgentExec's HTTP bearer token. Shared by the HTTP server,
 * which reads it, and by everything that starts processes, which keeps it out of their environment
 * (commands, dispatched `codex exec` runs).
 */
export const TOKEN_ENV = 'AGENTEXEC_TOKEN'

/**
 * Variables no process ak starts inherits (an agent's commands, a dispatched `codex exec`): the
 * bearer token is the server's secret, and an agent has no use for it.
 */
export const CHILD_ENV_REMOVED: readonly string[] = [TOKEN_ENV]
