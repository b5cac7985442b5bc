import {Args} from '@oclif/core'

import {BaseCommand, usageError} from '../../base-command.js'
import {confirmChange} from '../../confirm.js'
import {DispatchFailedError} from '../../errors.js'
import {allowProtectedFlag, journalFolderFlag, workspaceFlag} from '../../exec-flags.js'
import {recoverInterruptedChanges} from '../../exec/files/change-recovery.js'
import {Journal} from '../../exec/journal/journal.js'
import {createExecRuntime} from '../../exec/runtime.js'
import {stderrLogger} from '../../log.js'
import {applyUndo, describeUndoPlan, planUndo} from '../../exec/journal/undo.js'
import {AllowedProtectedPaths, splitAllowProtectedFlag} from '../../exec/protected-paths.js'
import {Workspace} from '../../exec/workspace.js'

export default class ExecUndo extends BaseCommand {
  static override summary = "Revert the newest change AgentExec's file tools made in a workspace, or every change down to ID."

  static override description = `Puts back, byte for byte and with their modes, the files of the newest change still in effect (see "exec history"), or of every change from the newest down to ID: an updated file gets its old content, a created file is removed, a deleted file comes back, a moved file moves back. Repeated, it walks back one change at a time.

It first shows what it will do and asks, unless --yes; with --no-interactive it never asks and fails without --yes. It refuses, with exit code 1 and nothing changed, when a file was changed since by something else (a command, an editor, a later change not recorded), naming each file and why, so an undo never overwrites later work. It refuses the same way to write a protected path (see --allow-protected): a path that was ordinary when the change was made may be a repository's config or hook now.

The undo is recorded as a change of its own: "exec undo <its id>" reverts it. It works whether or not servers run on the workspace: it takes the same lock of each file that their edits take. Commands run by exec_command at the terminal level are not recorded, and cannot be undone this way.`

  static override examples = [
    {description: 'Revert the newest change, after a question', command: '<%= config.bin %> <%= command.id %>'},
    {description: 'Revert changes 12 and everything after it, without a question', command: '<%= config.bin %> <%= command.id %> 12 --yes'},
  ]

  static override args = {
    id: Args.string({
      description: 'Revert every change from the newest down to this one (an id "exec history" lists). Default: the newest change still in effect.',
      required: false,
      ignoreStdin: true,
    }),
  }

  static override flags = {
    workspace: workspaceFlag,
    'journal-folder': journalFolderFlag,
    'allow-protected': allowProtectedFlag,
  }

  async run(): Promise<void> {
    const {args, flags} = await this.parse(ExecUndo)
    if (args.id !== undefined && !/^[1-9]\d{0,15}$/.test(args.id)) usageError(`"${args.id}" is not a change id: ids are whole numbers from 1, as "ak exec history" lists them.`)
    const workspace = await Workspace.open(flags.workspace ?? process.cwd())
    const allowed = AllowedProtectedPaths.parse(splitAllowProtectedFlag(flags['allow-protected']), workspace.root)
    const journal = new Journal(workspace.root, flags['journal-folder'] === undefined ? {} : {folder: flags['journal-folder']})
    try {
      // A change a killed server left half-made is rolled back first, as a server starting here would.
      await recoverInterruptedChanges(createExecRuntime({workspace, level: 'files', changeLog: journal, log: stderrLogger({quiet: flags.quiet || flags.json, prefix: 'ak exec undo'})}))
      const plan = await planUndo(journal, workspace, args.id === undefined ? undefined : Number(args.id))
      if (!flags.json && !flags.quiet) process.stderr.write(describeUndoPlan(plan))
      if (!(await confirmChange('Undo?', flags))) throw new DispatchFailedError('Not confirmed; nothing was changed.')
      const result = await applyUndo(journal, workspace, plan, allowed)
      if (flags.json) process.stdout.write(`${JSON.stringify({undone: plan.ids, id: Number(result.id), files: result.paths}, null, 2)}\n`)
      else if (!flags.quiet) process.stdout.write(`Undone ${plan.ids.length === 1 ? `change ${plan.ids[0]}` : `changes ${plan.ids.join(', ')}`}; recorded as change ${result.id} ("ak exec undo ${result.id}" reverts it).\n`)
    } finally {
      await journal.close()
    }
  }
}
