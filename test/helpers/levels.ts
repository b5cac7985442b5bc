import {LEVELS, type Level} from '../../src/exec/level.js'
import {EXEC_TOOLS} from '../../src/exec/tools/index.js'

/**
 * The highest level whose tools this build has: interop tests serve it so that every tool is
 * exercised by every client.
 */
export const HIGHEST_LEVEL: Level = [...LEVELS].reverse().find((level) => EXEC_TOOLS.some((tool) => tool.level === level)) ?? 'read'
