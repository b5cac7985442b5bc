import {type ParseArgsConfig, parseArgs} from 'node:util'

import {firstRepeated, repeatedFlagMessage} from '../../cli/repeated-flag.js'
import {closestWord} from '../../cli/suggest.js'
import {BadInputError} from '../../errors.js'
import {EXEC_SERVE_OPTIONS, type ServeOption, type ServeOptionValues} from './serve-options.js'

/** The options `dist/agentexec.js` takes besides EXEC_SERVE_OPTIONS (oclif gives `ak` its own). */
export const STANDALONE_OPTIONS = {
  quiet: {type: 'boolean', char: 'q', description: 'Log nothing but warnings and errors on stderr (no line per tool call).'},
  help: {type: 'boolean', char: 'h', description: 'Show this help and exit.'},
  version: {type: 'boolean', char: 'v', description: 'Print the version and exit.'},
} as const satisfies Record<string, ServeOption>

/** What the standalone server's command line asks for. */
export type StandaloneRequest =
  | {kind: 'help'}
  | {kind: 'version'}
  | {kind: 'serve'; values: ServeOptionValues; quiet: boolean}

const ALL_OPTIONS: Record<string, ServeOption> = {...EXEC_SERVE_OPTIONS, ...STANDALONE_OPTIONS}

/**
 * Parses the standalone server's arguments with `node:util` `parseArgs`, from the same option
 * declarations as `ak exec serve`, and words its refusals as oclif does for `ak exec serve`, so
 * both entries print the same lines.
 * @param program the name shown in messages (`agentexec`)
 * @throws BadInputError (exit code 2) for an unknown option, a missing value, an option given
 * twice (never "last one wins"), a value outside an option's choices, or any positional argument
 */
export function parseStandaloneArgs(args: string[], program: string): StandaloneRequest {
  const options: NonNullable<ParseArgsConfig['options']> = {}
  for (const [name, option] of Object.entries(ALL_OPTIONS)) {
    options[name] = {type: option.type, ...(option.char ? {short: option.char} : {})}
  }
  let parsed: ReturnType<typeof parseArgs>
  try {
    parsed = parseArgs({args, options, strict: true, allowPositionals: true, allowNegative: false, tokens: true})
  } catch (error) {
    throw refusal(error as Error & {code?: string}, args, program)
  }
  const repeated = firstRepeated((parsed.tokens ?? []).flatMap((token) => (token.kind === 'option' ? [token.name] : [])))
  if (repeated !== undefined) throw new BadInputError(repeatedFlagMessage(`--${repeated}`, program))
  const values = parsed.values as Record<string, string | boolean | undefined>
  if (values.help) return {kind: 'help'}
  if (values.version) return {kind: 'version'}
  const extra = parsed.positionals[0]
  // No positional arguments: ak exec serve refuses them too (oclif would read stdin to fill them).
  if (extra !== undefined) throw new BadInputError(`"${program}" takes no argument "${extra}". Run "${program} --help" for its usage.`)
  for (const [name, option] of Object.entries(EXEC_SERVE_OPTIONS) as Array<[string, ServeOption]>) {
    const value = values[name]
    if (typeof value === 'string' && option.options && !option.options.includes(value)) {
      throw new BadInputError(`Expected --${name}=${value} to be one of: ${option.options.join(', ')}\nSee more help with --help`)
    }
  }
  const serveValues = Object.fromEntries(Object.keys(EXEC_SERVE_OPTIONS).filter((name) => values[name] !== undefined).map((name) => [name, values[name]]))
  return {kind: 'serve', values: serveValues as ServeOptionValues, quiet: values.quiet === true}
}

/** parseArgs' error turned into the line `ak exec serve` prints for the same mistake (src/cli/usage-errors.ts). */
function refusal(error: Error & {code?: string}, args: string[], program: string): BadInputError {
  if (error.code === 'ERR_PARSE_ARGS_UNKNOWN_OPTION') {
    const flag = (/'([^']+)'/.exec(error.message)?.[1] ?? args.find((arg) => arg.startsWith('-')) ?? '').split('=', 1)[0]!
    const known = Object.entries(ALL_OPTIONS).filter(([, option]) => !option.hidden).map(([name]) => `--${name}`)
    const suggestion = flag.startsWith('--') ? closestWord(flag, known) : undefined
    return new BadInputError(`Unknown flag ${flag}${suggestion ? ` (did you mean ${suggestion}?)` : ''} for "${program}". Run "${program} --help" for its flags.`)
  }
  if (error.code === 'ERR_PARSE_ARGS_INVALID_OPTION_VALUE') {
    const name = /--([a-z-]+)/.exec(error.message)?.[1]
    if (name && ALL_OPTIONS[name]?.type === 'string') return new BadInputError(`Flag --${name} expects a value`)
    if (name) return new BadInputError(`--${name} takes no value. Give it alone, e.g. "--${name}".`)
  }
  return new BadInputError(`${error.message} Run with --help for the usage.`)
}

/**
 * The standalone server's `--help` text, written from the same declarations as its parser.
 * @param program the command name shown in the usage line
 * @param summary what the server is, one paragraph
 */
export function standaloneHelp(program: string, summary: string): string {
  const shown = Object.entries(ALL_OPTIONS).filter(([, option]) => !option.hidden)
  const labels = shown.map(([name, option]) => `${option.char ? `-${option.char}, ` : '    '}--${name}${option.type === 'string' ? `=${option.helpValue ?? (option.options ? `<${option.options.join('|')}>` : '<value>')}` : ''}`)
  const width = Math.max(...labels.map((label) => label.length))
  const lines = shown.map(([, option], i) => {
    const fallback = option.default === undefined ? '' : ` [default: ${option.default}]`
    return `  ${labels[i]!.padEnd(width)}  ${option.description}${fallback}`
  })
  const usage = shown
    .filter(([name]) => !(name in STANDALONE_OPTIONS) || name === 'quiet')
    .map(([name, option]) => `[--${name}${option.type === 'string' ? ` ${option.helpValue ?? (option.options ? option.options.join('|') : 'VALUE')}` : ''}]`)
  return `${summary}\n\nUSAGE\n  $ ${program} ${usage.join(' ')}\n\nFLAGS\n${lines.join('\n')}\n`
}

/**
 * The serve request in `ak exec serve …` arguments (after `exec serve`) when the standalone
 * parser reads them exactly as oclif would and nothing but serving is asked: every option known,
 * well formed, none of the shared flags that only oclif reports on (`--json`, `--yes`,
 * `--no-interactive`), no `--help`. Undefined otherwise, and then oclif parses them (and words
 * any refusal). Lets bin/run.js serve without loading oclif.
 */
export function directServeRequest(args: string[]): Extract<StandaloneRequest, {kind: 'serve'}> | undefined {
  if (args.some((arg) => arg === '--' || arg.startsWith('--json') || arg.startsWith('--yes') || arg === '-y' || arg.startsWith('--no-interactive'))) return undefined
  try {
    const request = parseStandaloneArgs(args, 'ak exec serve')
    return request.kind === 'serve' ? request : undefined
  } catch {
    return undefined
  }
}
