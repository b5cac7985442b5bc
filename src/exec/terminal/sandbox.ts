import type {ChildProcess, StdioNull, StdioPipe} from 'node:child_process'
import {accessSync, constants, statSync} from 'node:fs'
import path from 'node:path'
import type {Writable} from 'node:stream'

import {BadInputError} from '../../errors.js'
import type {Level} from '../level.js'
import type {Logger} from '../../log.js'
import {startProcess} from '../../process-start.js'
import {withoutInheritedDescriptors} from './inherited-descriptors.js'
import {MIN_BWRAP_VERSION, NO_SANDBOX, type Sandbox, type SandboxPolicy} from './sandbox-policy.js'
import {SECCOMP_ARCHES, isSeccompArch, seccompProgram} from './seccomp-filter.js'

/**
 * The terminal sandbox (DESIGN §4.8; its settings are in sandbox-policy.ts): on Linux, each
 * command runs under bubblewrap (`bwrap`) with the root file system read-only, the workspace
 * writable (`workspace-write`) or not (`read-only`), a private `/tmp`, its own `/dev` and
 * `/proc`, a new PID namespace that dies with the command, and a new network namespace unless
 * network is allowed. Background processes end with the command: when its shell exits, the
 * namespace's init (bubblewrap) exits and the kernel kills everything left in the namespace.
 *
 * The command holds no capabilities and can make no namespace or mount of its own, whoever runs
 * the server: bubblewrap enters a user namespace (`--unshare-user`; as root, the same uid inside,
 * but only within that namespace), drops every capability (`--cap-drop ALL`: as root bubblewrap
 * would otherwise keep them all, and `unshare -m` then remounts `/` writable or unmounts the
 * sandbox's `/proc` to show the host's), forbids further user namespaces (`--disable-userns`, in
 * bubblewrap 0.8.0 and later), covers `/proc/sys` read-only (PROC_READ_ONLY), and installs
 * seccomp-filter.ts's filter (`--seccomp`) against what namespaces do not confine: ptrace,
 * keyrings, io_uring, and without network, sockets to the host's Unix sockets or the hypervisor.
 * It has an IPC namespace of its own (`--unshare-ipc`): a root server's command is the owner of
 * the host's root-owned System V segments, queues and semaphores and POSIX message queues, and
 * could read, change or pile them up. It inherits no descriptor the server was handed without
 * close-on-exec (inherited-descriptors.ts): a host folder's descriptor opens any file under it,
 * past the read-only view.
 *
 * The bubblewrap layout follows Codex's Linux sandbox (`codex-rs/linux-sandbox/src/bwrap.rs`):
 * `--ro-bind / /`, then `--dev /dev`, then the writable roots bound over it, `--unshare-pid` with
 * a fresh `--proc /proc`, `--unshare-net` when network is off, and `--die-with-parent`. Where ak
 * differs from Codex:
 * - `/tmp` is a private tmpfs (Codex binds the host's `/tmp` writable under workspace-write), so a
 *   command can neither read nor plant files in the host's temporary folder; TMPDIR points at it;
 * - inside the workspace only the protected paths (protected-paths.ts) are read-only, bound by
 *   sandbox-protected.ts: git's config, hooks and the like, but not its objects, refs and index, so
 *   that `git commit` works (Codex keeps the whole `.git` read-only, and `.codex`);
 * - no `--new-session`: Codex uses it against TIOCSTI injection into a controlling terminal, but
 *   ak's commands have none (pipes, started in a session of their own), and keeping the command
 *   in the spawned process group lets Ctrl-C (`\u0003`) reach it;
 * - the seccomp filter also refuses ptrace, keyrings, mounts and new namespaces with the network
 *   on (Codex's refuses only io_uring and vsock with it on), and no Landlock rules are added.
 * Reads are not confined (as in Codex): a command can read whatever the server's user can.
 */

/** The bubblewrap program looked up on PATH. */
export const BWRAP_PROGRAM = 'bwrap'
/** Time limit of the start-up check that bubblewrap can create the sandbox, in ms. */
export const SANDBOX_CHECK_TIMEOUT_MS = 10_000
/**
 * The descriptor on which bubblewrap reads the seccomp filter (`--seccomp`): the spawn gives it a
 * pipe there (withSeccompPipe) and writes the program into it (sendSeccompProgram). It follows the
 * command's start gate (START_GATE_FD, 3); bubblewrap closes it before the command runs.
 */
export const SECCOMP_FD = 4

/**
 * Parts of the sandbox's own `/proc` covered read-only (bound from the host's, where they exist;
 * bubblewrap covers `/proc/irq` and `/proc/bus` itself). A server run as root runs commands as
 * uid 0 in their user namespace, which is the host's root for the kernel's plain permission
 * checks: without this, `/proc/sys` (`kernel.core_pattern` runs a program as the host's root) and
 * `/proc/sysrq-trigger` (reboot) would be writable. Docker's default masks cover the same.
 */
