import {Errors, type Hook, toConfiguredId} from '@oclif/core'
import suggestInteractively from '@oclif/plugin-not-found'

import {EXIT_USAGE} from '../errors.js'

/**
 * What ak does with a command line that names no command (oclif's `command_not_found` hook).
 * All cases are invalid arguments, so they exit 2 (not oclif's 127) with one line on stderr:
 * - a flag where a command should be (`ak --bogus`);
 * - a known command followed by words it does not take (`ak exec serve extra`): names them;
 * - an unknown command (`ak exec srve`): suggests the closest command id. In an interactive
 *   terminal (and without `--no-interactive`), `@oclif/plugin-not-found` first asks whether to run
 *   the suggestion instead.
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
  const visible = config.commands.filter((command) => !command.hidden)
  const ids = [...visible.map((command) => command.id), ...visible.flatMap((command) => command.aliases)]
  const suggestion = closestCommandId(id, ids)
  const topic = config.findTopic(words[0] ?? '') ? ` ${words[0]}` : ''
  const message =
    `"${bin} ${toConfiguredId(id, config)}" is not an ${bin} command.` +
    (suggestion ? ` Did you mean "${bin} ${toConfiguredId(suggestion, config)}"?` : '') +
    ` Run "${bin} help${topic}" for the list of commands.`
  if (suggestion && process.stdin.isTTY && process.stderr.isTTY && !argv.includes('--no-interactive')) {
    // The plugin prompts "Did you mean …?" and runs the suggestion when confirmed; when declined
    // it calls `error`, which becomes the same exit 2 as the non-interactive path.
    return suggestInteractively.call(
      {...this, warn() {}, error: () => fail(message)},
      options,
    )
  }
  fail(message)
}

export default hook

function fail(message: string): never {
  process.stderr.write(`Error: ${message}\n`)
  Errors.exit(EXIT_USAGE)
}

/**
 * The id in `ids` closest to `id` (both colon-separated) by edit distance, counting a one-word
 * `id` also against each id's last word, so `srve` finds `exec:serve` (ties: the first in `ids`).
 * Undefined when even the closest needs more edits than half the length of `id` (at least 2):
 * a suggestion that far off does not help. Pure.
 */
export function closestCommandId(id: string, ids: readonly string[]): string | undefined {
  let best: string | undefined
  let bestDistance = Number.POSITIVE_INFINITY
  const isOneWord = !id.includes(':')
  for (const candidate of ids) {
    const lastWord = candidate.slice(candidate.lastIndexOf(':') + 1)
    const distance = Math.min(editDistance(id, candidate), isOneWord ? editDistance(id, lastWord) : Number.POSITIVE_INFINITY)
    if (distance < bestDistance) {
      best = candidate
      bestDistance = distance
    }
  }
  return bestDistance <= Math.max(2, Math.ceil(id.length / 2)) ? best : undefined
}

/** Levenshtein distance between `a` and `b` (insertions, deletions, substitutions). */
function editDistance(a: string, b: string): number {
  let previous = Array.from({length: b.length + 1}, (_, index) => index)
  for (let i = 1; i <= a.length; i++) {
    const current = [i]
    for (let j = 1; j <= b.length; j++) {
      const substitution = (previous[j - 1] ?? 0) + (a[i - 1] === b[j - 1] ? 0 : 1)
      current.push(Math.min((previous[j] ?? 0) + 1, (current[j - 1] ?? 0) + 1, substitution))
    }
    previous = current
  }
  return previous[b.length] ?? 0
}
