import {type Interfaces, toConfiguredId} from '@oclif/core'

import {repeatedFlagMessage} from './repeated-flag.js'
import {closestWord} from './suggest.js'

type Config = Interfaces.Config

/** The parts of a command class this module reads. */
interface CommandShape {
  id: string
  flags?: Record<string, {char?: string; hidden?: boolean; description?: string; options?: readonly string[]}>
  baseFlags?: Record<string, {char?: string; hidden?: boolean}>
  args?: Record<string, {description?: string}>
}

/**
 * ak's wording of three oclif parse errors, recognised by their shape (oclif does not export their
 * classes): an unknown flag (`NonExistentFlagsError`, `flags` lists what was typed) gets the
 * closest flag of the command; a missing argument (`RequiredArgsError`, `args` lists the missing
 * ones) is named with its description, without oclif's note about flags taking several values,
 * which has nothing to do with it; a missing required flag (oclif's "Missing required flag X"
 * lines) is named with the values it takes and its description; a flag given twice gets the
 * wording every ak parser uses (repeatedFlagMessage). Any other error: undefined
 * (keep oclif's message).
 */
export function usageErrorMessage(error: unknown, command: CommandShape, config: Config): string | undefined {
  const spelled = `${config.bin} ${toConfiguredId(command.id, config)}`
  const details = error as {flags?: unknown; args?: unknown; message?: unknown}
  if (typeof details.message === 'string' && details.message.startsWith('Nonexistent flag') && isStringArray(details.flags)) {
    const known = knownFlags(command)
    const named = details.flags.map((typed) => {
      const flag = typed.split('=', 1)[0] ?? typed
      const suggestion = flag.startsWith('--') ? closestWord(flag, known) : undefined
      return suggestion ? `${flag} (did you mean ${suggestion}?)` : flag
    })
    return `Unknown flag${named.length === 1 ? '' : 's'} ${named.join(', ')} for "${spelled}". Run "${spelled} --help" for its flags.`
  }
  if (typeof details.message === 'string' && details.message.startsWith('Missing') && Array.isArray(details.args)) {
    const missing = (details.args as Array<{name?: string; description?: string}>).map(
      (arg) => `${(arg.name ?? 'argument').toUpperCase()}${arg.description ? `: ${arg.description.replace(/\.$/, '')}` : ''}`,
    )
    return `"${spelled}" needs ${missing.join('; and ')}. Run "${spelled} --help" for its usage and examples.`
  }
  const repeated = typeof details.message === 'string' ? /^Flag (--[\w-]+) can only be specified once/.exec(details.message) : null
  if (repeated) return repeatedFlagMessage(repeated[1]!, spelled)
  const missingFlags = typeof details.message === 'string' ? [...details.message.matchAll(/Missing required flag (\S+)/g)].map((match) => match[1]!) : []
  if (missingFlags.length > 0) {
    const named = missingFlags.map((name) => {
      const flag = command.flags?.[name]
      const values = flag?.options?.length ? ` (one of ${flag.options.join(', ')})` : ''
      const what = flag?.description ? `: ${flag.description.replace(/:.*$|\.$/, '')}` : ''
      return `--${name}${values}${what}`
    })
    return `"${spelled}" needs ${named.join('; and ')}. Run "${spelled} --help" for its usage and examples.`
  }
  return undefined
}

/** The long flags a command takes, `--help` included, as typed (`--level`). */
function knownFlags(command: CommandShape): string[] {
  const flags = {...command.baseFlags, ...command.flags}
  const names = Object.entries(flags)
    .filter(([, flag]) => !flag.hidden)
    .map(([name]) => `--${name}`)
  return [...names, '--help']
}

function isStringArray(value: unknown): value is string[] {
  return Array.isArray(value) && value.every((item) => typeof item === 'string')
}
