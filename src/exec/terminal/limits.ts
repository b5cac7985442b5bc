/**
 * Limits and defaults of AgentExec's terminal (`exec_command`, `write_stdin`; DESIGN §4.3–4.5),
 * with their units in their names. The yield bounds and the 64-command limit follow Codex's
 * unified exec (`codex-rs/core/src/unified_exec/mod.rs`); the output budget and everything about
 * stopping commands are ak's own. Tool descriptions and docs/terminal.md quote these constants.
 */

/** Shortest wait of any call before it answers while the command still runs. */
export const MIN_YIELD_TIME_MS = 250
/** Longest wait of any call before it answers while the command still runs. */
export const MAX_YIELD_TIME_MS = 30_000
/** `exec_command`'s wait when `yield_time_ms` is not given. */
export const DEFAULT_EXEC_YIELD_TIME_MS = 10_000
/** `write_stdin`'s wait when it writes `chars` and `yield_time_ms` is not given. */
export const DEFAULT_WRITE_STDIN_YIELD_TIME_MS = 250
/** Shortest (and default) wait of a `write_stdin` call without `chars` (a poll). */
export const MIN_EMPTY_POLL_YIELD_TIME_MS = 5_000

/** Characters per token when a token budget is turned into a text length. */
export const CHARS_PER_TOKEN = 4
/** Budget of one answer's `text` when `max_output_tokens` is not given. */
export const DEFAULT_MAX_OUTPUT_TOKENS = 7_000
/**
 * Characters of output the server keeps per command between two answers: the first half and
 * the last half of what the command printed; the middle is counted and dropped. This is what
 * keeps memory bounded whatever a command prints.
 */
export const OUTPUT_BUFFER_CHARS = 256 * 1024
/**
 * Characters of output kept for a command that no call has waited on for UNPOLLED_AFTER_MS (a
 * command started and left running, nobody polling it): enough for an answer of the default
 * `max_output_tokens` (DEFAULT_MAX_OUTPUT_TOKENS × CHARS_PER_TOKEN = 28000 characters). The next
 * call that waits on it gives it OUTPUT_BUFFER_CHARS again for what comes next.
 */
export const UNPOLLED_OUTPUT_BUFFER_CHARS = 32 * 1024
/** After this long without a call waiting on it, a command keeps only UNPOLLED_OUTPUT_BUFFER_CHARS of output. */
export const UNPOLLED_AFTER_MS = 5_000
/** Largest useful `max_output_tokens`: the whole buffer. Larger values are lowered to it. */
export const MAX_OUTPUT_TOKENS = OUTPUT_BUFFER_CHARS / CHARS_PER_TOKEN

/**
 * Commands running at once across the server. Codex's limit too; unlike Codex, the next one is
 * refused and nothing running is evicted. A command that ended does not count, even before its
 * end is reported.
 */
export const MAX_RUNNING_COMMANDS = 64
/**
 * Ended commands whose end was not reported yet, kept across the server with their output
 * (at most OUTPUT_BUFFER_CHARS each) until a call reads them or their connection closes. Past
 * it, the longest-waiting one is dropped: its id then answers with its exit code and says its
 * output was discarded. This is what keeps memory bounded when commands end unread.
 */
export const MAX_UNREAD_ENDED_COMMANDS = 64
/** A command that no call has waited on for this long is stopped (30 minutes). */
export const COMMAND_IDLE_LIMIT_MS = 30 * 60_000
/** Time between SIGTERM and SIGKILL when a command is stopped. */
export const KILL_GRACE_MS = 1_000
/**
 * After the shell exits, how long to wait for the output pipe to close before answering. Output
 * the shell wrote is already in the pipe; this only bounds the wait when a background child keeps
 * the pipe open.
 */
export const POST_EXIT_DRAIN_MS = 50

/**
 * Input written to a command and not yet taken by it that the server holds per command, in bytes
 * (UTF-8), on top of what the system's pipe holds (64 KiB on Linux). Past it, `write_stdin` waits
 * up to its `yield_time_ms` for the command to read more, then answers how many characters it
 * wrote, so the rest can be sent later: memory stays bounded however much is sent to a command
 * that does not read.
 */
export const MAX_PENDING_STDIN_BYTES = 1024 * 1024

/** Longest command text shown in logs and in the list of open sessions. */
export const COMMAND_PREVIEW_CHARS = 120

function clamp(value: number, min: number, max: number): number {
  return Math.min(max, Math.max(min, Math.round(value)))
}

/**
 * `exec_command`'s wait in ms: `requested` clamped to MIN_YIELD_TIME_MS–MAX_YIELD_TIME_MS,
 * DEFAULT_EXEC_YIELD_TIME_MS when absent (Codex's rule).
 */
export function execYieldTimeMs(requested: number | undefined): number {
  return clamp(requested ?? DEFAULT_EXEC_YIELD_TIME_MS, MIN_YIELD_TIME_MS, MAX_YIELD_TIME_MS)
}

/**
 * `write_stdin`'s wait in ms. With characters to write: MIN_YIELD_TIME_MS–MAX_YIELD_TIME_MS,
 * default DEFAULT_WRITE_STDIN_YIELD_TIME_MS. Without (a poll):
 * MIN_EMPTY_POLL_YIELD_TIME_MS–MAX_YIELD_TIME_MS, default MIN_EMPTY_POLL_YIELD_TIME_MS, so that
 * polling in a loop does not spin (Codex's rule, with ak's upper bound).
 */
export function writeStdinYieldTimeMs(requested: number | undefined, hasChars: boolean): number {
  if (hasChars) return clamp(requested ?? DEFAULT_WRITE_STDIN_YIELD_TIME_MS, MIN_YIELD_TIME_MS, MAX_YIELD_TIME_MS)
  return clamp(requested ?? MIN_EMPTY_POLL_YIELD_TIME_MS, MIN_EMPTY_POLL_YIELD_TIME_MS, MAX_YIELD_TIME_MS)
}

/** `max_output_tokens` clamped to 1–MAX_OUTPUT_TOKENS, DEFAULT_MAX_OUTPUT_TOKENS when absent. */
export function maxOutputTokens(requested: number | undefined): number {
  return clamp(requested ?? DEFAULT_MAX_OUTPUT_TOKENS, 1, MAX_OUTPUT_TOKENS)
}

/**
 * Longest `cmd`, in UTF-8 bytes. The command is one argument of the shell, and Linux refuses a
 * single argument of MAX_ARG_STRLEN (32 pages, 131072 bytes) or more, counting its NUL.
 */
export const MAX_COMMAND_BYTES = 131_071