export const PROC_READ_ONLY: readonly string[] = ['/proc/sys', '/proc/sysrq-trigger', '/proc/fs']

/** Where the sandbox is laid out for one command. */
export interface SandboxLayout {
  /** Real path of the workspace. */
  workspace: string
  /**
   * Further paths bound read-only, last: ones the command may read even when they lie in the
   * host's `/tmp` (the shell snapshot), and ones it may not write inside its writable roots
   * (Codex's read-only paths, codex-sandbox-state.ts).
   */
  readOnlyPaths?: readonly string[]
  /**
   * The binds that keep protected paths read-only inside the workspace (sandbox-protected.ts's
   * `args`), applied after the workspace's own bind under `workspace-write`.
   */
  protectedMounts?: readonly string[]
  /**
   * Under `workspace-write`, the real paths inside the workspace the command may write, when
   * narrower than the workspace (Codex's writable roots, codex-sandbox-state.ts); default the workspace.
   */
  writableRoots?: readonly string[]
}

/**
 * The bubblewrap arguments (after the program) that run a command under `sandbox`, ending in
 * `--`; the command's argv follows. Pure. Order matters: a later mount covers an earlier one, so
 * the workspace and the extra paths are bound after the private `/tmp` (a workspace under `/tmp`
 * stays visible), and a read-only `/tmp` is remounted read-only after its mount points exist.
 */
export function bwrapArguments(sandbox: SandboxPolicy, layout: SandboxLayout): string[] {
  const args = ['--die-with-parent', '--unshare-user', '--disable-userns', '--cap-drop', 'ALL', '--unshare-pid', '--unshare-ipc']
  if (!sandbox.network) args.push('--unshare-net')
  args.push('--ro-bind', '/', '/', '--dev', '/dev', '--proc', '/proc')
  for (const entry of PROC_READ_ONLY) args.push('--ro-bind-try', entry, entry)
  args.push('--tmpfs', '/tmp')
  const narrowed = layout.writableRoots !== undefined && !layout.writableRoots.includes(layout.workspace)
  const workspaceBind = sandbox.mode === 'workspace-write' && !narrowed ? '--bind' : '--ro-bind'
  args.push(workspaceBind, layout.workspace, layout.workspace)
  if (sandbox.mode === 'workspace-write' && narrowed) for (const root of layout.writableRoots ?? []) args.push('--bind', root, root)
  if (sandbox.mode === 'workspace-write') args.push(...(layout.protectedMounts ?? []))
  for (const file of layout.readOnlyPaths ?? []) args.push('--ro-bind', file, file)
  if (sandbox.mode === 'read-only') args.push('--remount-ro', '/tmp')
  // No --chdir: bubblewrap starts the command in the folder it was itself started in, which is
  // the command's folder (spawned there, possibly through a verified descriptor path) and lies in
  // the workspace, visible inside.
  args.push('--seccomp', String(SECCOMP_FD), '--setenv', 'TMPDIR', '/tmp', '--')
  return args
}

/**
 * `stdio` for spawning bubblewrap with bwrapArguments: the given entries, `'ignore'` up to
 * SECCOMP_FD, and a pipe there. Pure.
 */
export function withSeccompPipe(stdio: ReadonlyArray<StdioNull | StdioPipe>): Array<StdioNull | StdioPipe> {
  const padded = [...stdio]
  while (padded.length < SECCOMP_FD) padded.push('ignore')
  padded[SECCOMP_FD] = 'pipe'
  return padded
}

/**
 * Writes `program` (seccompProgram) into the SECCOMP_FD pipe of `child`, spawned with
 * withSeccompPipe, and ends it: bubblewrap reads the pipe to its end. A child already gone
 * (EPIPE) is ignored: its exit says what happened.
 */
export function sendSeccompProgram(child: ChildProcess, program: Uint8Array): void {
  const pipe = child.stdio[SECCOMP_FD] as Writable | null | undefined
  if (!pipe) return
  pipe.on('error', () => {})
  pipe.end(program)
}

/**
 * `[major, minor, patch]` of the first `x.y.z` in `bwrap --version`'s output (`bubblewrap
 * 0.8.0`), or undefined.
 */
export function parseBwrapVersion(output: string): [number, number, number] | undefined {
  const match = /(\d+)\.(\d+)\.(\d+)/.exec(output)
  return match ? [Number(match[1]), Number(match[2]), Number(match[3])] : undefined
}

