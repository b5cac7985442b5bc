import {z} from 'zod'

/*
 * Tool input fields whose validation errors tell the model what the field is and what to pass,
 * instead of zod's generic texts ("Too small: expected string to have >=1 characters"). Each
 * message has the form "<field> must be <rule>: <what the field is>." so it reads as an
 * instruction when it comes back as a tool error.
 */

/** A string field; `nonEmpty` refuses "" with its own message. */
export function textField(name: string, what: string, options: {nonEmpty?: boolean} = {}) {
  const field = z.string({error: `${name} must be a string: ${what}.`})
  return options.nonEmpty ? field.min(1, {error: `${name} must not be empty: ${what}.`}) : field
}

/** A true/false field. */
export function flagField(name: string, what: string) {
  return z.boolean({error: `${name} must be true or false: ${what}.`})
}

/**
 * A whole number from `min` to `max` (both inclusive). A value above `max` (including numbers
 * too large to be exact, such as 1e300) gets the upper-bound message, not "whole number".
 */
export function wholeNumberField(name: string, what: string, min: number, max: number, unit = '') {
  const suffix = unit === '' ? '' : ` ${unit}`
  return z
    .number({error: `${name} must be a number: ${what}.`})
    .min(min, {error: `${name} must be ${min} or more: ${what}.`})
    .max(max, {error: `${name} must be at most ${max}${suffix}: ${what}.`})
    .refine((value) => Number.isInteger(value) || value > max || value < min, {
      error: `${name} must be a whole number: ${what}.`,
    })
}

/**
 * A number that the tool clamps into `bounds` itself (a wait or a budget, as Codex clamps them):
 * the JSON Schema states `minimum` and `maximum` (and `default`, when there is one), but any
 * finite number is taken, so that a lenient client sending a value outside still gets an answer.
 * Only a non-number or a non-finite value is refused. Tools are registered with a schema that lets
 * every argument through (see `advertisedInputSchema`), so the SDK never refuses a value the
 * schema's bounds exclude: `parseToolInput` checks the call with this zod schema, which has none.
 */
export function clampedNumberField(name: string, what: string, bounds: {minimum: number; maximum: number; default?: number}) {
  return z
    .number({error: `${name} must be a number: ${what}.`})
    .meta({minimum: bounds.minimum, maximum: bounds.maximum})
    .optional()
    .meta(bounds.default === undefined ? {} : {default: bounds.default})
}
