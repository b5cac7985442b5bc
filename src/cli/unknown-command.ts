import {type Interfaces, toConfiguredId} from '@oclif/core'

import {closestCommandId} from './suggest.js'

type Config = Interfaces.Config

/** What a mistyped command word is compared with: visible command ids, their aliases, and topics. */
export function knownCommandIds(config: Config): string[] {
  const commands = config.commands.filter((command) => !command.hidden)
  const topics = config.topics.filter((topic) => !topic.hidden)
  return [...commands.map((command) => command.id), ...commands.flatMap((command) => command.aliases), ...topics.map((topic) => topic.name)]
}

/**
 * The closest command or topic to the unknown `id` (colon-separated, e.g. `exec:srve`), or
 * undefined when none is close (see `closestCommandId`).
 */
export function suggestCommand(config: Config, id: string): string | undefined {
  return closestCommandId(id, knownCommandIds(config))
}

/**
 * The one-line error for `id`, which names no command or topic: says so, suggests the closest
 * one, and says where the list is. `asHelpFor` words it for `ak help <id>`.
 */
export function unknownCommandMessage(config: Config, id: string, options: {asHelpFor?: boolean} = {}): string {
  const bin = config.bin
  const typed = toConfiguredId(id, config)
  const suggestion = suggestCommand(config, id)
  const firstWord = id.split(':')[0] ?? ''
  const topic = config.findTopic(firstWord) && firstWord !== id ? ` ${toConfiguredId(firstWord, config)}` : ''
  const lead = options.asHelpFor ? `There is no help for "${typed}": it is not an ${bin} command.` : `"${bin} ${typed}" is not an ${bin} command.`
  const didYouMean = suggestion ? ` Did you mean "${bin}${options.asHelpFor ? ' help' : ''} ${toConfiguredId(suggestion, config)}"?` : ''
  return `${lead}${didYouMean} Run "${bin} help${topic}" for the list of commands.`
}
