/**
 * The config blocks of the MCP clients beyond Codex, Claude and VS Code: Gemini CLI, OpenCode,
 * Cursor, Windsurf and Zed. Each client's key, entry shape and HTTP form, with where each fact
 * comes from:
 *
 * - Gemini CLI (`@google/gemini-cli` 0.61): `settings.json` (`~/.gemini/` or a project's
 *   `.gemini/`), key `mcpServers`, entries `{command, args, env, cwd, timeout, trust}` or, for
 *   Streamable HTTP, `httpUrl` with `headers`; `$VAR` and `${VAR}` in settings are replaced by the
 *   variable's value when Gemini CLI loads them. `trust: true` makes Gemini CLI run the server's
 *   tools without asking; without it a headless `gemini -p` declines every tool that needs a
 *   confirmation. Gemini CLI starts no MCP server (not even a user-level one) in a folder it does
 *   not trust (folder trust is on by default): `~/.gemini/trustedFolders.json` maps a folder to
 *   `"TRUST_FOLDER"`.
 * - OpenCode (`opencode-ai` 1.18): `opencode.json` (a project's, or `~/.config/opencode/`), key
 *   `mcp`, entries `{type: "local", command: [argv…], environment, enabled, timeout}` or
 *   `{type: "remote", url, headers, enabled, timeout}` (`McpLocalConfig`, `McpRemoteConfig`);
 *   `{env:VAR}` in the config is replaced by the variable. `timeout` (ms, default 5000) bounds the
 *   start-up and each request, too short for a server started on a
 *   loaded machine. OpenCode's own agent allows every tool unless a `permission` rule says
 *   otherwise (its default ruleset is `"*": "allow"`), so ak's tools run without a key.
 * - Cursor: `.cursor/mcp.json` or `~/.cursor/mcp.json`, key `mcpServers`, entries
 *   `{command, args, env}` or `{url, headers}`; `${env:VAR}` is replaced by the variable.
 * - Windsurf: `~/.codeium/windsurf/mcp_config.json`, key `mcpServers`, entries
 *   `{command, args, env}` or `{serverUrl, headers}`; `${env:VAR}` is replaced by the variable.
 * - Zed: its `settings.json` (`~/.config/zed/` or a project's `.zed/`), key `context_servers`,
 *   entries `{source: "custom", command, args, env}`. Zed replaces no variable in settings.
 */
import {BadInputError} from '../../errors.js'
import type {AkLaunch} from '../../launch/ak-launch.js'
import {CODEX_STARTUP_TIMEOUT_SEC} from '../../launch/codex-server-start.js'
import {TOKEN_ENV} from '../http/bearer-token.js'

/** The clients this module writes blocks for. */
export const MORE_CONFIG_CLIENTS = ['gemini', 'opencode', 'cursor', 'windsurf', 'zed'] as const
export type MoreConfigClient = (typeof MORE_CONFIG_CLIENTS)[number]

/** OpenCode's `$schema` URL, which its own `opencode mcp add` and docs put first in `opencode.json`. */
export const OPENCODE_SCHEMA = 'https://opencode.ai/config.json'

/**
 * How long ak asks OpenCode to wait for the server to start and to answer each request, in ms:
 * the start-up time ak asks of Codex (CODEX_STARTUP_TIMEOUT_SEC), since OpenCode's 5000 ms
 * default leaves out a server that a loaded machine starts more slowly.
 */
export const OPENCODE_TIMEOUT_MS = CODEX_STARTUP_TIMEOUT_SEC * 1000

/** A block of one of these clients: its top-level object, and the entry it holds under `name`. */
export interface MoreClientBlock {
  /** The whole JSON document to paste (the entry under its key, and OpenCode's `$schema`). */
  document: Record<string, unknown>
  /** The server's entry, exactly as it appears in `document`. */
  entry: Record<string, unknown>
  /** Where the block goes, for people. */
  destination: string
  /** What else the user must do for the client to start the server and run its tools, if anything. */
  steps?: string
}

