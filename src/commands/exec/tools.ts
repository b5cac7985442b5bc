import {BaseCommand} from '../../base-command.js'
import {levelFlag} from '../../exec-flags.js'
import {parseLevel} from '../../exec/level.js'
import {formatToolCatalog, listExecToolDefinitions} from '../../exec/tooling/tool-catalog.js'
import {Workspace} from '../../exec/workspace.js'

export default class ExecTools extends BaseCommand {
  static override summary = 'List the tools an AgentExec level offers, with their descriptions and arguments.'

  static override description = `Starts an AgentExec server in this process (nothing is served or run) and prints what its tools/list answers: each tool's name, title, description and arguments.

With --json, prints the MCP tool definitions exactly as a client receives them: names, titles, descriptions, input and output JSON Schemas, and annotations.`

  static override examples = [
    {description: 'The tools of the default level (read)', command: '<%= config.bin %> <%= command.id %>'},
    {description: 'What --level files adds', command: '<%= config.bin %> <%= command.id %> --level files'},
    {description: 'The MCP definitions as JSON', command: '<%= config.bin %> <%= command.id %> --level files --json'},
  ]

  static override flags = {
    level: levelFlag('Access level whose tools to list'),
  }

  async run(): Promise<void> {
    const {flags} = await this.parse(ExecTools)
    const level = parseLevel(flags.level)
    const tools = await listExecToolDefinitions(level, await Workspace.open(process.cwd()))
    this.log(flags.json ? JSON.stringify({level, tools}, null, 2) : formatToolCatalog(level, tools))
  }
}
