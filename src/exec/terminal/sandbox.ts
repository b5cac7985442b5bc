import {spawn} from 'node:child_process'
import {accessSync, constants, statSync} from 'node:fs'
import path from 'node:path'

import {BadInputError} from '../../errors.js'

/**
 * The terminal sandbox (DESIGN §4.8): on Linux, each command runs under bubblewrap (`bwrap`) with
 * the root file system read-only, the workspace writable (`workspace-write`) or not
 * (`read-only`), a private `/tmp`, its own `/dev` and `/proc`, a new PID namespace that dies with
 * the command, and a new network namespace unless network is allowed.
 *
 * The mode names are Codex's sandbox modes (`codex exec --sandbox read-only|workspace-write`).
 * The bubblewrap layout follows Codex's Linux sandbox (`codex-rs/linux-sandbox/src/bwrap.rs`):
 * `--ro-bind / /`, then `--dev /dev`, then the writable roots bound over it, `--unshare-pid` with
 * a fresh `--proc /proc`, `--unshare-net` when network is off, and `--die-with-parent`. Where ak
 * differs from Codex:
 * - `/tmp` is a private tmpfs (Codex binds the host's `/tmp` writable under workspace-write), so a
 *   command can neither read nor plant files in the host's temporary folder; TMPDIR points at it;
 * - the whole workspace is writable, `.git` included (Codex keeps `.git` and `.codex` read-only),
 *   so that `git commit` works; a hook written there runs later outside the sandbox;
 * - no `--new-session`: Codex uses it against TIOCSTI injection into a controlling terminal, but
 *   ak's commands have none (pipes, started in a session of their own), and keeping the command
 *   in the spawned process group lets Ctrl-C (`\u0003`) reach it;
 * - no seccomp filter or Landlock rules on top.
 * Reads are not confined (as in Codex): a command can read whatever the server's user can.
 */

/** The sandbox modes, Codex's names; `off` runs commands as the server's user, unconfined. */
export const SANDBOX_MODES = ['off', 'workspace-write', 'read-only'] as const
export type SandboxMode = (typeof SANDBOX_MODES)[number]
/** The mode when none is given. */
export const DEFAULT_SANDBOX_MODE: SandboxMode = 'off'
/** The bubblewrap program looked up on PATH. */
export const BWRAP_PROGRAM = 'bwrap'
/** Time limit of the start-up check that bubblewrap can create the sandbox, in ms. */
export const SANDBOX_CHECK_TIMEOUT_MS = 10_000

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
}

/** No sandbox: today's behaviour, the default. */
export const NO_SANDBOX: Sandbox = {mode: 'off', network: true}

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
  const network = sandbox.network ? 'Network access is allowed.' : 'There is no network access (not even to localhost services outside the sandbox).'
  switch (sandbox.mode) {
    case 'off': {
      return 'Commands run unsandboxed, with all the rights of the server\'s user.'
    }
    case 'workspace-write': {
      return (
        'Commands run in a sandbox (workspace-write): they can read everything but write only inside the workspace and ' +
        'in a private /tmp that is emptied when the command ends; writing anywhere else fails with "Read-only file system". ' +
        `${network} Background processes end with the command.`
      )
    }
    case 'read-only': {
      return (
        'Commands run in a sandbox (read-only): they can read everything but write nowhere, not even in the workspace or ' +
        `/tmp; writes fail with "Read-only file system". ${network} Background processes end with the command.`
      )
    }
  }
}

/** Where the sandbox is laid out for one command. */
export interface SandboxLayout {
  /** Real path of the workspace. */
  workspace: string
  /** Real path of the folder the command starts in (inside the workspace). */
  cwd: string
  /** Further paths the command may read even when they lie in the host's `/tmp` (the shell snapshot). */
  readOnlyPaths?: readonly string[]
}

/**
 * The bubblewrap arguments (after the program) that run a command under `sandbox`, ending in
 * `--`; the command's argv follows. Pure. Order matters: a later mount covers an earlier one, so
 * the workspace and the extra paths are bound after the private `/tmp` (a workspace under `/tmp`
 * stays visible), and a read-only `/tmp` is remounted read-only after its mount points exist.
 */
export function bwrapArguments(sandbox: SandboxPolicy, layout: SandboxLayout): string[] {
  const args = ['--die-with-parent', '--unshare-pid']
  if (!sandbox.network) args.push('--unshare-net')
  args.push('--ro-bind', '/', '/', '--dev', '/dev', '--proc', '/proc', '--tmpfs', '/tmp')
  const workspaceBind = sandbox.mode === 'workspace-write' ? '--bind' : '--ro-bind'
  args.push(workspaceBind, layout.workspace, layout.workspace)
  for (const file of layout.readOnlyPaths ?? []) args.push('--ro-bind', file, file)
  if (sandbox.mode === 'read-only') args.push('--remount-ro', '/tmp')
  args.push('--setenv', 'TMPDIR', '/tmp', '--chdir', layout.cwd, '--')
  return args
}

