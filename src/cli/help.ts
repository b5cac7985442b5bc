import {Errors, Help} from '@oclif/core'

import {EXIT_USAGE} from '../errors.js'
import {unknownCommandMessage} from './unknown-command.js'

/**
 * ak's help (oclif's `helpClass`): oclif's, except that help for something that is no command or
 * topic (`ak help foo`, `ak exec srve --help`) answers like a mistyped command does: one line on
 * stderr with the closest command, in ak's spelling (`exec serve`, never the id `exec:serve`),
 * and exit code 2.
 */
export default class AkHelp extends Help {
  override async showHelp(argv: string[]): Promise<void> {
    const words = argv.filter((arg) => !arg.startsWith('-'))
    const id = words.join(':')
    if (words.length > 0 && !this.config.findTopic(id) && !this.namesCommand(words)) {
      process.stderr.write(`Error: ${unknownCommandMessage(this.config, id, {asHelpFor: true})}\n`)
      Errors.exit(EXIT_USAGE)
    }
    await super.showHelp(argv)
  }

  /** True when some leading words name a command (the words after it are its arguments). */
  private namesCommand(words: string[]): boolean {
    for (let length = words.length; length > 0; length--) {
      if (this.config.findCommand(words.slice(0, length).join(':'))) return true
    }
    return false
  }
}
