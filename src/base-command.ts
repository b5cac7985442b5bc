import {Command, Errors, Flags, Interfaces, toConfiguredId} from '@oclif/core'

import {firstRepeated, repeatedFlagMessage} from './cli/repeated-flag.js'
import {usageErrorMessage} from './cli/usage-errors.js'
import {AkError, BadInputError, EXIT_FAILURE, EXIT_USAGE, exitCodeFor} from './errors.js'

/** The flags every ak command accepts (BaseCommand.baseFlags). */
export type SharedFlagName = 'json' | 'quiet' | 'yes' | 'no-interactive'

/** Flag or argument values as oclif's parser hands them over (its `FlagOutput`, `ArgOutput`). */
// eslint-disable-next-line @typescript-eslint/no-explicit-any
type ParsedValues = Record<string, any>

/** Flags every ak command accepts. */
export type BaseFlags<T extends typeof Command> = Interfaces.InferredFlags<(typeof BaseCommand)['baseFlags'] & T['flags']>

/**
 * The base of every ak command: the shared flags and the one mapping of errors to exit codes
 * (0 success, 1 runtime failure, 2 invalid arguments or flags, oclif's own parse errors included).
 */
export abstract class BaseCommand extends Command {
  static override baseFlags = {
    json: Flags.boolean({
      description: 'Print the result as one JSON document on stdout.',
      helpGroup: 'GLOBAL',
    }),
    quiet: Flags.boolean({
      char: 'q',
      description: 'Print nothing but the result and errors.',
      helpGroup: 'GLOBAL',
    }),
    yes: Flags.boolean({
      char: 'y',
      description: 'Answer yes to every confirmation.',
      helpGroup: 'GLOBAL',
    }),
    'no-interactive': Flags.boolean({
      description: 'Never prompt; fail instead where an answer would be needed.',
      helpGroup: 'GLOBAL',
    }),
  }

  /**
   * oclif's parse, refusing any flag given twice (exit code 2) but those declared `multiple`:
   * oclif itself refuses a repeated flag with a value, and lets a repeated boolean pass; ak
   * refuses both, as `dist/agentexec.js` does, so no command reads a repeat as "last one wins".
   */
  protected override async parse<F extends ParsedValues, B extends ParsedValues, A extends ParsedValues>(
    options?: Interfaces.Input<F, B, A>,
    argv?: string[],
  ): Promise<Interfaces.ParserOutput<F, B, A>> {
    const output = await super.parse(options, argv)
    const declared = {...options?.baseFlags, ...options?.flags} as Record<string, {multiple?: boolean}>
    const repeatable = new Set(Object.entries(declared).filter(([, flag]) => flag.multiple).map(([name]) => name))
    const repeated = firstRepeated(output.raw.flatMap((token) => (token.type === 'flag' ? [token.flag] : [])), repeatable)
    if (repeated !== undefined) throw new BadInputError(repeatedFlagMessage(`--${repeated}`, `${this.config.bin} ${toConfiguredId(this.id ?? '', this.config)}`))
    return output
  }

  /** Writes a line to stderr (never stdout, which may carry MCP frames). */
  protected note(line: string): void {
    process.stderr.write(`${line}\n`)
  }

  /**
   * For commands whose output the shared flags do not change (`serve`, the `--list-only` report,
   * DESIGN §5.1): when any of --json, --yes, --no-interactive was given, one line on stderr saying
   * it has no effect on `subject` and why. Shown even with --quiet, like a warning. `names` lists
   * the flags to check, for a command where --quiet changes nothing either (the same list the
   * command gives sharedFlagsHiding).
   */
  protected noteIgnoredSharedFlags(
    flags: {json?: boolean; quiet?: boolean; yes?: boolean; 'no-interactive'?: boolean},
    subject: string,
    why: string,
    names: readonly SharedFlagName[] = OUTPUT_AND_PROMPT_FLAGS,
  ): void {
    const given = names.filter((name) => flags[name]).map((name) => `--${name}`)
    if (given.length === 0) return
    this.note(`ak: note: ${given.join(', ')} ${given.length === 1 ? 'does' : 'do'} not change ${subject} (${why}).`)
  }

  protected override async catch(error: Error & {exitCode?: number}): Promise<unknown> {
    if (error instanceof Errors.ExitError) throw error
    let exit: number
    let message: string
    if (error instanceof AkError) {
      exit = exitCodeFor(error)
      message = error.message
    } else if (error instanceof Errors.CLIError) {
      // oclif's own parse and validation errors: invalid arguments or flags.
      exit = error.oclif?.exit === EXIT_FAILURE ? EXIT_FAILURE : EXIT_USAGE
      message = usageErrorMessage(error, this.ctor, this.config) ?? error.message
    } else {
      exit = EXIT_FAILURE
      message = error.stack ?? error.message
    }
    process.stderr.write(`Error: ${message}\n`)
    process.exitCode = exit
    this.exit(exit)
    return undefined
  }
}

/**
 * The shared flags about the output's form and prompts: they change nothing on a command whose
 * stdout is MCP's and that never prompts (a server), or that prints only for a person.
 */
export const OUTPUT_AND_PROMPT_FLAGS: readonly SharedFlagName[] = ['json', 'yes', 'no-interactive']

/** Every shared flag, for a command that none of them changes. */
export const ALL_SHARED_FLAGS: readonly SharedFlagName[] = ['json', 'quiet', 'yes', 'no-interactive']

/**
 * BaseCommand.baseFlags for a command on which the shared flags `inert` change nothing: they are
 * still accepted (scripts that pass them everywhere keep working, and noteIgnoredSharedFlags says
 * they do nothing), but hidden from its help, from shell completion and from "did you mean"
 * suggestions, which offer only flags that do something there.
 */
export function sharedFlagsHiding(inert: readonly SharedFlagName[]): typeof BaseCommand.baseFlags {
  const flags: Record<string, unknown> = {}
  for (const [name, flag] of Object.entries(BaseCommand.baseFlags)) flags[name] = inert.includes(name as SharedFlagName) ? {...flag, hidden: true} : flag
  return flags as typeof BaseCommand.baseFlags
}

/** Throws a BadInputError (exit code 2) with `message`. */
export function usageError(message: string): never {
  throw new BadInputError(message)
}
