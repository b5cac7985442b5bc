import {BadInputError} from '../errors.js'

/**
 * AgentExec access levels (DESIGN §4.1). Each level contains the one before it:
 * `read` → read, list, search; `files` → adds edit; `terminal` → adds exec_command, write_stdin.
 */
export const LEVELS = ['read', 'files', 'terminal'] as const
export type Level = (typeof LEVELS)[number]

/** The level served when none is given. */
export const DEFAULT_LEVEL: Level = 'read'

/** Whether a server at `level` includes what `required` grants. */
export function levelIncludes(level: Level, required: Level): boolean {
  return LEVELS.indexOf(level) >= LEVELS.indexOf(required)
}

/**
 * Parses a level name.
 * @throws BadInputError naming the valid levels.
 */
export function parseLevel(value: string): Level {
  if ((LEVELS as readonly string[]).includes(value)) return value as Level
  throw new BadInputError(`Unknown level "${value}". Use one of: ${LEVELS.join(', ')}.`)
}
