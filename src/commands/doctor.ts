import {Flags} from '@oclif/core'
import {homedir} from 'node:os'

import {BaseCommand} from '../base-command.js'
import {EXIT_FAILURE} from '../errors.js'
import {runDoctor} from '../doctor/doctor.js'
import {formatDoctorReport} from '../doctor/report.js'

export default class Doctor extends BaseCommand {
  static override summary = 'Check that ak, Node.js and Codex are set up, and say how to fix what is not.'

  static override description = `Prints the checks grouped by server, so each part can be read alone: one line per check, "ok", "warn" or "fail", with what was found, a "note:" line per further finding, and under each problem the command or step that fixes it (repeating the --codex-home and --plugin-root given here). ak: the Node.js version (22.15 or later). AgentExec: that "ak exec serve" starts on the current folder the way an MCP client would start it (absolute paths, reduced environment); whether Codex would decline the tools of the AgentExec entries in its config.toml (at files or terminal without default_tools_approval_mode = "approve", codex exec declines edit and the terminal tools, since it cannot ask). That the AgentExec entries in the config files of Gemini CLI, OpenCode, Cursor, Windsurf and Zed (each one's user file and the current project's) start the way the client starts them, and that a Gemini CLI entry has "trust": true. Codex agent runtime: codex on PATH and its version; the Codex home and that its config.toml parses; whether Codex trusts the current project's agents (only where there is a .codex/agents); whether the runtime is registered in config.toml with tool_timeout_sec of at least 600, starts the way Codex starts it, and has the approval mode that lets codex exec run agent calls; the plugin root; the agents discovery finds from the current folder.

Exits 1 when any check fails (warnings do not). With --quiet only the problems are printed. The report names paths of this machine; check it before sharing it.`

  static override examples = [
    {description: 'Check this machine and the current project', command: '<%= config.bin %> <%= command.id %>'},
    {description: 'Only the problems', command: '<%= config.bin %> <%= command.id %> --quiet'},
    {description: 'The report as one JSON document', command: '<%= config.bin %> <%= command.id %> --json'},
    {description: 'Check another Codex home', command: '<%= config.bin %> <%= command.id %> --codex-home ~/work/.codex'},
  ]

  static override flags = {
    'codex-home': Flags.string({description: 'Codex home to check: config.toml and agents/. Default: $CODEX_HOME, else ~/.codex.'}),
    'plugin-root': Flags.string({description: 'Folder of staged kits to check. Default: $AGENTKIT_PLUGIN_DIR, else ~/.claude/plugins.'}),
  }

  async run(): Promise<void> {
    const {flags} = await this.parse(Doctor)
    const report = await runDoctor({
      cwd: process.cwd(),
      env: process.env,
      homeDir: homedir(),
      codexHome: flags['codex-home'],
      pluginRoot: flags['plugin-root'],
    })
    if (flags.json) this.log(JSON.stringify(report, null, 2))
    else {
      const text = formatDoctorReport(report, {onlyProblems: flags.quiet})
      if (text) this.log(text)
    }
    if (!report.ok) this.exit(EXIT_FAILURE)
  }
}
