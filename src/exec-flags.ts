import {Flags} from '@oclif/core'

import {DEFAULT_LEVEL, LEVELS} from './exec/level.js'
import {
  DEFAULT_SANDBOX_MODE,
  SANDBOX_FLAG_HELP,
  SANDBOX_MODES,
  SANDBOX_NETWORK_FLAG_HELP,
} from './exec/terminal/sandbox-policy.js'

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

/**
 * `--sandbox` and `--sandbox-network`, shared by the `exec` commands that start a server; parsed
 * with parseSandboxPolicy, the rule `createAgentExec` and `dist/agentexec.js` use too.
 */
export const sandboxFlags = {
  sandbox: Flags.string({
    description: SANDBOX_FLAG_HELP,
    options: [...SANDBOX_MODES],
    default: DEFAULT_SANDBOX_MODE,
    helpValue: 'MODE',
  }),
  'sandbox-network': Flags.boolean({
    description: SANDBOX_NETWORK_FLAG_HELP,
    default: false,
  }),
}
