/**
 * The Codex agent runtime's limits and defaults, defined once with their units in their names.
 * Tool descriptions, help text and docs/agent-runtime.md quote these constants.
 */

/** Longest agent slug, in characters: keeps `mcp__<server>__agent_<slug>` within 64 characters. */
export const SLUG_MAX_CHARS = 40

/**
 * Longest server name `register --name` accepts, in characters. With the longest slug, a
 * client's qualified tool name `mcp__<name>__agent_<slug>` is then at most 64 characters, the
 * limit Codex applies to tool names.
 */
export const SERVER_NAME_MAX_CHARS = 64 - 'mcp__'.length - '__agent_'.length - SLUG_MAX_CHARS

/** Largest agent file read, in bytes; a bigger file is listed as invalid. */
export const AGENT_FILE_MAX_BYTES = 1024 * 1024

/** Largest Codex `config.toml` read, in bytes. */
export const CODEX_CONFIG_MAX_BYTES = 4 * 1024 * 1024

/** Largest `.git` file (a worktree's `gitdir:` pointer) read to find its main repository, in bytes. */
export const GIT_POINTER_FILE_MAX_BYTES = 64 * 1024

/**
 * How deep agents may be dispatched: a runtime started inside a dispatched run (depth 1) refuses
 * agent calls, so agents do not start agents. Codex's own `agents.max_depth` defaults to 1 too.
 */
export const MAX_AGENT_DEPTH = 1

/** Largest ancestor environment (`/proc/<pid>/environ`) read when looking for the depth marker, in bytes. */
export const PROC_ENVIRON_MAX_BYTES = 4 * 1024 * 1024

/** Dispatched `codex exec` runs allowed at once by default; further calls wait for a free slot. */
export const DEFAULT_MAX_DISPATCHES = 2

/** Upper bound accepted for `--max-dispatches`. */
export const MAX_DISPATCHES_LIMIT = 16

/** stdout kept from one dispatch, in bytes (the beginning); the rest is dropped with a note. */
export const DISPATCH_STDOUT_MAX_BYTES = 1024 * 1024

/** stderr kept from one dispatch, in bytes (the end, where errors are); the rest is dropped with a note. */
export const DISPATCH_STDERR_MAX_BYTES = 64 * 1024

/** Longest progress message sent to the client, in characters. */
export const PROGRESS_MESSAGE_MAX_CHARS = 200

/** Least time between two progress notifications of one call, in milliseconds (the first is sent at once). */
export const PROGRESS_MIN_INTERVAL_MS = 1000

/** Time a stopped dispatch gets between SIGTERM and SIGKILL, in milliseconds. */
export const DISPATCH_KILL_GRACE_MS = 2000

/**
 * How long, in milliseconds, a dispatch's output is still read after `codex exec` exited: what it
 * wrote before exiting arrives within it, and a process it left behind (a daemon of its own
 * session) that keeps the output open cannot hold the call, or its dispatch slot, past it.
 */
export const DISPATCH_OUTPUT_DRAIN_MS = 1000

/** `tool_timeout_sec` written by `register`: a Codex client waits this long (seconds) for one agent call. */
export const REGISTERED_TOOL_TIMEOUT_SEC = 600

/** Server name `register` and `unregister` use when `--name` is not given. */
export const DEFAULT_SERVER_NAME = 'agents'

/**
 * How long an agent call of a client with the MCP Tasks extension waits for its run before it
 * becomes a task (DESIGN §4.11): a call refused at once (bad input, a policy refusal, a failed
 * start) still answers as a plain result; a run that takes longer is followed with tasks/get.
 */
export const AGENT_CALL_YIELD_MS = 2_000