function isExecutable(file: string): boolean {
  try {
    accessSync(file, constants.X_OK)
    return statSync(file).isFile()
  } catch {
    return false
  }
}

/** The first executable `bwrap` on `searchPath`, or undefined. */
export function findBwrap(searchPath: string | undefined): string | undefined {
  for (const folder of (searchPath ?? '').split(path.delimiter)) {
    if (folder && path.isAbsolute(folder) && isExecutable(path.join(folder, BWRAP_PROGRAM))) return path.join(folder, BWRAP_PROGRAM)
  }
  return undefined
}

/** How to install bubblewrap, for messages. */
export const BWRAP_INSTALL_HINT =
  'Install bubblewrap: `sudo apt-get install bubblewrap` (Debian, Ubuntu), `sudo dnf install bubblewrap` (Fedora), ' +
  '`sudo pacman -S bubblewrap` (Arch), `sudo apk add bubblewrap` (Alpine)'

/** Why bubblewrap may fail to create namespaces, and what to change, for messages. */
export const BWRAP_NAMESPACE_HINT =
  'This happens where user namespaces are not allowed: in a Docker or Podman container, start it with ' +
  '`--security-opt seccomp=unconfined --security-opt apparmor=unconfined` (or `--privileged`); on Ubuntu 24.04 and ' +
  'later, allow them with `sudo sysctl kernel.apparmor_restrict_unprivileged_userns=0`; on older Debian kernels, ' +
  '`sudo sysctl kernel.unprivileged_userns_clone=1`'

/** Thrown when the sandbox asked for cannot run here. Exit code 2, as a flag that cannot be honoured. */
export class SandboxUnavailableError extends BadInputError {}

/** The outcome of checking whether the sandbox can run here (`ak doctor`, start-up). */
export type SandboxCheck = {ok: true; bwrap: string; version: string} | {ok: false; reason: string; fix: string}

function runBwrap(bwrap: string, args: string[], env: NodeJS.ProcessEnv): Promise<{code: number | null; output: string}> {
  return new Promise((resolve) => {
    const child = spawn(bwrap, args, {env, stdio: ['ignore', 'pipe', 'pipe']})
    let output = ''
    const collect = (chunk: Buffer) => {
      if (output.length < 4096) output += chunk.toString('utf8')
    }
    child.stdout!.on('data', collect)
    child.stderr!.on('data', collect)
    const timer = setTimeout(() => child.kill('SIGKILL'), SANDBOX_CHECK_TIMEOUT_MS)
    child.once('error', (error) => {
      clearTimeout(timer)
      resolve({code: null, output: error.message})
    })
    child.once('close', (code) => {
      clearTimeout(timer)
      resolve({code, output: output.trim()})
    })
  })
}

/**
 * Checks that bubblewrap can build the sandbox of `policy` here, by running `/bin/true` in it
 * with `workspace` as the workspace. Never throws.
 */
export async function checkSandbox(
  policy: SandboxPolicy,
  options: {workspace: string; env?: NodeJS.ProcessEnv; platform?: NodeJS.Platform},
): Promise<SandboxCheck> {
  const env = options.env ?? process.env
  if ((options.platform ?? process.platform) !== 'linux') {
    return {
      ok: false,
      reason: `the sandbox is Linux-only for now (it uses bubblewrap); this is ${options.platform ?? process.platform}`,
      fix: 'run without --sandbox (commands then run unconfined), or serve from a Linux machine or VM',
    }
  }
  const bwrap = findBwrap(env.PATH)
  if (!bwrap) return {ok: false, reason: 'bubblewrap (bwrap) is not on PATH', fix: `${BWRAP_INSTALL_HINT}, or run without --sandbox`}
  const version = (await runBwrap(bwrap, ['--version'], env)).output.split('\n', 1)[0] ?? ''
  const probe = await runBwrap(
    bwrap,
    [...bwrapArguments(policy, {workspace: options.workspace, cwd: options.workspace}), '/bin/true'],
    env,
  )
  if (probe.code !== 0) {
    return {
      ok: false,
      reason: `${bwrap} cannot create the sandbox here: ${probe.output.split('\n', 1)[0] || `exit code ${probe.code}`}`,
      fix: `${BWRAP_NAMESPACE_HINT}; or run without --sandbox`,
    }
  }
  return {ok: true, bwrap, version}
}

/**
 * The sandbox for `policy`, checked to work here (see checkSandbox); NO_SANDBOX-like for `off`.
 * @throws SandboxUnavailableError saying why it cannot run and how to fix it.
 */
export async function openSandbox(policy: SandboxPolicy, options: {workspace: string; env?: NodeJS.ProcessEnv}): Promise<Sandbox> {
  if (policy.mode === 'off') return {...policy}
  const check = await checkSandbox(policy, options)
  if (!check.ok) {
    throw new SandboxUnavailableError(`--sandbox ${policy.mode} cannot run: ${check.reason}. ${capitalize(check.fix)}.`)
  }
  return {...policy, bwrap: check.bwrap}
}

function capitalize(text: string): string {
  return text.charAt(0).toUpperCase() + text.slice(1)
}