/** Where each client reads the block, for people. */
export const MORE_CLIENT_DESTINATIONS: Record<MoreConfigClient, string> = {
  gemini: ".gemini/settings.json in the project (or ~/.gemini/settings.json), merged into its \"mcpServers\"",
  opencode: 'opencode.json in the project (or ~/.config/opencode/opencode.json), merged into its "mcp"',
  cursor: '.cursor/mcp.json in the project (or ~/.cursor/mcp.json), merged into its "mcpServers"',
  windsurf: '~/.codeium/windsurf/mcp_config.json, merged into its "mcpServers"',
  zed: 'Zed\'s settings.json (~/.config/zed/settings.json, or .zed/settings.json in the project), merged into its "context_servers"',
}

/**
 * The block that makes `client` start `launch` (or connect to `url`, sending the token from the
 * variable TOKEN_ENV) as the server `name`, in the client's own format (see the module comment).
 * @param workspace the folder the server works on (Gemini CLI must trust the folder it runs in)
 * @throws BadInputError for Zed with `url`: Zed reads no variable in its settings, and a block
 *   never holds the token itself
 */
export function renderMoreClientBlock(client: MoreConfigClient, name: string, reached: {launch: AkLaunch} | {url: string}, workspace: string): MoreClientBlock {
  const launch = 'launch' in reached ? reached.launch : undefined
  const url = 'url' in reached ? reached.url : undefined
  const bearer = (reference: string) => ({Authorization: `Bearer ${reference}`})
  const block = (key: string, entry: Record<string, unknown>, extra: Record<string, unknown> = {}) => ({
    document: {...extra, [key]: {[name]: entry}},
    entry,
    destination: MORE_CLIENT_DESTINATIONS[client],
  })
  switch (client) {
    case 'gemini': {
      const entry = launch ? {command: launch.command, args: launch.args, trust: true} : {httpUrl: url, headers: bearer(`\${${TOKEN_ENV}}`), trust: true}
      return {
        ...block('mcpServers', entry),
        steps:
          `Gemini CLI starts no MCP server in a folder it does not trust: trust the folder you run it in ` +
          `(/permissions in Gemini CLI, or "${workspace}": "TRUST_FOLDER" in ~/.gemini/trustedFolders.json). ` +
          `"trust": true lets it run ak's tools without asking (gemini -p cannot ask, so it would decline them).`,
      }
    }
    case 'opencode': {
      const entry = launch
        ? {type: 'local', command: [launch.command, ...launch.args], enabled: true, timeout: OPENCODE_TIMEOUT_MS}
        : {type: 'remote', url, headers: bearer(`{env:${TOKEN_ENV}}`), enabled: true, timeout: OPENCODE_TIMEOUT_MS}
      return block('mcp', entry, {$schema: OPENCODE_SCHEMA})
    }
    case 'cursor':
      return {
        ...block('mcpServers', launch ? {command: launch.command, args: launch.args} : {url, headers: bearer(`\${env:${TOKEN_ENV}}`)}),
        steps: "Cursor asks before each tool call unless you allow ak's tools in its settings (auto-run).",
      }
    case 'windsurf':
      return {
        ...block('mcpServers', launch ? {command: launch.command, args: launch.args} : {serverUrl: url, headers: bearer(`\${env:${TOKEN_ENV}}`)}),
        steps: 'Refresh the MCP servers in Windsurf (Cascade, MCP servers) after saving.',
      }
    case 'zed': {
      if (!launch) {
        throw new BadInputError(
          `Zed reads no environment variable in its settings.json, and ak never writes the ${TOKEN_ENV} token into a block: ` +
            `leave out --http to have Zed start the server itself.`,
        )
      }
      return {
        ...block('context_servers', {source: 'custom', command: launch.command, args: launch.args, env: {}}),
        steps: "Zed's agent asks before each tool call unless you allow it (\"Always allow\" in the Agent Panel).",
      }
    }
  }
}
