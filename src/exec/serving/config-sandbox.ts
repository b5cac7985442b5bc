import {type Level, levelIncludes} from '../level.js'
import {type SandboxCheck, checkSandbox} from '../terminal/sandbox.js'
import {type SandboxPolicy, parseSandboxPolicy} from '../terminal/sandbox-policy.js'

/** The sandbox a printed config block asks for, and what to tell the user about it on stderr. */
export interface ConfigSandbox {
  policy: SandboxPolicy
  /** Said unless --quiet: which sandbox the block asks for and how to change it. */
  note?: string
  /** Said even with --quiet: commands the block lets run unconfined. */
  warning?: string
}

/** The line that says an unconfined terminal block can do anything the user can, and how to confine it. */
const UNCONFINED =
  'commands an agent runs through this block can read, change and delete anything your user can, outside the workspace too, ' +
  "whatever sandbox the client itself was started with (a client's sandbox does not reach the MCP servers it starts; " +
  "only Codex's, which Codex sends with each call, is followed)"

/**
 * The sandbox `ak exec config` writes into a block. At `terminal` without `--sandbox`: ak's
 * `workspace-write` sandbox where bubblewrap can build it here (checkSandbox, as the server does
 * at start), said in a note; else `off`, with a warning saying why and how to fix it. A
 * `--sandbox` given is kept as given, and `off` at `terminal` is warned about. Below `terminal`
 * there are no commands to confine: `--sandbox` is passed on as given.
 * @param given `--sandbox` as typed (undefined when absent) and `--sandbox-network`
 * @param check checkSandbox, replaceable in tests
 * @throws BadInputError for an unknown mode, or `--sandbox-network` with `--sandbox off` (parseSandboxPolicy)
 */
export async function configSandbox(
  level: Level,
  given: {sandbox?: string; sandboxNetwork: boolean},
  where: {workspace: string; env: NodeJS.ProcessEnv},
  check: (policy: SandboxPolicy, options: {workspace: string; env: NodeJS.ProcessEnv}) => Promise<SandboxCheck> = checkSandbox,
): Promise<ConfigSandbox> {
  const runsCommands = levelIncludes(level, 'terminal')
  if (given.sandbox !== undefined || !runsCommands) {
    const policy = parseSandboxPolicy(given)
    return runsCommands && policy.mode === 'off' ? {policy, warning: `--sandbox off: ${UNCONFINED}.`} : {policy}
  }
  const wanted: SandboxPolicy = {mode: 'workspace-write', network: given.sandboxNetwork}
  const found = await check(wanted, where)
  if (!found.ok) {
    return {
      policy: parseSandboxPolicy({sandbox: 'off'}),
      warning: `The block runs commands without a sandbox, because ${found.reason}: ${UNCONFINED}. To confine them: ${found.fix}; then print the block again.`,
    }
  }
  return {
    policy: wanted,
    note:
      `Commands run in ak's sandbox (--sandbox workspace-write, ${found.version || 'bubblewrap'}): they write only inside the workspace and a private /tmp` +
      `${wanted.network ? '' : ', with no network (--sandbox-network allows it)'}. --sandbox read-only allows no writes; --sandbox off runs them unconfined.`,
  }
}
