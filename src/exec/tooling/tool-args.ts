import {BadInputError} from '../../errors.js'

/**
 * Builds a tool's `arguments` object from `key=value` pairs (the `--arg` flag of `ak exec call`).
 *
 * The value is read as JSON when it parses as JSON (`42`, `true`, `null`, `["a"]`, `{"k":1}`,
 * `"quoted text"`), and otherwise taken as a plain string; so `path=src` is the string "src",
 * `max_output_tokens=500` the number 500, and `text="500"` the string "500". Only the first `=`
 * separates key and value.
 * @throws BadInputError for a pair without `=`, an empty key, or a key given twice.
 */
export function parseToolArgs(pairs: readonly string[]): Record<string, unknown> {
  // No prototype: a key such as `__proto__` or `constructor` is an argument like any other (and is refused by the tool).
  const args: Record<string, unknown> = Object.create(null) as Record<string, unknown>
  for (const pair of pairs) {
    const equals = pair.indexOf('=')
    if (equals <= 0) {
      throw new BadInputError(`--arg "${pair}" is not key=value. Write it as --arg name=value, e.g. --arg path=src.`)
    }
    const key = pair.slice(0, equals)
    if (Object.hasOwn(args, key)) {
      throw new BadInputError(`--arg ${key} is given twice. Give each argument once (use a JSON array for a list).`)
    }
    args[key] = parseValue(pair.slice(equals + 1))
  }
  return args
}

function parseValue(raw: string): unknown {
  try {
    return JSON.parse(raw)
  } catch {
    return raw
  }
}
