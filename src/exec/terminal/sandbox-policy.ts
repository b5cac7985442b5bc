import {BadInputError} from '../../errors.js'

/**
 * The terminal sandbox's settings (DESIGN §4.8) and what they promise, apart from the code that
 * builds the sandbox (sandbox.ts), so that servers describe the mode in force without loading it.
 * The mode names are Codex's sandbox modes (`codex exec --sandbox read-only|workspace-write`).
 */

/** The sandbox modes, Codex's names; `off` runs commands as the server's user, unconfined. */
export const SANDBOX_MODES = ['off', 'workspace-write', 'read-only'] as const
export type SandboxMode = (typeof SANDBOX_MODES)[number]
/** The oldest bubblewrap the sandbox runs with: 0.8.0 brought `--disable-userns`. */
export const MIN_BWRAP_VERSION = '0.8.0'
/** The mode when none is given. */
export const DEFAULT_SANDBOX_MODE: SandboxMode = 'off'

/** What the user asked for. */
export interface SandboxPolicy {
  mode: SandboxMode
  /** Whether commands may use the network; only meaningful when `mode` is not `off`. */
  network: boolean
}

/** A policy checked to work here, with the bubblewrap found for it. */
export interface Sandbox extends SandboxPolicy {
  /** Absolute path of bwrap; set whenever `mode` is not `off`. */
  bwrap?: string
  /** The compiled seccomp filter bubblewrap installs (seccomp-filter.ts); set with `bwrap`. */
  seccompProgram?: Uint8Array
}

/** No sandbox: today's behaviour, the default. */
export const NO_SANDBOX: Sandbox = {mode: 'off', network: true}

/** Help text of `--sandbox`, shared by every command line that takes it. */
export const SANDBOX_FLAG_HELP =
  'Run each command in a sandbox (Linux, bubblewrap): workspace-write lets commands write only in the workspace and a ' +
  'private /tmp; read-only lets them write nowhere; off (the default) does not confine them. Reads are not confined. ' +
  `Sandboxed commands hold no capabilities, even when ak runs as root. Needs bubblewrap ${MIN_BWRAP_VERSION} or later.`
/** Help text of `--sandbox-network`. */
export const SANDBOX_NETWORK_FLAG_HELP = 'Let sandboxed commands use the network (off by default inside the sandbox).'

/**
 * `--sandbox` and `--sandbox-network` as `node:util` `parseArgs` options, for command lines
 * parsed without oclif; their values go to parseSandboxPolicy as `sandbox` and `sandboxNetwork`.
 */
export const SANDBOX_PARSE_ARGS_OPTIONS = {
  sandbox: {type: 'string'},
  'sandbox-network': {type: 'boolean'},
} as const

/**
 * Parses the sandbox settings shared by `ak exec serve`, `dist/agentexec.js` and
 * `createAgentExec`: `sandbox` (a mode name; default `off`) and `sandboxNetwork`.
 * @throws BadInputError for an unknown mode, naming the valid ones, or for `sandboxNetwork`
 *   without a sandbox.
 */
export function parseSandboxPolicy(options: {sandbox?: string; sandboxNetwork?: boolean}): SandboxPolicy {
  const value = options.sandbox ?? DEFAULT_SANDBOX_MODE
  if (!(SANDBOX_MODES as readonly string[]).includes(value)) {
    throw new BadInputError(`Unknown sandbox mode "${value}". Use one of: ${SANDBOX_MODES.join(', ')}.`)
  }
  const mode = value as SandboxMode
  if (options.sandboxNetwork && mode === 'off') {
    throw new BadInputError(
      'Network access (--sandbox-network) only applies inside a sandbox; without one commands already reach the network. ' +
        'Add --sandbox workspace-write or --sandbox read-only, or drop --sandbox-network.',
    )
  }
  return {mode, network: mode === 'off' || options.sandboxNetwork === true}
}

/** One line for the model saying what the sandbox allows (tool description, server instructions). */
export function describeSandbox(sandbox: SandboxPolicy): string {
  const network = sandbox.network
    ? 'Network access is allowed.'
    : 'There is no network access: no TCP or UDP socket, not even to localhost, and no connection to Unix sockets (pipes and socket pairs work).'
  switch (sandbox.mode) {
    case 'off': {
      return 'Commands run unsandboxed, with all the rights of the server\'s user.'
    }
    case 'workspace-write': {
      return (
        'Commands run in a sandbox (workspace-write): they can read everything but write only inside the workspace and ' +
        'in a private /tmp that is emptied when the command ends; writing anywhere else fails with "Read-only file system". ' +
        `${network} Commands have no privileges (no mount, namespace, ptrace or capability), even as root. ` +
        'Background processes end with the command.'
      )
    }
    case 'read-only': {
      return (
        'Commands run in a sandbox (read-only): they can read everything but write nowhere, not even in the workspace or ' +
        `/tmp; writes fail with "Read-only file system". ${network} Commands have no privileges (no mount, namespace, ptrace ` +
        'or capability), even as root. Background processes end with the command.'
      )
    }
  }
}
