import {Args, Flags} from '@oclif/core'

import {BaseCommand} from '../../base-command.js'
import {allowProtectedFlag, levelFlag, sandboxFlags, workspaceFlag} from '../../exec-flags.js'
import {AllowedProtectedPaths, splitAllowProtectedFlag} from '../../exec/protected-paths.js'
import {EXIT_FAILURE} from '../../errors.js'
import {parseLevel} from '../../exec/level.js'
import {parseToolArgs} from '../../exec/tooling/tool-args.js'
import {parseSandboxPolicy} from '../../exec/terminal/sandbox-policy.js'
import {openSandbox} from '../../exec/terminal/sandbox.js'
import {callExecTool, resultText} from '../../exec/tooling/tool-call.js'
import {Workspace} from '../../exec/workspace.js'
import {stderrLogger} from '../../log.js'

export default class ExecCall extends BaseCommand {
  static override summary = 'Call one AgentExec tool from the terminal and print its answer.'

  static override description = `Runs one tool call through an MCP client connected to an AgentExec server in this process (the same server code as "exec serve"), prints the answer, and stops everything the call started.

Arguments are given as --arg key=value, once per argument. A value that parses as JSON is passed as JSON (numbers, true/false, null, arrays, objects, "quoted strings"); anything else is passed as a plain string. So --arg path=src passes "src", and --arg 'path="42"' passes the string "42".

The answer's text goes to stdout. When the tool answers with an error (isError), its text goes to stderr and the exit code is 1. With --json, the whole MCP result is printed on stdout either way.`

  static override examples = [
    {description: 'List the workspace root', command: '<%= config.bin %> <%= command.id %> list'},
    {description: 'List a folder of another workspace', command: '<%= config.bin %> <%= command.id %> list --workspace ~/src/app --arg path=src'},
    {description: 'The whole MCP result as JSON', command: '<%= config.bin %> <%= command.id %> list --arg path=. --json'},
    {
      description: 'Run a command in the sandbox a server would give it',
      command: `<%= config.bin %> <%= command.id %> exec_command --level terminal --sandbox workspace-write --arg 'cmd="touch /etc/x"'`,
    },
  ]

  static override args = {
    tool: Args.string({
      description: 'Name of the tool to call (see "exec tools").',
      required: true,
      ignoreStdin: true,
    }),
  }

  static override flags = {
    workspace: workspaceFlag,
    level: levelFlag('Access level of the server'),
    arg: Flags.string({
      char: 'a',
      description: 'A tool argument as key=value (JSON value, else string). Repeat for more.',
      multiple: true,
      multipleNonGreedy: true,
    }),
    ...sandboxFlags,
    'allow-protected': allowProtectedFlag,
  }

  async run(): Promise<void> {
    const {args, flags} = await this.parse(ExecCall)
    const level = parseLevel(flags.level)
    const sandboxPolicy = parseSandboxPolicy({sandbox: flags.sandbox, sandboxNetwork: flags['sandbox-network']})
    const allowedProtected = AllowedProtectedPaths.parse(splitAllowProtectedFlag(flags['allow-protected']), flags.workspace ?? process.cwd())
    const toolArgs = parseToolArgs(flags.arg ?? [])
    const workspace = await Workspace.open(flags.workspace ?? process.cwd())
    const log = stderrLogger({quiet: flags.quiet, prefix: 'ak exec'})
    const sandbox = await openSandbox(sandboxPolicy, {workspace: workspace.root, level, log})
    // The server's line for the call is held back: when the call fails, the error printed below
    // says it all, and printing both would show each error twice.
    const callLines: string[] = []
    const result = await callExecTool({
      workspace,
      level,
      tool: args.tool,
      args: toolArgs,
      log: {info: (line) => callLines.push(line), warn: (line) => log.warn(line)},
      sandbox,
      allowedProtected,
    })
    if (!result.isError) for (const line of callLines) log.info(line)
    if (flags.json) this.log(JSON.stringify(result, null, 2))
    else if (result.isError) process.stderr.write(`${resultText(result)}\n`)
    else this.log(resultText(result))
    if ((result.structuredContent as {exit_code?: unknown} | undefined)?.exit_code === 'running') {
      this.note(
        'ak exec call: note: the command was still running when the call answered, and ak exec call stopped it on exit ' +
          '(its session_id is no longer valid). Pass a longer yield_time_ms, or serve the workspace (ak exec serve) to keep commands running.',
      )
    }
    if (result.isError) this.exit(EXIT_FAILURE)
  }
}