/** Whether `version` is at least MIN_BWRAP_VERSION. */
export function isBwrapRecentEnough(version: readonly [number, number, number]): boolean {
  const minimum = parseBwrapVersion(MIN_BWRAP_VERSION)!
  for (let index = 0; index < 3; index++) {
    if (version[index] !== minimum[index]) return version[index]! > minimum[index]!
  }
  return true
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

export {MIN_BWRAP_VERSION} from './sandbox-policy.js'

/** How to get a recent enough bubblewrap, for messages. */
export const BWRAP_UPGRADE_HINT =
  `Install bubblewrap ${MIN_BWRAP_VERSION} or later: Debian 12 and Ubuntu 24.04 ship it (\`sudo apt-get install bubblewrap\`, ` +
  '`sudo dnf install bubblewrap`); elsewhere put a newer `bwrap` first on PATH'

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

function runBwrap(
  bwrap: string,
  args: string[],
  env: NodeJS.ProcessEnv,
  seccomp?: Uint8Array,
): Promise<{code: number | null; output: string}> {
  const stdio: Array<StdioNull | StdioPipe> = ['ignore', 'pipe', 'pipe']
  const started = startProcess(bwrap, args, {
    env,
    stdio: () => withoutInheritedDescriptors(seccomp ? withSeccompPipe(stdio) : stdio),
    what: 'bubblewrap',
    fix: `Check the bubblewrap installation (${BWRAP_INSTALL_HINT}).`,
  })
  return started.then((child) => collectBwrap(child, seccomp), (error: Error) => ({code: null, output: error.message}))
}

function collectBwrap(child: ChildProcess, seccomp: Uint8Array | undefined): Promise<{code: number | null; output: string}> {
  return new Promise((resolve) => {
    if (seccomp) sendSeccompProgram(child, seccomp)
    let output = ''
    const collect = (chunk: Buffer) => {
      if (output.length < 4096) output += chunk.toString('utf8')
    }
    child.stdout!.on('data', collect)
    child.stderr!.on('data', collect)
    const timer = setTimeout(() => child.kill('SIGKILL'), SANDBOX_CHECK_TIMEOUT_MS)
    child.once('close', (code) => {
      clearTimeout(timer)
      resolve({code, output: output.trim()})
    })
  })
}

/**
 * Checks that bubblewrap can build the sandbox of `policy` here: a known architecture (for the
 * seccomp filter), bubblewrap on PATH, at least MIN_BWRAP_VERSION, and able to run `/bin/true`
 * in the sandbox with `workspace` as the workspace. Never throws.
 */
export async function checkSandbox(
  policy: SandboxPolicy,
  options: {workspace: string; env?: NodeJS.ProcessEnv; platform?: NodeJS.Platform; arch?: string},
): Promise<SandboxCheck> {
  const env = options.env ?? process.env
  if ((options.platform ?? process.platform) !== 'linux') {
    return {
      ok: false,
      reason: `the sandbox is Linux-only for now (it uses bubblewrap); this is ${options.platform ?? process.platform}`,
      fix: 'run without --sandbox (commands then run unconfined), or serve from a Linux machine or VM',
    }
  }
  const arch = options.arch ?? process.arch
  if (!isSeccompArch(arch)) {
    return {
      ok: false,
      reason: `the sandbox's system call filter knows ${SECCOMP_ARCHES.join(' and ')} only; this machine is ${arch}`,
      fix: 'run without --sandbox (commands then run unconfined), or serve from an x64 or arm64 Linux machine or VM',
    }
  }
  const bwrap = findBwrap(env.PATH)
  if (!bwrap) return {ok: false, reason: 'bubblewrap (bwrap) is not on PATH', fix: `${BWRAP_INSTALL_HINT}, or run without --sandbox`}
  const version = (await runBwrap(bwrap, ['--version'], env)).output.split('\n', 1)[0] ?? ''
  const tooOld = {
    ok: false as const,
    reason: `${bwrap} is ${version || 'a bubblewrap of unknown version'}, too old: the sandbox needs bubblewrap ${MIN_BWRAP_VERSION} or later (for --disable-userns)`,
    fix: `${BWRAP_UPGRADE_HINT}; or run without --sandbox`,
  }
  const parsed = parseBwrapVersion(version)
  if (parsed && !isBwrapRecentEnough(parsed)) return tooOld
  const probe = await runBwrap(
    bwrap,
    [...bwrapArguments(policy, {workspace: options.workspace}), '/bin/true'],
    env,
    seccompProgram({network: policy.network, arch}),
  )
  if (probe.code !== 0 && /unknown option|unrecognized option/i.test(probe.output)) return tooOld
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
  return {...policy, bwrap: check.bwrap, seccompProgram: seccompProgram({network: policy.network})}
}

function capitalize(text: string): string {
  return text.charAt(0).toUpperCase() + text.slice(1)
}
