import {Args, Flags} from '@oclif/core'

import {OUTPUT_AND_PROMPT_FLAGS, BaseCommand, sharedFlagsHiding} from '../../base-command.js'
import {COMPLETION_SHELLS, type CompletionShell, completionSetupInstructions} from '../../cli/completion-setup.js'
import {BadInputError} from '../../errors.js'

export default class Autocomplete extends BaseCommand {
  static override summary = 'Write the shell completion files and show how to turn completion on.'

  static override description = `Writes the completion files for every shell under ak's cache folder ($XDG_CACHE_HOME/ak, by default ~/.cache/ak), then prints the one command that adds ak's set-up line to your shell's start-up file. Without SHELL, the shell is the one you run (from $SHELL).`

  static override examples = [
    {description: 'Set-up for the shell you run', command: '<%= config.bin %> <%= command.id %>'},
    {description: 'Set-up for bash', command: '<%= config.bin %> <%= command.id %> bash'},
    {description: 'Rewrite the completion files after upgrading ak', command: '<%= config.bin %> <%= command.id %> --refresh-cache'},
  ]

  static override args = {
    shell: Args.string({description: 'Shell to set up', options: [...COMPLETION_SHELLS], required: false}),
  }

  static override baseFlags = sharedFlagsHiding(OUTPUT_AND_PROMPT_FLAGS)

  static override flags = {
    'refresh-cache': Flags.boolean({char: 'r', description: 'Only rewrite the completion files (no instructions).'}),
  }

  async run(): Promise<void> {
    const {args, flags} = await this.parse(Autocomplete)
    this.noteIgnoredSharedFlags(flags, 'the completion set-up', 'it writes files and prints instructions for a person')
    const shell = args.shell ?? this.config.shell
    if (!flags['refresh-cache'] && !isCompletionShell(shell)) {
      throw new BadInputError(`ak cannot set up completion for the shell "${shell}". Name one: ${COMPLETION_SHELLS.map((name) => `ak autocomplete ${name}`).join(', ')}.`)
    }
    await this.config.runCommand('autocomplete:create')
    if (!flags['refresh-cache']) this.log(completionSetupInstructions(this.config.bin, shell as CompletionShell))
  }
}

function isCompletionShell(name: string): name is CompletionShell {
  return (COMPLETION_SHELLS as readonly string[]).includes(name)
}
