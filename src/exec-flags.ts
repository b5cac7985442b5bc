import {Flags, type Interfaces} from '@oclif/core'

import {EXEC_SERVE_OPTIONS, type ServeOption} from './exec/serving/serve-options.js'
import {SANDBOX_FLAG_HELP, SANDBOX_MODES} from './exec/terminal/sandbox-policy.js'

/** The oclif flag type of a server option: boolean, a string with a default, or an optional string. */
export type OclifFlagOf<Option extends ServeOption> = Option['type'] extends 'boolean'
  ? Interfaces.BooleanFlag<boolean>
  : Option extends {default: string}
    ? Interfaces.OptionFlag<string>
    : Interfaces.OptionFlag<string | undefined>

/**
 * The oclif flag for one AgentExec server option (src/exec/serving/serve-options.ts), so that
 * `ak exec serve` and `dist/agentexec.js` read their options from one declaration.
 */
export function oclifFlagFor<Option extends ServeOption>(option: Option, description: string = option.description): OclifFlagOf<Option> {
  const common = {
    description,
    ...(option.char ? {char: option.char as 'w'} : {}),
    ...(option.helpValue ? {helpValue: option.helpValue} : {}),
    ...(option.hidden ? {hidden: true} : {}),
  }
  if (option.type === 'boolean') return Flags.boolean(common) as OclifFlagOf<Option>
  return Flags.string({
    ...common,
    ...(option.options ? {options: [...option.options]} : {}),
    ...(option.default === undefined ? {} : {default: option.default}),
  }) as OclifFlagOf<Option>
}

/** Every AgentExec server option as an oclif flag, keyed by its name. */
export function execServeFlags() {
  return Object.fromEntries(Object.entries(EXEC_SERVE_OPTIONS).map(([name, option]) => [name, oclifFlagFor(option)])) as unknown as {
    [Name in keyof typeof EXEC_SERVE_OPTIONS]: OclifFlagOf<(typeof EXEC_SERVE_OPTIONS)[Name]>
  }
}

/** `--workspace`, shared by the `exec` commands that start a server. */
export const workspaceFlag = oclifFlagFor(EXEC_SERVE_OPTIONS.workspace)

/**
 * `--level`, shared by the `exec` commands.
 * @param lead the start of the help text, e.g. "Access level to serve"; the levels follow it
 */
export function levelFlag(lead: string) {
  const option = EXEC_SERVE_OPTIONS.level
  return oclifFlagFor(option, `${lead}: ${option.options.join(' | ')}.`)
}

/** `--allow-protected`, for the `exec` commands that run or describe a server, and for `exec undo`, which writes files too. */
export const allowProtectedFlag = oclifFlagFor(EXEC_SERVE_OPTIONS['allow-protected'])

/**
 * `--sandbox` and `--sandbox-network` for `ak exec config`: no default, because an absent
 * `--sandbox` means "ak's sandbox where it works" at `terminal` (configSandbox), not `off`.
 */
export const configSandboxFlags = {
  sandbox: Flags.string({
    description:
      `${SANDBOX_FLAG_HELP.replace(/; off \(the default\) does not confine them\./, '; off does not confine them.')} ` +
      'Default: workspace-write at the terminal level where bubblewrap can build it here, else off.',
    options: [...SANDBOX_MODES],
    helpValue: 'MODE',
  }),
  'sandbox-network': oclifFlagFor(EXEC_SERVE_OPTIONS['sandbox-network']),
}

/**
 * `--sandbox` and `--sandbox-network`, for the `exec` commands that describe a server (the same
 * declaration `ak exec serve` and `dist/agentexec.js` read).
 */
export const sandboxFlags = {
  sandbox: oclifFlagFor(EXEC_SERVE_OPTIONS.sandbox),
  'sandbox-network': oclifFlagFor(EXEC_SERVE_OPTIONS['sandbox-network']),
}

/**
 * `--journal-folder`, for the commands that read a workspace's journal (`ak exec history`,
 * `ak exec undo`): the state folder a server was told to keep it in (createAgentExec's
 * `journal.folder`).
 */
export const journalFolderFlag = Flags.string({
  description: "State folder holding the journal, when the server was given one (createAgentExec's journal.folder). Default: $XDG_STATE_HOME/ak, else ~/.local/state/ak.",
  helpValue: 'DIR',
})
