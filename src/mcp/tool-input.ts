import type {StandardSchemaWithJSON} from '@modelcontextprotocol/server'
import type {z} from 'zod'

import {BadInputError} from '../errors.js'
import {PROTO_ARGUMENT} from './proto-argument.js'

/** A tool call's arguments once checked: the tool's input, and the accepted names it ignored. */
export interface ParsedToolInput<Input> {
  input: Input
  /** Names of `ToolInputSpec.ignoredArguments` the call gave, in the order given. */
  ignored: string[]
}

/**
 * What parseToolInput needs of an MCP tool: its name, its input schema, and the argument names it
 * accepts and ignores or has advice for. AgentExec's tools and the Codex agent runtime's
 * `agent_<slug>` tools both give these.
 */
export interface ToolInputSpec<Input extends z.ZodObject = z.ZodObject> {
  name: string
  inputSchema: Input
  /** Argument names the tool accepts and ignores, each with why it has no effect. Any other name outside `inputSchema` is refused. */
  ignoredArguments?: Record<string, string> | undefined
  /** Advice for argument names other servers use and this tool does not (`tail` → a negative offset). */
  argumentHints?: Record<string, string> | undefined
}

/** A string that is exactly a whole number, as models often send numbers (`"5"`, `"-20"`). */
const INTEGER_STRING = /^-?\d+$/

/**
 * Checks a tool call's `arguments` against the tool, as DESIGN §4.3 says (AgentExec; the Codex
 * agent runtime's tools follow the same rules):
 * - a name the tool does not define is refused, with the names it accepts (and the tool's hint
 *   for that name, if it has one: `tail` → a negative offset). Names in `ignoredArguments` pass
 *   and are reported in `ignored`.
 * - a string that is exactly a whole number is taken for a number field, `"true"`/`"false"` for
 *   a true/false field; anything else of the wrong type is refused with the field's message.
 * - every wrong field is reported, one per line.
 * @throws BadInputError with the message the model reads.
 */
export function parseToolInput<Input extends z.ZodObject>(tool: ToolInputSpec<Input>, raw: unknown): ParsedToolInput<z.infer<Input>> {
  if (typeof raw !== 'object' || raw === null || Array.isArray(raw)) {
    throw new BadInputError(`The arguments of ${tool.name} must be an object of named fields: ${acceptedNames(tool)}.`)
  }
  const shape = tool.inputSchema.shape as Record<string, z.ZodType>
  const ignoredNames = tool.ignoredArguments ?? {}
  const unknown = Object.keys(raw).filter((name) => !Object.hasOwn(shape, name) && !Object.hasOwn(ignoredNames, name))
  // A `"__proto__"` member that became the object's prototype (copied by assignment) was an argument all the same.
  if (!Object.hasOwn(raw, '__proto__') && !isPlainPrototype(Object.getPrototypeOf(raw))) unknown.push(PROTO_ARGUMENT)
  if (unknown.length > 0) throw unknownArgumentsError(tool, unknown)
  const args: Record<string, unknown> = {}
  const ignored: string[] = []
  for (const [name, value] of Object.entries(raw)) {
    if (Object.hasOwn(shape, name)) args[name] = coerce(shape[name] as z.ZodType, value)
    else ignored.push(name)
  }
  const parsed = tool.inputSchema.safeParse(args)
  if (parsed.success) return {input: parsed.data as z.infer<Input>, ignored}
  const messages: string[] = []
  for (const issue of parsed.error.issues) {
    const field = typeof issue.path[0] === 'string' ? issue.path[0] : undefined
    const message = field !== undefined && args[field] === undefined ? `${field} is missing. ${issue.message}` : issue.message
    if (!messages.includes(message)) messages.push(message)
  }
  throw new BadInputError(messages.join('\n'))
}

/** True for the prototype an object built from JSON has: Object's, or none. */
function isPlainPrototype(prototype: unknown): boolean {
  return prototype === null || prototype === Object.prototype
}

function acceptedNames(tool: ToolInputSpec): string {
  return Object.keys(tool.inputSchema.shape).join(', ')
}

function unknownArgumentsError(tool: ToolInputSpec, unknown: string[]): BadInputError {
  const quoted = unknown.map((name) => JSON.stringify(name === PROTO_ARGUMENT ? '__proto__' : name)).join(', ')
  const lines = [
    `${tool.name} has no ${unknown.length === 1 ? 'argument' : 'arguments'} ${quoted}, so the call did nothing. ` +
      `Its arguments are: ${acceptedNames(tool)}.`,
  ]
  for (const name of unknown) {
    const hint = tool.argumentHints && Object.hasOwn(tool.argumentHints, name) ? tool.argumentHints[name] : undefined
    if (hint) lines.push(`${name}: ${hint}`)
  }
  return new BadInputError(lines.join('\n'))
}

/** The type of a field under its `.optional()` and `.default()` wrappers. */
function baseType(field: z.ZodType): string {
  let def = field._zod.def as {type: string; innerType?: z.ZodType}
  while ((def.type === 'optional' || def.type === 'default' || def.type === 'nullable') && def.innerType) {
    def = def.innerType._zod.def as {type: string; innerType?: z.ZodType}
  }
  return def.type
}

/** `value` as the field's type when it is that type written as a string; otherwise unchanged. */
function coerce(field: z.ZodType, value: unknown): unknown {
  if (typeof value !== 'string') return value
  switch (baseType(field)) {
    case 'number':
      return INTEGER_STRING.test(value) ? Number(value) : value
    case 'boolean':
      return value === 'true' ? true : value === 'false' ? false : value
    default:
      return value
  }
}

/**
 * One line naming every ignored argument a call gave and why each had no effect, or '' when it
 * gave none: `[Note: tty, login had no effect (tty: …; login: …).]`.
 */
export function ignoredArgumentsNote(tool: Pick<ToolInputSpec, 'ignoredArguments'>, ignored: readonly string[]): string {
  if (ignored.length === 0) return ''
  const reasons = ignored.map((name) => `${name}: ${(tool.ignoredArguments && Object.hasOwn(tool.ignoredArguments, name) && tool.ignoredArguments[name]) || 'not used'}`)
  return `[Note: ${ignored.join(', ')} had no effect (${reasons.join('; ')}).]`
}

/**
 * The schema a tool is registered with: it advertises the tool's JSON Schema in `tools/list`
 * and lets every `arguments` object through, so that `parseToolInput` checks it inside the
 * tool's handler (where the refusal becomes an ordinary tool error with ak's message, and is
 * logged like any other).
 */
export function advertisedInputSchema(schema: z.ZodObject): StandardSchemaWithJSON<Record<string, unknown>, Record<string, unknown>> {
  const standard = schema['~standard']
  return {
    '~standard': {
      version: 1,
      vendor: 'ak',
      validate: (value: unknown) => ({value: value as Record<string, unknown>}),
      jsonSchema: standard.jsonSchema,
    },
  }
}
