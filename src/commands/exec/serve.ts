import {Flags} from '@oclif/core'

import {BaseCommand} from '../../base-command.js'
import {levelFlag, sandboxFlags, workspaceFlag} from '../../exec-flags.js'
import {BadInputError} from '../../errors.js'
import {stderrLogger} from '../../log.js'
import {parseLevel} from '../../exec/level.js'
import {createExecRuntime} from '../../exec/runtime.js'
import {TOKEN_ENV} from '../../exec/http/bearer-token.js'
import {parseListenAddress} from '../../exec/http/listen-address.js'
import {HTTP_SESSION_IDLE_MS} from '../../exec/limits.js'
import {serveExecStdio} from '../../exec/stdio.js'
import {transportFailed} from '../../mcp/stdio-transport.js'
import {Workspace} from '../../exec/workspace.js'
import {describeSandbox, parseSandboxPolicy} from '../../exec/terminal/sandbox-policy.js'

export default class ExecServe extends BaseCommand {
  static override summary = 'Serve AgentExec: files and a terminal confined to one workspace, over MCP.'

  static override description = `Serves the AgentExec MCP server over stdio until stdin closes or SIGINT/SIGTERM arrives. stdout carries MCP frames only; one line per tool call is logged on stderr (silenced by --quiet).

With --http HOST:PORT it serves Streamable HTTP at http://HOST:PORT/mcp instead, until SIGINT/SIGTERM. HOST must be loopback (127.0.0.0/8, ::1, localhost) because there is no TLS. Every request must carry "Authorization: Bearer $${TOKEN_ENV}", and a request whose Host or Origin is not loopback gets 403. A 2025-era client gets a session that expires after ${HTTP_SESSION_IDLE_MS / 60_000} minutes without a request, which stops its commands. To serve other machines, use createAgentExec (library mode) behind your own HTTPS.

Levels, each containing the one before: read (read, list, search), files (adds edit), terminal (adds exec_command and write_stdin).

The file tools check that paths stay inside the workspace, but without a sandbox this is not a security boundary: at the terminal level a command can do anything the server's user can. With --sandbox workspace-write (Linux, needs bubblewrap) commands can write only inside the workspace and a private /tmp, have no network unless --sandbox-network is given, and leave no process behind; --sandbox read-only allows no writes at all. Reads are not confined.`

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

  static override flags = {
    workspace: workspaceFlag,
    level: levelFlag('Access level'),
    ...sandboxFlags,
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
    const sandboxPolicy = parseSandboxPolicy({sandbox: flags.sandbox, sandboxNetwork: flags['sandbox-network']})
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
    // Loaded only with a sandbox: plain start-up never needs it.
    const sandbox =
      sandboxPolicy.mode === 'off'
        ? undefined
        : await (await import('../../exec/terminal/sandbox.js')).openSandbox(sandboxPolicy, {workspace: workspace.root, level, log})
    const runtime = createExecRuntime({workspace, level, log, sandbox})
    if (runtime.sandbox.mode !== 'off') log.info(describeSandbox(runtime.sandbox))
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
