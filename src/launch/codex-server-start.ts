/**
 * What ak writes into a Codex `[mcp_servers.<name>]` table (the printed `ak exec config --client
 * codex` block and `ak codex-agent-runtime register`) so that Codex never runs silently without ak.
 *
 * Codex starts MCP servers in the background. An optional server (the default) gets a short grace
 * before the first turn (`mcp_optional_startup_grace_ms`, one second in Codex 0.171), and one that
 * is not ready by then, or fails, is left out: `codex exec` still runs the prompt, without ak's
 * tools, and exits 0 (seen on a machine at load 15). `required = true` makes Codex wait for the
 * server up to `startup_timeout_sec`, and end with an error (`codex exec` exits 1) when it does not
 * start (`required` in codex-rs/config/src/mcp_types.rs). Codex's own start-up timeout is 30 s; a
 * server's start (Node.js, the bundle, the shell snapshot) on a machine loaded several times over
 * its cores can come near that, so ak asks for CODEX_STARTUP_TIMEOUT_SEC.
 */

/** The key that makes Codex fail rather than run without the server. */
export const CODEX_REQUIRED_KEY = 'required'

/** The key of the time Codex waits for the server to answer `initialize` and list its tools, in seconds. */
export const CODEX_STARTUP_TIMEOUT_KEY = 'startup_timeout_sec'

/** The same time in milliseconds (Codex accepts either key; ak keeps a user's own of either). */
export const CODEX_STARTUP_TIMEOUT_MS_KEY = 'startup_timeout_ms'

/** How long ak asks Codex to wait for the server to start, in seconds (Codex's default is 30). */
export const CODEX_STARTUP_TIMEOUT_SEC = 120

/** The comment ak writes on the line above `required`: what the two keys do. */
export const CODEX_REQUIRED_COMMENT =
  `Codex stops with an error, instead of running without these tools, when this server has not ` +
  `started within ${CODEX_STARTUP_TIMEOUT_KEY} seconds`

/** The lines ak writes into an `[mcp_servers.<name>]` table: the comment, `required`, the timeout. */
export const CODEX_START_LINES = [`# ${CODEX_REQUIRED_COMMENT}`, `${CODEX_REQUIRED_KEY} = true`, `${CODEX_STARTUP_TIMEOUT_KEY} = ${CODEX_STARTUP_TIMEOUT_SEC}`]
