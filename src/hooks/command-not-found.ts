import {Errors, type Hook, toConfiguredId} from '@oclif/core'
import suggestInteractively from '@oclif/plugin-not-found'

import {suggestCommand, unknownCommandMessage} from '../cli/unknown-command.js'
import {EXIT_USAGE} from '../errors.js'

/**
 * What ak does with a command line that names no command (oclif's `command_not_found` hook).
 * All cases are invalid arguments, so they exit 2 (not oclif's 127) with one line on stderr:
 * - a flag where a command should be (`ak --bogus`);
 * - a known command followed by words it does not take (`ak exec serve extra`): names them;
 * - an unknown command or topic (`ak exec srve`, `ak exce`): suggests the closest command or
 *   topic. In an interactive terminal (and without `--no-interactive`), `@oclif/plugin-not-found`
 *   first asks whether to run a suggested command instead.
 */
const hook: Hook.CommandNotFound = async function (options) {
  const {config, id} = options
  const argv = options.argv ?? []
  const bin = config.bin
  if (id.startsWith('-')) fail(`Unknown flag "${id}" before a command. Run "${bin} --help" for the commands.`)
  const words = id.split(':')
  for (let length = words.length - 1; length > 0; length--) {
    const commandId = words.slice(0, length).join(':')
    if (config.findCommand(commandId)) {
      const command = toConfiguredId(commandId, config)
      const extra = words.slice(length).join(' ')
      fail(`"${bin} ${command}" takes no argument "${extra}". Run "${bin} ${command} --help" for its usage.`)
    }
  }
  const suggestion = suggestCommand(config, id)
  const message = unknownCommandMessage(config, id)
  const isCommand = suggestion !== undefined && config.findCommand(suggestion) !== undefined
  if (isCommand && process.stdin.isTTY && process.stderr.isTTY && !argv.includes('--no-interactive')) {
    // The plugin prompts "Did you mean …?" and runs the suggestion when confirmed; when declined
    // it calls `error`, which becomes the same exit 2 as the non-interactive path. It is given
    // ak's suggestion as the id, so that it offers the same command (its own closest match only
    // looks at whole command ids). A topic is suggested without the prompt: there is nothing to run.
    return suggestInteractively.call(
      {...this, warn() {}, error: () => fail(message)},
      {...options, id: suggestion, argv},
    )
  }
  fail(message)
}

export default hook

function fail(message: string): never {
  process.stderr.write(`Error: ${message}\n`)
  Errors.exit(EXIT_USAGE)
}
