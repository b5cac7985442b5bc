import {Flags} from '@oclif/core'

import {BaseCommand} from '../../base-command.js'
import {levelFlag, workspaceFlag} from '../../exec-flags.js'
import {BadInputError} from '../../errors.js'
import {stderrLogger} from '../../log.js'
import {parseLevel} from '../../exec/level.js'
import {createExecRuntime} from '../../exec/runtime.js'
import {TOKEN_ENV} from '../../exec/http/bearer-token.js'
import {parseListenAddress} from '../../exec/http/listen-address.js'
import {HTTP_HEADERS_TIMEOUT_MS, HTTP_MAX_CONNECTIONS, HTTP_SESSION_IDLE_MS} from '../../exec/limits.js'
import {serveExecStdio} from '../../exec/stdio.js'
import {transportFailed} from '../../mcp/stdio-transport.js'
import {Workspace} from '../../exec/workspace.js'

export default class ExecServe extends BaseCommand {
  static override summary = 'Serve AgentExec: files and a terminal confined to one workspace, over MCP.'

  static override description = `Serves the AgentExec MCP server over stdio until stdin closes or SIGINT, SIGTERM or SIGHUP arrives, then stops every command it started (also processes that left their group but still hold its output) and exits 0. stdout carries MCP frames only; one line per tool call is logged on stderr (silenced by --quiet).

With --http HOST:PORT it serves Streamable HTTP at http://HOST:PORT/mcp instead, until SIGINT, SIGTERM or SIGHUP. HOST must be loopback (127.0.0.0/8, ::1, localhost) because there is no TLS. Every request must carry "Authorization: Bearer $${TOKEN_ENV}", and a request whose Host or Origin is not loopback gets 403. A 2025-era client gets a session that expires after ${HTTP_SESSION_IDLE_MS / 60_000} minutes without a request, which stops its commands. A connection whose headers are not complete within ${HTTP_HEADERS_TIMEOUT_MS / 1000} s is closed, and at most ${HTTP_MAX_CONNECTIONS} are open at once. To serve other machines, use createAgentExec (library mode) behind your own HTTPS.

Levels, each containing the one before: read (read, list, search), files (adds edit), terminal (adds exec_command and write_stdin).

The file tools check that paths stay inside the workspace, but this is not a security boundary: at the terminal level a command can do anything the server's user can. Run it somewhere safe.`

  static override examples = [
    {description: 'Serve the current folder read-only over stdio', command: '<%= config.bin %> <%= command.id %>'},
    {description: 'Let an agent edit files in a project', command: '<%= config.bin %> <%= command.id %> --workspace ~/src/app --level files'},
    {
      description: `Serve over HTTP on a free loopback port, after "export ${TOKEN_ENV}=$(openssl rand -hex 32)" so that the client can be given the same token (the URL is printed on stderr)`,
      command: '<%= config.bin %> <%= command.id %> --http 127.0.0.1:0',
    },
  ]

  static override flags = {
    workspace: workspaceFlag,
    level: levelFlag('Access level'),
    http: Flags.string({
      description: `Serve Streamable HTTP at http://HOST:PORT/mcp instead of stdio. HOST must be loopback; port 0 picks a free one. Needs ${TOKEN_ENV}.`,
      helpValue: 'HOST:PORT',
    }),
    'session-idle-ms': Flags.integer({
      description: 'Idle expiry of a 2025-era HTTP session, in ms.',
      hidden: true,
      min: 1,
    }),
  }

  // No positional arguments: oclif would read stdin to fill them and eat the first MCP frame.
  static override args = {}

  async run(): Promise<void> {
    const {flags} = await this.parse(ExecServe)
    this.noteIgnoredSharedFlags(flags, 'ak exec serve', 'stdout carries MCP frames only and it never prompts')
    const level = parseLevel(flags.level)
    const address = flags.http === undefined ? undefined : parseListenAddress(flags.http)
    const token = process.env[TOKEN_ENV] ?? ''
    if (address && token.trim() === '') {
      throw new BadInputError(
        `--http needs a token in ${TOKEN_ENV}, which is missing or empty. Generate one, e.g. ` +
          `\`export ${TOKEN_ENV}=$(openssl rand -hex 32)\`, and give it to the client as "Authorization: Bearer <token>".`,
      )
    }
    const workspace = await Workspace.open(flags.workspace ?? process.cwd())
    const log = stderrLogger({quiet: flags.quiet, prefix: 'ak exec'})
    const runtime = createExecRuntime({workspace, level, log})
    if (address) {
      log.info(`serving ${workspace.root} at level ${level} over HTTP`)
      // Loaded only here: the HTTP stack (node:http, node:http2, the SDK's Node transport) adds
      // about 100 ms to every stdio start-up that never uses it.
      const {serveExecHttp} = await import('../../exec/http/serve-http.js')
      await serveExecHttp(runtime, {
        address,
        token,
        ...(flags['session-idle-ms'] === undefined ? {} : {sessionIdleMs: flags['session-idle-ms']}),
      })
      return
    }
    log.info(`serving ${workspace.root} at level ${level} over stdio`)
    const end = await serveExecStdio(runtime)
    if (end.reason === 'transport-failed') throw transportFailed(end.message)
  }
}
