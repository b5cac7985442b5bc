import {BaseCommand} from '../../base-command.js'
import {journalFolderFlag, workspaceFlag} from '../../exec-flags.js'
import {formatHistory, readHistory} from '../../exec/journal/history.js'
import {Journal} from '../../exec/journal/journal.js'
import {Workspace} from '../../exec/workspace.js'

export default class ExecHistory extends BaseCommand {
  static override summary = "List the changes AgentExec's file tools made in a workspace, newest first."

  static override description = `Every change that edit makes (a replacement, a created file, and each file of a patch: updated, added, moved, deleted) is recorded in the workspace's journal before it is made, with the content each file had before. This lists the changes the journal holds, newest first: the id to give "exec undo", when it was made, which tool made it, how many bytes the journal keeps to undo it, and which files it touched. An undone change says which undo reverted it.

The journal lives in the user's state folder ($XDG_STATE_HOME/ak, else ~/.local/state/ak), outside the workspace, private to the user; it keeps 256 MiB of changes by default (ak exec serve --journal-max-mib), the oldest going first. Commands run by exec_command at the terminal level are not recorded.

A change a crash cut short is settled first: listed as applied when every file is as it left them.`

  static override examples = [
    {description: 'The changes made in the current folder', command: '<%= config.bin %> <%= command.id %>'},
    {description: 'Of another workspace, as JSON', command: '<%= config.bin %> <%= command.id %> --workspace ~/src/app --json'},
  ]

  static override flags = {
    workspace: workspaceFlag,
    'journal-folder': journalFolderFlag,
  }

  async run(): Promise<void> {
    const {flags} = await this.parse(ExecHistory)
    const workspace = await Workspace.open(flags.workspace ?? process.cwd())
    const journal = new Journal(workspace.root, flags['journal-folder'] === undefined ? {} : {folder: flags['journal-folder']})
    try {
      const history = await readHistory(journal, workspace)
      process.stdout.write(flags.json ? `${JSON.stringify(history, null, 2)}\n` : formatHistory(history))
    } finally {
      await journal.close()
    }
  }
}
