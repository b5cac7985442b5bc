/**
 * Limits of the tasks ak serves (the MCP Tasks extension, `io.modelcontextprotocol/tasks`), with
 * their units in their names. Tool descriptions and docs/terminal.md quote these constants.
 */

/** The polling interval a task suggests to its client (`pollIntervalMs`). */
export const TASK_POLL_INTERVAL_MS = 2_000
/**
 * How long a task is kept once it has ended, for its client to fetch the answer with `tasks/get`.
 * Its `ttlMs` (counted from its creation, as the extension counts it) then covers its run and this.
 */
export const ENDED_TASK_KEPT_MS = 10 * 60_000
/** Ended tasks kept at once across the server; past it the one that ended first is dropped. */
export const MAX_ENDED_TASKS = 256
/**
 * Bytes of answers (their JSON) of ended tasks kept at once across the server; past it the ones
 * that ended first are dropped. With MAX_ENDED_TASKS, this is what keeps memory bounded when
 * nobody fetches the answers.
 */
export const MAX_ENDED_TASK_BYTES = 16 * 1024 * 1024
/** Tasks running at once across the server; past it a call answers as it would without tasks. */
export const MAX_RUNNING_TASKS = 256
/** A running task nobody asked about (`tasks/get`) for this long is cancelled (30 minutes). */
export const TASK_IDLE_LIMIT_MS = 30 * 60_000
/** Longest status message of a task (a command's last output line), in characters; longer ones keep their end. */
export const TASK_STATUS_MESSAGE_CHARS = 200
/** Shortest time between two `notifications/tasks/status` of one task while it runs. */
export const TASK_STATUS_NOTIFICATION_INTERVAL_MS = 2_000
