/**
 * The environment variable that holds AgentExec's HTTP bearer token. Shared by the HTTP server,
 * which reads it, and by everything that starts processes, which keeps it out of their environment
 * (commands, dispatched `codex exec` runs).
 */
export const TOKEN_ENV = 'AGENTEXEC_TOKEN'
