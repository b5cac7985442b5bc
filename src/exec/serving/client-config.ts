import {stringify as stringifyToml} from 'smol-toml'

import type {AkLaunch} from '../../launch/ak-launch.js'
import {type AkInstall, agentExecLaunch, currentAkInstall} from '../../launch/config-launch.js'
import {CODEX_APPROVAL_KEY, CODEX_APPROVAL_LINES, CODEX_APPROVAL_WITHOUT_ASKING} from '../../launch/codex-tool-approval.js'
import {CODEX_REQUIRED_KEY, CODEX_START_LINES, CODEX_STARTUP_TIMEOUT_KEY, CODEX_STARTUP_TIMEOUT_SEC} from '../../launch/codex-server-start.js'
import {BadInputError} from '../../errors.js'
import {MORE_CONFIG_CLIENTS, type MoreConfigClient, renderMoreClientBlock} from './client-blocks.js'
import {TOKEN_ENV} from '../http/bearer-token.js'
import {type Level, levelIncludes} from '../level.js'
import {ALLOW_PROTECTED_SEPARATOR, type AllowedProtectedPaths} from '../protected-paths.js'
import type {SandboxPolicy} from '../terminal/sandbox-policy.js'

/** The MCP clients `ak exec config` writes a block for. */
export const CONFIG_CLIENTS = ['codex', 'claude', 'vscode', ...MORE_CONFIG_CLIENTS] as const
export type ConfigClient = (typeof CONFIG_CLIENTS)[number]

/** The server name used in the config block when none is given. */
export const DEFAULT_CONFIG_SERVER_NAME = 'ak-exec'

/**
 * Server names every supported client accepts as a key: Codex requires `^[a-zA-Z0-9_-]+$` for
 * `mcp_servers` names, and the same set is safe as a JSON key and in qualified tool names.
 */
const SERVER_NAME = /^[A-Za-z0-9_-]{1,64}$/

/**
 * A server's entry in a client config: the launch line, plus `type: "stdio"` for VS Code, and for
 * Codex at `files` and `terminal` the approval mode that lets `codex exec` run the tools.
 */
export type ServerEntry = (
  | AkLaunch
  | {url: string; bearer_token_env_var?: string; headers?: Record<string, string>}
  // The other clients' own forms (client-blocks.ts): OpenCode's argv array, Gemini CLI's httpUrl, Windsurf's serverUrl.
  | {command: string[]; enabled?: boolean; timeout?: number}
  | {httpUrl: string; headers?: Record<string, string>}
  | {serverUrl: string; headers?: Record<string, string>}
) & {
  type?: 'stdio' | 'http' | 'local' | 'remote'
  [key: string]: unknown
  [CODEX_REQUIRED_KEY]?: boolean
  [CODEX_STARTUP_TIMEOUT_KEY]?: number
  [CODEX_APPROVAL_KEY]?: string
}

/** A rendered client config block. */
export interface ClientConfig {
  client: ConfigClient
  /** Server name (the table or object key). */
  name: string
  /** Where the block goes, for people. */
  destination: string
  /** What else the user must do for the client to start the server and run its tools, when anything. */
  steps?: string
  /** `toml` for Codex, `json` for the others. */
  format: 'toml' | 'json'
  /** The server entry inside the block, exactly as it appears there under `name`. */
  server: ServerEntry
  /** The ready-to-paste text, ending in a newline. */
  text: string
}

/**
 * Renders the MCP config block that makes `client` start AgentExec on `workspace` (an absolute
 * real path) at `level`, in `sandbox` when given, launched in the form that fits where ak runs
 * from (`agentExecLaunch`: absolute paths from a clone, the `agentexec` bin or `npx -y
 * @agentorg/exec@<version>` from an installed package), so it works under the reduced environment
 * clients give MCP servers.
 *
 * Shapes: Codex `config.toml` `[mcp_servers.<name>]` with `command`/`args` (Codex
 * `RawMcpServerConfig`), `required = true` and a start-up timeout under a comment (Codex fails
 * instead of running without ak: codex-server-start.ts), and at `files` and `terminal` `default_tools_approval_mode = "approve"`
 * under a comment saying why (`codex exec` declines tools that need approval; see
 * codex-tool-approval.ts); Claude (Claude Code `.mcp.json` and Claude Desktop) `{"mcpServers":
 * {<name>: {command, args}}}`; VS Code `.vscode/mcp.json` `{"servers": {<name>: {type: "stdio",
 * command, args}}}`. With `url`, each client's HTTP form: Codex `url` and `bearer_token_env_var`,
 * Claude and VS Code `type: "http"`, `url` and an `Authorization` header read from TOKEN_ENV.
 * Gemini CLI, OpenCode, Cursor, Windsurf and Zed: each one's own key and forms (client-blocks.ts).
 * @throws BadInputError for a server name clients would refuse, or an HTTP block for Zed.
 */
