import {spawn} from 'node:child_process'
import {accessSync, constants, statSync} from 'node:fs'
import path from 'node:path'

import {BadInputError} from '../../errors.js'
import type {Level} from '../level.js'
import type {Logger} from '../../log.js'
import {NO_SANDBOX, type Sandbox, type SandboxPolicy} from './sandbox-policy.js'

/**
 * The terminal sandbox (DESIGN §4.8; its settings are in sandbox-policy.ts): on Linux, each
 * command runs under bubblewrap (`bwrap`) with the root file system read-only, the workspace
 * writable (`workspace-write`) or not (`read-only`), a private `/tmp`, its own `/dev` and
 * `/proc`, a new PID namespace that dies with the command, and a new network namespace unless
 * network is allowed. Background processes end with the command: when its shell exits, the
 * namespace's init (bubblewrap) exits and the kernel kills everything left in the namespace.
 *
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

/** The bubblewrap program looked up on PATH. */
export const BWRAP_PROGRAM = 'bwrap'
/** Time limit of the start-up check that bubblewrap can create the sandbox, in ms. */
export const SANDBOX_CHECK_TIMEOUT_MS = 10_000

/** Where the sandbox is laid out for one command. */
export interface SandboxLayout {
  /** Real path of the workspace. */
  workspace: string
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
  // No --chdir: bubblewrap starts the command in the folder it was itself started in, which is
  // the command's folder (spawned there, possibly through a verified descriptor path) and lies in
  // the workspace, visible inside.
  args.push('--setenv', 'TMPDIR', '/tmp', '--')
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
    [...bwrapArguments(policy, {workspace: options.workspace}), '/bin/true'],
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
 * The sandbox for `policy` at `level`, checked to work here (see checkSandbox): what a server
 * passes to createExecRuntime. `off`, or a level below `terminal` (no command runs there; `log`
 * says so), gives no sandbox.
 * @throws SandboxUnavailableError saying why the sandbox cannot run here and how to fix it.
 */
export async function openSandbox(
  policy: SandboxPolicy,
  options: {workspace: string; level: Level; env?: NodeJS.ProcessEnv; log?: Logger},
): Promise<Sandbox> {
  if (policy.mode === 'off') return {...NO_SANDBOX}
  if (options.level !== 'terminal') {
    options.log?.warn(`the sandbox (${policy.mode}) has no effect at level ${options.level}: only the terminal level runs commands`)
    return {...NO_SANDBOX}
  }
  const check = await checkSandbox(policy, options)
  if (!check.ok) {
    throw new SandboxUnavailableError(`The sandbox ${policy.mode} cannot run: ${check.reason}. ${capitalize(check.fix)}.`)
  }
  return {...policy, bwrap: check.bwrap}
}

function capitalize(text: string): string {
  return text.charAt(0).toUpperCase() + text.slice(1)
}
