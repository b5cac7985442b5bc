import {Flags} from '@oclif/core'

import {BaseCommand} from '../../base-command.js'
import {DEFAULT_SERVER_NAME, REGISTERED_TOOL_TIMEOUT_SEC, SERVER_NAME_MAX_CHARS} from '../../codex/limits.js'
import {applyConfigChange, checkServerName, planRegister} from '../../codex/registration.js'
import {resolveRoots} from '../../codex/roots.js'
import {confirmChange} from '../../confirm.js'
import {DispatchFailedError} from '../../errors.js'
import {CODEX_APPROVAL_ASKING, CODEX_APPROVAL_KEY, CODEX_APPROVAL_WITHOUT_ASKING} from '../../launch/codex-tool-approval.js'
import {AK_PACKAGE} from '../../launch/config-launch.js'
import {CODEX_STARTUP_TIMEOUT_SEC} from '../../launch/codex-server-start.js'
import {agentRuntimeRelatedCommands} from '../../related-commands.js'

export default class CodexAgentRuntimeRegister extends BaseCommand {
  static override summary = "Add this runtime to Codex's config.toml as an MCP server."

  static override description = `Adds [mcp_servers.<name>] to <codex-home>/config.toml so Codex starts \`ak codex-agent-runtime serve\`. From a clone the entry names absolute paths (the Node.js binary running ak and ak's entry file, because Codex starts MCP servers with a reduced environment); from an installed ${AK_PACKAGE} it names the ak bin when PATH finds this install's, else the absolute Node.js binary and the installed ak file. It passes --codex-home and --plugin-root explicitly, forwards the provider API key variables that are set now with env_vars, sets required = true and startup_timeout_sec = ${CODEX_STARTUP_TIMEOUT_SEC} (Codex then waits for the runtime on a busy machine and stops with an error when it cannot start, instead of running without it), sets tool_timeout_sec = ${REGISTERED_TOOL_TIMEOUT_SEC}, and sets ${CODEX_APPROVAL_KEY} = "${CODEX_APPROVAL_WITHOUT_ASKING}" under a comment: agent tools need approval in Codex, and codex exec, which cannot ask, would decline every agent call without it (set "${CODEX_APPROVAL_ASKING}" instead to have Codex ask).

Only that entry is written: comments, order and spacing of the rest of the file stay as they were. Over an existing entry of this runtime, only the keys ak owns change (command, args, and tool_timeout_sec when it is shorter; env_vars, required, the start-up timeout and ${CODEX_APPROVAL_KEY} only when the entry has none, so a value you set is kept, and a mode said so): the user's other keys, comments and subtables stay byte for byte. The preview is a diff of the file. A copy of the previous file is kept next to it (config.toml.bak-<time>). A file that does not parse is refused, and so is a name another server uses. Asks for confirmation unless --yes; with --no-interactive it never asks and fails without --yes.

${agentRuntimeRelatedCommands('register')}`

  static override examples = [
    {description: 'Register with the default name', command: '<%= config.bin %> <%= command.id %>'},
    {description: 'Register under another name without a question', command: '<%= config.bin %> <%= command.id %> --name team --yes'},
  ]

  static override flags = {
    'codex-home': Flags.string({description: 'Codex home whose config.toml is edited. Default: $CODEX_HOME, else ~/.codex.'}),
    'plugin-root': Flags.string({description: 'Plugin root the server will use. Default: $AGENTKIT_PLUGIN_DIR, else ~/.claude/plugins.'}),
    name: Flags.string({description: `Server name in config.toml (letters, digits, _ and -, at most ${SERVER_NAME_MAX_CHARS} characters).`, default: DEFAULT_SERVER_NAME}),
  }

  async run(): Promise<void> {
    const {flags} = await this.parse(CodexAgentRuntimeRegister)
    const name = checkServerName(flags.name)
    const roots = resolveRoots({codexHome: flags['codex-home'], pluginRoot: flags['plugin-root']})
    const change = await planRegister(roots, name)
    if (change.keptApprovalMode !== undefined && !flags.json && !flags.quiet) {
      this.note(
        `Kept your ${CODEX_APPROVAL_KEY} = ${JSON.stringify(change.keptApprovalMode)} in [mcp_servers.${name}]: Codex asks before each agent call, and codex exec, ` +
          `which cannot ask, declines them. Set it to "${CODEX_APPROVAL_WITHOUT_ASKING}" to run them without asking.`,
      )
    }
    if (change.action === 'none') {
      this.report(flags, {action: 'none', configPath: change.configPath, name}, `${change.configPath} already registers this runtime as "${name}"; nothing changed.`)
      return
    }
    if (!flags.json && !flags.quiet) {
      process.stderr.write(`${change.action === 'add' ? 'Adding to' : 'Updating in'} ${change.configPath}:\n\n${change.diff}\n`)
    }
    if (!(await confirmChange(`Write this entry to ${change.configPath}?`, flags))) {
      throw new DispatchFailedError('Not confirmed; nothing was changed.')
    }
    const {backupPath} = await applyConfigChange(change)
    this.report(
      flags,
      {action: change.action, configPath: change.configPath, name, backupPath: backupPath ?? null, entry: change.block, diff: change.diff},
      `Registered "${name}" in ${change.configPath}${backupPath ? ` (previous file kept as ${backupPath})` : ''}. Restart Codex to load it.`,
    )
  }

  private report(flags: {json?: boolean; quiet?: boolean}, document: Record<string, unknown>, line: string): void {
    if (flags.json) process.stdout.write(`${JSON.stringify(document, null, 2)}\n`)
    else if (!flags.quiet) process.stdout.write(`${line}\n`)
  }
}
