import {Flags} from '@oclif/core'
import {escapeControls} from '../../text-escape.js'

import {ALL_SHARED_FLAGS, BaseCommand, sharedFlagsHiding} from '../../base-command.js'
import {AGENT_DEPTH_ENV, isTooDeep} from '../../codex/agent-depth.js'
import {renderAgentList} from '../../codex/list-output.js'
import {
  DEFAULT_MAX_DISPATCHES,
  DISPATCH_STDERR_MAX_BYTES,
  DISPATCH_STDOUT_MAX_BYTES,
  MAX_DISPATCHES_LIMIT,
  SLUG_MAX_CHARS,
} from '../../codex/limits.js'
import {createCodexAgentRuntime} from '../../codex/runtime.js'
import {serveCodexAgentStdio} from '../../codex/stdio.js'
import {transportFailed} from '../../mcp/stdio-transport.js'
import {stderrLogger} from '../../log.js'
import {AK_VERSION} from '../../version.js'
import {agentRuntimeRelatedCommands} from '../../related-commands.js'

export default class CodexAgentRuntimeServe extends BaseCommand {
  static override summary = 'List the Codex agents found, or serve each as an MCP tool that runs a fresh `codex exec`.'

  static override description = `Finds Codex agent files (TOML) in three places and serves each as the MCP tool agent_<slug> over stdio:
1. project agents: the nearest .codex/agents/ at or above the working directory (the search stops at the repository root, before your home folder, and at /), served only when <codex-home>/config.toml trusts the project folder or its repository root; ak never writes trust;
2. user agents: <codex-home>/agents/;
3. staged kit agents: <plugin-root>/<kit>/.codex/agents/.
A project agent replaces a user agent of the same slug; a user agent beats a kit agent; between kits the first kit by name wins. Agent file names must be slugs ([a-z0-9][a-z0-9_-]*, at most ${SLUG_MAX_CHARS} characters).

Serving: stdout carries MCP frames only; the startup line and notes go to stderr. Each call re-reads the agent file, checks the request against its policy and runs \`codex exec\` in the working directory with CODEX_HOME set and the prompt on stdin; its final message is the answer, a failure is a tool error with Codex's stderr. At most --max-dispatches runs at once (others wait); output is capped at ${DISPATCH_STDOUT_MAX_BYTES} bytes of stdout and the last ${DISPATCH_STDERR_MAX_BYTES} bytes of stderr. Cancelling a call or disconnecting stops the run and everything it started.

A dispatched agent can use the network and change files inside Codex's sandbox; its instructions and the prompt go to the model provider unredacted. \`codex\` is not checked at start: a missing binary is a tool error at call time.

--list-only prints the discovery as plain text (even with --json). Paths and names in it can be sensitive: review it before pasting it into a support request.

Exit codes: 0 list printed, client disconnected, or stopped by SIGINT, SIGTERM or SIGHUP; 1 a root cannot be read, discovery or the MCP transport failed; 2 invalid arguments or flags. An agent's failure is inside the MCP result, never the exit code. --json, --quiet, --yes and --no-interactive change nothing here.

${agentRuntimeRelatedCommands('serve')}`

  static override examples = [
    {description: 'See which agents would be served from here', command: '<%= config.bin %> <%= command.id %> --list-only'},
    {description: 'Serve agents over stdio with another Codex home', command: '<%= config.bin %> <%= command.id %> --codex-home ~/work/.codex'},
  ]

  static override flags = {
    'codex-home': Flags.string({description: 'Codex home: config.toml (project trust) and user agents in agents/. Default: $CODEX_HOME, else ~/.codex.'}),
    'plugin-root': Flags.string({description: 'Folder of staged kits (<kit>/.codex/agents/). Default: $AGENTKIT_PLUGIN_DIR, else ~/.claude/plugins.'}),
    'list-only': Flags.boolean({description: 'Print what discovery found and exit without opening MCP.'}),
    'max-dispatches': Flags.integer({
      description: `Agent runs at once; further calls wait for a free slot (1 to ${MAX_DISPATCHES_LIMIT}).`,
      min: 1,
      max: MAX_DISPATCHES_LIMIT,
      default: DEFAULT_MAX_DISPATCHES,
    }),
  }

  static override baseFlags = sharedFlagsHiding(ALL_SHARED_FLAGS)

  // No positional arguments: oclif would read stdin to fill them and eat the first MCP frame.
  static override args = {}

  async run(): Promise<void> {
    const {flags} = await this.parse(CodexAgentRuntimeServe)
    const log = stderrLogger({prefix: 'ak codex-agent-runtime'})
    this.noteIgnoredSharedFlags(
      flags,
      flags['list-only'] ? 'the --list-only report' : 'ak codex-agent-runtime serve',
      flags['list-only'] ? 'it is plain text for people' : 'stdout carries MCP frames only and it never prompts',
      ALL_SHARED_FLAGS,
    )
    const runtime = await createCodexAgentRuntime({
      codexHome: flags['codex-home'],
      pluginRoot: flags['plugin-root'],
      maxDispatches: flags['max-dispatches'],
      log,
    })
    for (const note of runtime.discovery.notes) log.info(note)
    if (isTooDeep(runtime.agentDepth)) log.info(`note: started inside an agent run that ak dispatched (${AGENT_DEPTH_ENV}=${runtime.agentDepth.depth} in ${runtime.agentDepth.source}); every agent call is refused, as agents may not start agents`)
    if (flags['list-only']) {
      process.stdout.write(renderAgentList(runtime.discovery))
      return
    }
    const count = runtime.discovery.agents.length
    log.info(`ak ${AK_VERSION} serving ${count} agent${count === 1 ? '' : 's'} over stdio from ${escapeControls(runtime.cwd)}`)
    const end = await serveCodexAgentStdio(runtime)
    if (end.reason === 'transport-failed') throw transportFailed(end.message)
  }
}
