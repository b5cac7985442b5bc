import {Flags} from '@oclif/core'

import {BaseCommand} from '../../base-command.js'
import {DEFAULT_SERVER_NAME} from '../../codex/limits.js'
import {applyConfigChange, checkServerName, planUnregister} from '../../codex/registration.js'
import {resolveRoots} from '../../codex/roots.js'
import {confirmChange} from '../../confirm.js'
import {DispatchFailedError} from '../../errors.js'
import {agentRuntimeRelatedCommands} from '../../related-commands.js'

export default class CodexAgentRuntimeUnregister extends BaseCommand {
  static override summary = "Remove this runtime's MCP server entry from Codex's config.toml."

  static override description = `Removes [mcp_servers.<name>] (and its subtables) from <codex-home>/config.toml when it starts this runtime; an entry running anything else is left alone. Every other byte of the file stays as it was, and a copy of the previous file is kept next to it (config.toml.bak-<time>). A file that does not parse is refused. Asks for confirmation unless --yes; with --no-interactive it never asks and fails without --yes.

${agentRuntimeRelatedCommands('unregister')}`

  static override examples = [
    {description: 'Remove the default entry', command: '<%= config.bin %> <%= command.id %> --yes'},
  ]

  static override flags = {
    'codex-home': Flags.string({description: 'Codex home whose config.toml is edited. Default: $CODEX_HOME, else ~/.codex.'}),
    name: Flags.string({description: 'Server name in config.toml.', default: DEFAULT_SERVER_NAME}),
  }

  async run(): Promise<void> {
    const {flags} = await this.parse(CodexAgentRuntimeUnregister)
    const name = checkServerName(flags.name)
    const {codexHome} = resolveRoots({codexHome: flags['codex-home']})
    const change = await planUnregister(codexHome, name)
    if (change.action === 'none') {
      this.report(flags, {action: 'none', configPath: change.configPath, name}, `${change.configPath} has no MCP server "${name}"; nothing changed.`)
      return
    }
    if (!flags.json && !flags.quiet) process.stderr.write(`Removing from ${change.configPath}:\n\n${change.diff}\n`)
    if (!(await confirmChange(`Remove this entry from ${change.configPath}?`, flags))) {
      throw new DispatchFailedError('Not confirmed; nothing was changed.')
    }
    const {backupPath} = await applyConfigChange(change)
    this.report(
      flags,
      {action: 'remove', configPath: change.configPath, name, backupPath: backupPath ?? null},
      `Removed "${name}" from ${change.configPath} (previous file kept as ${backupPath}). Restart Codex to apply it.`,
    )
  }

  private report(flags: {json?: boolean; quiet?: boolean}, document: Record<string, unknown>, line: string): void {
    if (flags.json) process.stdout.write(`${JSON.stringify(document, null, 2)}\n`)
    else if (!flags.quiet) process.stdout.write(`${line}\n`)
  }
}
