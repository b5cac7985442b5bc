import {Args, Flags} from '@oclif/core'

import {BaseCommand} from '../../base-command.js'
import {inspectAgent, renderAgentReport} from '../../codex/inspect.js'
import {createCodexAgentRuntime} from '../../codex/runtime.js'
import {isValidSlug} from '../../codex/slug.js'
import {SLUG_MAX_CHARS} from '../../codex/limits.js'
import {BadInputError} from '../../errors.js'
import {stderrLogger} from '../../log.js'
import {agentRuntimeRelatedCommands} from '../../related-commands.js'

export default class CodexAgentRuntimeInspect extends BaseCommand {
  static override summary = 'Show where an agent comes from, its parsed policy and the exact `codex exec` a call runs.'

  static override description = `Runs the same discovery as \`serve\` from the working directory, then reports the agent <slug>: its origin (project, user or kit), its file, its parsed policy (sandbox, model, reasoning effort, instructions, MCP servers) and the exact command line a call without \`tools\` would start. Nothing is run.

The output names paths and may quote configuration: review it before sharing it.

${agentRuntimeRelatedCommands('inspect')}`

  static override examples = [
    {description: 'Inspect the agent served as agent_reviewer', command: '<%= config.bin %> <%= command.id %> reviewer'},
    {description: 'The same report as JSON', command: '<%= config.bin %> <%= command.id %> reviewer --json'},
  ]

  static override args = {
    slug: Args.string({description: 'The agent slug (its file name without .toml).', required: true}),
  }

  static override flags = {
    'codex-home': Flags.string({description: 'Codex home. Default: $CODEX_HOME, else ~/.codex.'}),
    'plugin-root': Flags.string({description: 'Folder of staged kits. Default: $AGENTKIT_PLUGIN_DIR, else ~/.claude/plugins.'}),
  }

  async run(): Promise<void> {
    const {args, flags} = await this.parse(CodexAgentRuntimeInspect)
    if (!isValidSlug(args.slug)) {
      throw new BadInputError(`"${args.slug}" is not an agent slug: use [a-z0-9][a-z0-9_-]*, at most ${SLUG_MAX_CHARS} characters (the file name without .toml).`)
    }
    const log = stderrLogger({quiet: flags.quiet, prefix: 'ak codex-agent-runtime'})
    const runtime = await createCodexAgentRuntime({codexHome: flags['codex-home'], pluginRoot: flags['plugin-root'], log})
    for (const note of runtime.discovery.notes) log.info(note)
    const report = await inspectAgent(runtime, args.slug)
    process.stdout.write(flags.json ? `${JSON.stringify(report, null, 2)}\n` : renderAgentReport(report))
  }
}
