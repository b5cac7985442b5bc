import {Flags} from '@oclif/core'

import {BaseCommand, usageError} from '../../base-command.js'
import {shellQuote} from '../../codex/inspect.js'
import {TOKEN_ENV} from '../../exec/http/bearer-token.js'
import {parseListenAddress} from '../../exec/http/listen-address.js'
import {allowProtectedFlag, configSandboxFlags, levelFlag, workspaceFlag} from '../../exec-flags.js'
import {AllowedProtectedPaths, splitAllowProtectedFlag} from '../../exec/protected-paths.js'
import {clientAddCommand} from '../../exec/serving/client-add-command.js'
import {CONFIG_CLIENTS, type ConfigClient, DEFAULT_CONFIG_SERVER_NAME, renderClientConfig} from '../../exec/serving/client-config.js'
import {parseLevel} from '../../exec/level.js'
import {configSandbox} from '../../exec/serving/config-sandbox.js'
import {Workspace} from '../../exec/workspace.js'
import {CODEX_APPROVAL_ASKING, CODEX_APPROVAL_KEY, CODEX_APPROVAL_WITHOUT_ASKING} from '../../launch/codex-tool-approval.js'
import {AK_PACKAGE} from '../../launch/config-launch.js'

export default class ExecConfig extends BaseCommand {
  static override summary = 'Print a ready-to-paste MCP config block that starts AgentExec for a client.'

  static override description = `Prints the config block that makes an MCP client start AgentExec on a workspace: a [mcp_servers.<name>] table for Codex's config.toml, the "mcpServers" JSON for Claude, the "servers" JSON (type "stdio") for VS Code, the "mcpServers" JSON of Gemini CLI's settings.json (with "trust": true), the "mcp" JSON of OpenCode's opencode.json (type "local", the command as one array), the "mcpServers" JSON of Cursor's mcp.json or Windsurf's mcp_config.json, or the "context_servers" JSON of Zed's settings.json. Clients accept it as printed.

How the block starts the server depends on where ak runs from. From a clone it names absolute paths only (the Node.js binary running this command and ak's entry file): clients start MCP servers with a reduced environment (Codex keeps little more than HOME, PATH, SHELL and USER), so nothing depends on PATH or the current directory; generate it again after moving or upgrading Node.js or ak. From an installed ${AK_PACKAGE} it names the agentexec bin when PATH finds this install's, else the absolute Node.js binary and the installed agentexec file (generate it again after moving that install).

For Codex at the files and terminal levels the block also sets ${CODEX_APPROVAL_KEY} = "${CODEX_APPROVAL_WITHOUT_ASKING}", under a comment: edit and the terminal tools need approval in Codex, and codex exec, which cannot ask, would decline them. Set "${CODEX_APPROVAL_ASKING}" instead to have Codex ask before each change.

At the terminal level the block runs commands in ak's sandbox (--sandbox workspace-write: writes only inside the workspace and a private /tmp, no network) where bubblewrap can build it here, and says so on stderr: a client's own sandbox does not reach the MCP servers it starts, so without it a command could change anything your user can. --sandbox off prints an unconfined block, with a warning; so does a machine where bubblewrap cannot run, with how to fix it.

Gemini CLI starts no MCP server in a folder it does not trust: trust the folder you run it in. "trust": true lets it run ak's tools without asking, which gemini -p needs, as it cannot ask.

--as-command prints instead the client's own command that adds the server (claude mcp add-json, codex mcp add, code --add-mcp, gemini mcp add, opencode mcp add), ready to run in a POSIX shell, and on stderr what that command leaves out of the block. Cursor, Windsurf and Zed have no such command: paste their block.

The block goes to stdout; a line saying where to paste it, and what else to do, goes to stderr (silenced by --quiet).`

