import {Flags} from '@oclif/core'

import {BaseCommand} from '../../base-command.js'
import {BadInputError} from '../../errors.js'
import {stderrLogger} from '../../log.js'
import {DEFAULT_LEVEL, LEVELS, parseLevel} from '../../exec/level.js'
import {createExecRuntime} from '../../exec/runtime.js'
import {serveExecStdio} from '../../exec/stdio.js'
import {Workspace} from '../../exec/workspace.js'

export default class ExecServe extends BaseCommand {
  static override summary = 'Serve AgentExec: files and a terminal confined to one workspace, over MCP.'

  static override description = `Serves the AgentExec MCP server over stdio until stdin closes or SIGINT/SIGTERM arrives.
stdout carries MCP frames only; one line per tool call is logged on stderr (silenced by --quiet).

Levels, each containing the one before: read (read, list, search), files (adds edit),
terminal (adds exec_command and write_stdin).

The file tools check that paths stay inside the workspace, but this is not a security boundary:
at the terminal level a command can do anything the server's user can. Run it somewhere safe.`

  static override examples = [
    {description: 'Serve the current folder read-only over stdio', command: '<%= config.bin %> <%= command.id %>'},
    {description: 'Let an agent edit files in a project', command: '<%= config.bin %> <%= command.id %> --workspace ~/src/app --level files'},
  ]

  static override flags = {
    workspace: Flags.string({
      char: 'w',
      description: 'Folder the tools are confined to. Default: the current directory.',
    }),
    level: Flags.string({
      char: 'l',
      description: `Access level: ${LEVELS.join(' | ')}.`,
      options: [...LEVELS],
      default: DEFAULT_LEVEL,
    }),
  }

  // No positional arguments: oclif would read stdin to fill them and eat the first MCP frame.
  static override args = {}

  async run(): Promise<void> {
    const {flags} = await this.parse(ExecServe)
    this.noteIgnoredSharedFlags(flags, 'ak exec serve', 'stdout carries MCP frames only and it never prompts')
    const level = parseLevel(flags.level)
    if (level === 'terminal') {
      throw new BadInputError('The terminal level is not available in this version. Use --level read or --level files.')
    }
    const workspace = await Workspace.open(flags.workspace ?? process.cwd())
    const log = stderrLogger({quiet: flags.quiet, prefix: 'ak exec'})
    const runtime = createExecRuntime({workspace, level, log})
    log.info(`serving ${workspace.root} at level ${level} over stdio`)
    await serveExecStdio(runtime)
  }
}
