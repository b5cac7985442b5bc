import {OUTPUT_AND_PROMPT_FLAGS, BaseCommand, sharedFlagsHiding} from '../../base-command.js'
import {execServeFlags} from '../../exec-flags.js'
import {stderrLogger} from '../../log.js'
import {TOKEN_ENV} from '../../exec/http/bearer-token.js'
import {HTTP_HEADERS_TIMEOUT_MS, HTTP_MAX_CONNECTIONS, HTTP_SESSION_IDLE_MS} from '../../exec/limits.js'
import {serveAgentExec} from '../../exec/serving/serve.js'
import {resolveServeSettings} from '../../exec/serving/serve-options.js'
import {MIN_BWRAP_VERSION} from '../../exec/terminal/sandbox-policy.js'

export default class ExecServe extends BaseCommand {
  static override summary = 'Serve AgentExec: files and a terminal confined to one workspace, over MCP.'

  static override description = `Serves the AgentExec MCP server over stdio until stdin closes or SIGINT, SIGTERM or SIGHUP arrives, then stops every command it started (also processes that left their group but still hold its output) and exits 0. stdout carries MCP frames only; one line per tool call is logged on stderr (silenced by --quiet).

With --http HOST:PORT it serves Streamable HTTP at http://HOST:PORT/mcp instead, until SIGINT, SIGTERM or SIGHUP. HOST must be loopback (127.0.0.0/8, ::1, localhost) because there is no TLS. Every request must carry "Authorization: Bearer $${TOKEN_ENV}", and a request whose Host or Origin is not loopback gets 403. A 2025-era client gets a session that expires after ${HTTP_SESSION_IDLE_MS / 60_000} minutes with no request and no open event stream, which stops its commands. A connection whose headers are not complete within ${HTTP_HEADERS_TIMEOUT_MS / 1000} s is closed, and at most ${HTTP_MAX_CONNECTIONS} are open at once. To serve other machines, use createAgentExec (library mode) behind your own HTTPS.

Levels, each containing the one before: read (read, list, search), files (adds edit), terminal (adds exec_command and write_stdin).

The file tools check that paths stay inside the workspace, but without a sandbox this is not a security boundary: at the terminal level a command can do anything the server's user can. With --sandbox workspace-write (Linux, needs bubblewrap ${MIN_BWRAP_VERSION} or later) commands hold no capabilities, even when the server runs as root: they can write only inside the workspace and a private /tmp, see no host process, have no network unless --sandbox-network is given, and leave no process behind; --sandbox read-only allows no writes at all. Reads are not confined.`

  static override examples = [
    {description: 'Serve the current folder read-only over stdio', command: '<%= config.bin %> <%= command.id %>'},
    {description: 'Let an agent edit files in a project', command: '<%= config.bin %> <%= command.id %> --workspace ~/src/app --level files'},
    {
      description: `Serve over HTTP on a free loopback port, after "export ${TOKEN_ENV}=$(openssl rand -hex 32)" so that the client can be given the same token (the URL is printed on stderr)`,
      command: '<%= config.bin %> <%= command.id %> --http 127.0.0.1:0',
    },
    {
      description: 'Give an agent a terminal whose commands can write only inside the project',
      command: '<%= config.bin %> <%= command.id %> --workspace ~/src/app --level terminal --sandbox workspace-write',
    },
  ]

  // Declared once in src/exec/serving/serve-options.ts, shared with dist/agentexec.js.
  static override flags = execServeFlags()

  static override baseFlags = sharedFlagsHiding(OUTPUT_AND_PROMPT_FLAGS)

  // No positional arguments: oclif would read stdin to fill them and eat the first MCP frame.
  static override args = {}

  async run(): Promise<void> {
    const {flags} = await this.parse(ExecServe)
    this.noteIgnoredSharedFlags(flags, 'ak exec serve', 'stdout carries MCP frames only and it never prompts')
    const settings = resolveServeSettings(flags, process.env, process.cwd())
    await serveAgentExec(settings, stderrLogger({quiet: flags.quiet, prefix: 'ak exec'}))
  }
}
