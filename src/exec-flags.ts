import {Flags} from '@oclif/core'

import {DEFAULT_LEVEL, LEVELS} from './exec/level.js'

/** `--workspace`, shared by the `exec` commands that start a server. */
export const workspaceFlag = Flags.string({
  char: 'w',
  description: 'Folder the tools are confined to. Default: the current directory.',
})

/**
 * `--level`, shared by the `exec` commands.
 * @param lead the start of the help text, e.g. "Access level to serve"; the levels follow it
 */
export function levelFlag(lead: string) {
  return Flags.string({
    char: 'l',
    description: `${lead}: ${LEVELS.join(' | ')}.`,
    options: [...LEVELS],
    default: DEFAULT_LEVEL,
  })
}