  static override examples = [
    {description: 'Codex, for the current folder', command: '<%= config.bin %> <%= command.id %> --client codex'},
    {description: 'Append it to Codex\'s config', command: 'mkdir -p ~/.codex && <%= config.bin %> <%= command.id %> --client codex --workspace ~/src/app --level files >> ~/.codex/config.toml'},
    {description: 'Claude Code, read-only', command: '<%= config.bin %> <%= command.id %> --client claude --workspace ~/src/app'},
    {description: 'VS Code, as JSON with its metadata', command: '<%= config.bin %> <%= command.id %> --client vscode --json'},
    {description: 'Gemini CLI, for the current folder, at the terminal level', command: '<%= config.bin %> <%= command.id %> --client gemini --level terminal'},
    {description: 'Add the server with OpenCode\'s own command', command: '<%= config.bin %> <%= command.id %> --client opencode --level files --as-command'},
    {description: 'Codex, connecting to a server you start with "ak exec serve --http 127.0.0.1:8765"', command: '<%= config.bin %> <%= command.id %> --client codex --http 127.0.0.1:8765 --level files'},
  ]

  static override flags = {
    client: Flags.string({
      char: 'c',
      description: `MCP client the block is for: ${CONFIG_CLIENTS.join(' | ')}.`,
      options: [...CONFIG_CLIENTS],
      required: true,
    }),
    workspace: workspaceFlag,
    level: levelFlag('Access level to serve'),
    ...configSandboxFlags,
    'allow-protected': allowProtectedFlag,
    http: Flags.string({
      description: `Print the block that connects to "ak exec serve --http HOST:PORT" (started by you, with ${TOKEN_ENV} set) instead of one that starts a server. The client sends the token from its own ${TOKEN_ENV}; the block never holds the token.`,
      helpValue: 'HOST:PORT',
    }),
    name: Flags.string({
      description: 'Server name in the block (letters, digits, "_" and "-").',
      default: DEFAULT_CONFIG_SERVER_NAME,
    }),
    'as-command': Flags.boolean({
      description: "Print the client's own command that adds the server (claude, codex, vscode, gemini, opencode), ready to run, instead of the block.",
      exclusive: ['json'],
    }),
  }

  async run(): Promise<void> {
    const {flags} = await this.parse(ExecConfig)
    const workspace = await Workspace.open(flags.workspace ?? process.cwd())
    const level = parseLevel(flags.level)
    const allowedProtected = AllowedProtectedPaths.parse(splitAllowProtectedFlag(flags['allow-protected']), workspace.root)
    const sandbox = await configSandbox(level, {sandbox: flags.sandbox, sandboxNetwork: flags['sandbox-network']}, {workspace: workspace.root, env: process.env})
    const address = flags.http === undefined ? undefined : parseListenAddress(flags.http)
    if (address?.port === 0) usageError(`--http "${flags.http}": give the port the server listens on (port 0 picks a different free port each time it starts).`)
    const url = address === undefined ? undefined : `http://${address.host.includes(':') ? `[${address.host}]` : address.host}:${address.port}/mcp`
    const config = renderClientConfig({
      client: flags.client as ConfigClient,
      workspace: workspace.root,
      level,
      name: flags.name,
      sandbox: sandbox.policy,
      allowedProtected,
      ...(url === undefined ? {} : {url}),
    })
    if (address !== undefined && !flags.quiet) {
      const serve = ['ak exec serve', '--http', flags.http!, '--workspace', shellQuote(workspace.root), '--level', level]
      if (sandbox.policy.mode !== 'off') serve.push('--sandbox', sandbox.policy.mode, ...(sandbox.policy.network ? ['--sandbox-network'] : []))
      this.note(`Start the server with ${TOKEN_ENV} set (e.g. export ${TOKEN_ENV}=$(openssl rand -hex 32)): ${serve.join(' ')}`)
      this.note(`The client reads the token from its own ${TOKEN_ENV}: set the same value where it starts.`)
    }
    if (sandbox.warning) this.note(`ak: warning: ${sandbox.warning}`)
    if (sandbox.note && !flags.quiet) this.note(sandbox.note)
    if (flags['as-command']) {
      const command = clientAddCommand(config, workspace.root)
      if (!flags.quiet) for (const line of command.notes) this.note(`ak: note: ${line}`)
      this.log(command.line)
      return
    }
    if (flags.json) {
      this.log(JSON.stringify(config, null, 2))
      return
    }
    if (!flags.quiet && config.steps !== undefined) this.note(config.steps)
    if (!flags.quiet) this.note(`Paste into ${config.destination}:`)
    // A blank line first, so `>> config.toml` starts a new table even after a last line without its line break.
    process.stdout.write(config.format === 'toml' ? `\n${config.text}` : config.text)
  }
}