export function renderClientConfig(options: {
  client: ConfigClient
  workspace: string
  level: Level
  name?: string
  /** The sandbox the server runs commands in; default none. */
  sandbox?: SandboxPolicy
  /** Protected paths the server lets edit and sandboxed commands write (`--allow-protected`); default none. */
  allowedProtected?: AllowedProtectedPaths
  /** Where ak runs from; default: this ak (`currentAkInstall`). */
  install?: AkInstall
  /**
   * The URL of a running `ak exec serve --http` (`http://HOST:PORT/mcp`): the block then connects
   * to it instead of starting a server, sending the token from the variable TOKEN_ENV, never the
   * token itself.
   */
  url?: string
}): ClientConfig {
  const name = options.name ?? DEFAULT_CONFIG_SERVER_NAME
  if (!SERVER_NAME.test(name)) {
    throw new BadInputError(
      `Server name "${name}" is not usable in MCP client configs. Use 1 to 64 letters, digits, "_" or "-".`,
    )
  }
  const sandbox = options.sandbox?.mode === 'off' ? undefined : options.sandbox
  const launch = agentExecLaunch(options.install ?? currentAkInstall(), [
    '--workspace',
    options.workspace,
    '--level',
    options.level,
    ...(sandbox ? ['--sandbox', sandbox.mode, ...(sandbox.network ? ['--sandbox-network'] : [])] : []),
    ...(options.allowedProtected && options.allowedProtected.paths.length > 0
      ? ['--allow-protected', options.allowedProtected.paths.join(ALLOW_PROTECTED_SEPARATOR)]
      : []),
  ])
  const url = options.url
  const server: ServerEntry = url === undefined ? {command: launch.command, args: launch.args} : {url}
  switch (options.client) {
    case 'codex': {
      // At read level every tool is annotated read-only, so Codex runs them without asking.
      const runsWrites = levelIncludes(options.level, 'files')
      // Codex reads the bearer token from the variable itself (RawMcpServerConfig bearer_token_env_var).
      const reached: ServerEntry = url === undefined ? server : {url, bearer_token_env_var: TOKEN_ENV}
      const table = stringifyToml({mcp_servers: {[name]: {...reached}}}).trimEnd()
      const started: ServerEntry = {...reached, [CODEX_REQUIRED_KEY]: true, [CODEX_STARTUP_TIMEOUT_KEY]: CODEX_STARTUP_TIMEOUT_SEC}
      return {
        client: 'codex',
        name,
        destination: '~/.codex/config.toml (or $CODEX_HOME/config.toml)',
        format: 'toml',
        server: runsWrites ? {...started, [CODEX_APPROVAL_KEY]: CODEX_APPROVAL_WITHOUT_ASKING} : started,
        text: [table, ...CODEX_START_LINES, ...(runsWrites ? CODEX_APPROVAL_LINES : [])].join('\n') + '\n',
      }
    }
    case 'claude': {
      // Claude Code expands ${VAR} in an .mcp.json entry's headers.
      const entry: ServerEntry = url === undefined ? server : {type: 'http', url, headers: {Authorization: `Bearer \${${TOKEN_ENV}}`}}
      return {
        client: 'claude',
        name,
        destination: '.mcp.json in the project (Claude Code) or claude_desktop_config.json (Claude Desktop)',
        format: 'json',
        server: entry,
        text: JSON.stringify({mcpServers: {[name]: entry}}, null, 2) + '\n',
      }
    }
    case 'vscode': {
      // VS Code expands ${env:VAR} in mcp.json.
      const entry: ServerEntry = url === undefined ? {type: 'stdio', ...server} : {type: 'http', url, headers: {Authorization: `Bearer \${env:${TOKEN_ENV}}`}}
      return {
        client: 'vscode',
        name,
        destination: '.vscode/mcp.json in the workspace (or the user-level mcp.json)',
        format: 'json',
        server: entry,
        text: JSON.stringify({servers: {[name]: entry}}, null, 2) + '\n',
      }
    }
    default: {
      const client: MoreConfigClient = options.client
      const block = renderMoreClientBlock(client, name, url === undefined ? {launch} : {url}, options.workspace)
      return {
        client,
        name,
        destination: block.destination,
        ...(block.steps === undefined ? {} : {steps: block.steps}),
        format: 'json',
        server: block.entry as ServerEntry,
        text: JSON.stringify(block.document, null, 2) + '\n',
      }
    }
  }
}
