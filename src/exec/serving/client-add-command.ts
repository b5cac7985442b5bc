import {quote} from 'shell-quote'

import {BadInputError} from '../../errors.js'
import {TOKEN_ENV} from '../http/bearer-token.js'
import type {ClientConfig} from './client-config.js'

/** A client's own command line that adds the server of a config block (`ak exec config --as-command`). */
export interface ClientAddCommand {
  /** The command and its arguments. */
  argv: string[]
  /** The folder to run it in, for a command that adds the server to the project it runs in. */
  cwd?: string
  /** The line to run in a POSIX shell: `cd <cwd> && ` when needed, then `argv`, each word quoted. */
  line: string
  /** What the command leaves out of the printed block, and how to add it, one line each. */
  notes: string[]
}

/**
 * The command line with which `config.client` itself adds the server of `config` (the entry
 * `renderClientConfig` wrote), ready to run in a POSIX shell:
 * - Claude Code: `claude mcp add-json <name> <entry JSON>` (the project's local scope), in `workspace`;
 * - Codex: `codex mcp add <name> -- <command> <args…>`, or `--url <url> --bearer-token-env-var
 *   TOKEN_ENV`; it writes none of `required`, `startup_timeout_sec` and
 *   `default_tools_approval_mode`, which the notes give;
 * - VS Code: `code --add-mcp <entry JSON with its name>`;
 * - Gemini CLI: `gemini mcp add --scope project --trust <name> <command> <args…>` (words after
 *   the command are the server's, even those starting with `-`), or `--transport http --header
 *   "Authorization: Bearer ${TOKEN_ENV}" <name> <url>`, in `workspace`;
 * - OpenCode: `opencode mcp add <name> -- <command> <args…>`, or `--url <url> --header
 *   Authorization=…`, into its user config; it writes no `timeout`, which the notes give.
 * @param workspace the folder the project-scoped commands run in
 * @throws BadInputError for Cursor, Windsurf and Zed, which have no such command
 */
export function clientAddCommand(config: ClientConfig, workspace: string): ClientAddCommand {
  const {name, server} = config
  const launch = typeof server.command === 'string' && Array.isArray(server.args) ? {command: server.command, args: server.args as string[]} : undefined
  const url = [server.url, server.httpUrl, server.serverUrl].find((value): value is string => typeof value === 'string')
  const made = (argv: string[], options: {cwd?: string; notes?: string[]} = {}): ClientAddCommand => ({
    argv,
    ...(options.cwd === undefined ? {} : {cwd: options.cwd}),
    line: (options.cwd === undefined ? '' : `cd ${quote([options.cwd])} && `) + quote(argv),
    notes: options.notes ?? [],
  })
  switch (config.client) {
    case 'claude':
      return made(['claude', 'mcp', 'add-json', name, JSON.stringify(server)], {cwd: workspace})
    case 'vscode':
      return made(['code', '--add-mcp', JSON.stringify({name, ...server})])
    case 'codex': {
      const left = Object.entries(server).filter(([key]) => !['command', 'args', 'url', 'bearer_token_env_var'].includes(key))
      const notes =
        left.length === 0
          ? []
          : [`codex mcp add writes no ${left.map(([key]) => key).join(', ')}: add ${left.map(([key, value]) => `${key} = ${JSON.stringify(value)}`).join(', ')} to [mcp_servers.${name}] in ~/.codex/config.toml (the block without --as-command has them).`]
      if (launch) return made(['codex', 'mcp', 'add', name, '--', launch.command, ...launch.args], {notes})
      return made(['codex', 'mcp', 'add', name, '--url', url!, '--bearer-token-env-var', TOKEN_ENV], {notes})
    }
    case 'gemini': {
      const scope = ['gemini', 'mcp', 'add', '--scope', 'project', '--trust']
      if (launch) return made([...scope, name, launch.command, ...launch.args], {cwd: workspace})
      return made([...scope, '--transport', 'http', '--header', `Authorization: Bearer \${${TOKEN_ENV}}`, name, url!], {cwd: workspace})
    }
    case 'opencode': {
      const notes = [`opencode mcp add writes no timeout (OpenCode waits 5000 ms by default): add "timeout": ${String(server.timeout)} to mcp["${name}"] in ~/.config/opencode/opencode.json for a slow start.`]
      if (Array.isArray(server.command)) return made(['opencode', 'mcp', 'add', name, '--', ...(server.command as string[])], {notes})
      return made(['opencode', 'mcp', 'add', name, '--url', url!, '--header', `Authorization=Bearer {env:${TOKEN_ENV}}`], {notes})
    }
    case 'cursor':
    case 'windsurf':
    case 'zed':
      throw new BadInputError(`${CLIENT_TITLES[config.client]} has no command that adds an MCP server: leave out --as-command and paste the block into ${config.destination}.`)
  }
}

/** The clients' names for people. */
const CLIENT_TITLES = {cursor: 'Cursor', windsurf: 'Windsurf', zed: 'Zed'} as const
