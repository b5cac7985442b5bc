import type {ChildProcess} from 'node:child_process'
import {mkdtempSync, rmSync, statSync, writeFileSync} from 'node:fs'
import {tmpdir} from 'node:os'
import path from 'node:path'

import type {Logger} from '../../log.js'
import {LimitReachedError} from '../../errors.js'
import {startProcess} from '../../process-start.js'
import {describeSystemError, isSystemError} from '../fs-errors.js'
import {withoutInheritedDescriptors} from './inherited-descriptors.js'
import {KILL_GRACE_MS} from './limits.js'
import {stopProcessGroup} from './process-tree.js'
import {sendSeccompProgram, withSeccompPipe} from './sandbox.js'
import {COMMAND_TAG_VARIABLE, quoteForShell} from './shell.js'

/**
 * The shell snapshot (DESIGN §4.5): what a login shell sets up — its functions, shell options,
 * aliases and exported variables — captured once into a file, so that each command runs in a
 * non-login shell that sources that file instead of re-reading the whole profile (about 4 ms
 * instead of the profile's cost, 180 ms and more).
 *
 * Modelled on Codex's shell snapshot (`codex-rs/core/src/shell_snapshot.rs`): a login shell runs a
 * script that prints a marker line, then `unalias -a`, the functions, the options, the aliases and
 * the exported variables (PWD and OLDPWD left out); the file is checked by sourcing it with
 * `set -e` in a non-login shell before it is used; capture and check each have a time limit.
 * Where ak differs: it captures exactly what `$SHELL -lc` reads (Codex also sources `~/.bashrc`
 * and `~/.zshrc`), so that a command sees what it saw under the login shell; it also restores
 * bash's `shopt` settings (`expand_aliases` among them); it recaptures when a profile file
 * changes; and it runs the command through `eval` after sourcing, because zsh parses a whole
 * `-c` string before running any of it, so aliases the snapshot defines would not apply otherwise.
 */

/** Time limit of one capture, and of the check that sources its result: Codex's SNAPSHOT_TIMEOUT. */
export const SNAPSHOT_TIMEOUT_MS = 10_000
/**
 * After a capture passed its time limit, the next one is tried this long later (a busy machine
 * can stall a profile that is normally fast); other failures wait for a profile change.
 */
export const SNAPSHOT_RETRY_AFTER_TIMEOUT_MS = 60_000
/** Captures tried again after a time-out, for the same profile files, before giving up. */
export const SNAPSHOT_TIMEOUT_RETRIES = 3
/**
 * When a capture is stopped (the server stops, or it passed its time limit), time between the
 * SIGTERM that lets the profile's EXIT traps run and the SIGKILL: the grace commands get.
 */
export const SNAPSHOT_STOP_GRACE_MS = KILL_GRACE_MS
/** Largest snapshot accepted, in bytes; a bigger one is a capture failure. */
export const MAX_SNAPSHOT_BYTES = 8 * 1024 * 1024
/** Set to `off` (or `0`, `false`, `no`) in the server's environment to run every command in a login shell. */
export const SNAPSHOT_SWITCH_ENV = 'AK_EXEC_SHELL_SNAPSHOT'
/** Overrides SNAPSHOT_TIMEOUT_MS, in ms, for profiles that take longer to load. */
export const SNAPSHOT_TIMEOUT_ENV = 'AK_EXEC_SHELL_SNAPSHOT_TIMEOUT_MS'

/** The first line of every snapshot; what a profile prints before it is dropped. */
const SNAPSHOT_MARKER = '# ak shell snapshot'
/**
 * Exported variables a snapshot leaves out: those the shell sets for itself (PWD, OLDPWD, SHLVL,
 * `_`) and the tag that marks each command's processes, which must stay the command's own.
 */
export const SNAPSHOT_EXCLUDED_VARIABLES: readonly string[] = ['PWD', 'OLDPWD', 'SHLVL', '_', COMMAND_TAG_VARIABLE]
/** zsh options a sourced file cannot or must not change (they describe how the shell was started). */
const ZSH_FIXED_OPTIONS = ['login', 'interactive', 'shinstdin', 'privileged', 'restricted', 'singlecommand', 'zle', 'monitor']

/** The shells a snapshot can be taken of. */
export type SnapshotShell = 'bash' | 'zsh'

/** Which snapshot script fits `shell` (a path), or undefined for shells without one (sh, dash…). */
export function snapshotShellOf(shell: string): SnapshotShell | undefined {
  const name = path.basename(shell)
  return name === 'bash' || name === 'zsh' ? name : undefined
}

const excludedPattern = SNAPSHOT_EXCLUDED_VARIABLES.join('|')

/**
 * The script a login shell runs to print its snapshot on stdout. Every command word is quoted
 * (`\builtin`) so that aliases the profile defined cannot change what the script does.
 */
export function snapshotScript(shell: SnapshotShell): string {
  if (shell === 'bash') {
    return [
      `\\builtin printf '%s\\n' '${SNAPSHOT_MARKER}' 'unalias -a 2>/dev/null'`,
      '\\builtin declare -f',
      '\\builtin set +o',
      // login_shell and restricted_shell are read-only: setting them fails.
      '\\builtin shopt -p | while IFS= \\builtin read -r __ak_line; do',
      '  case "$__ak_line" in *" login_shell"|*" restricted_shell") ;; *) \\builtin printf \'%s\\n\' "$__ak_line" ;; esac',
      'done',
      '\\builtin alias -p',
      'while IFS= \\builtin read -r __ak_name; do',
      `  case "$__ak_name" in ${excludedPattern}) continue ;; esac`,
      // Read-only variables cannot be declared again (`${name@a}` holds the attributes, bash 4.4+).
      '  case "${!__ak_name@a}" in *r*) continue ;; esac',
      '  \\builtin declare -p "$__ak_name"',
      'done < <(\\builtin compgen -e)',
    ].join('\n')
  }
  return [
    `\\builtin print -rl -- '${SNAPSHOT_MARKER}' 'unalias -a 2>/dev/null'`,
    '\\builtin functions',
    '\\builtin setopt | while \\builtin read -r __ak_option; do',
    `  case "$__ak_option" in (${ZSH_FIXED_OPTIONS.flatMap((name) => [name, `no${name}`]).join('|')}) ;; (*) \\builtin print -r -- "setopt $__ak_option 2>/dev/null" ;; esac`,
    'done',
    '\\builtin alias -L',
    'for __ak_name in ${(k)parameters}; do',
    '  case "${parameters[$__ak_name]}" in (*readonly*) continue ;; (*export*) ;; (*) continue ;; esac',
    `  case "$__ak_name" in (${excludedPattern}) continue ;; esac`,
    '  \\builtin print -r -- "export $__ak_name=${(qq)${(P)__ak_name}}"',
    'done',
  ].join('\n')
}

/**
 * The files a login shell of either kind reads at start (bash: /etc/profile, ~/.bash_profile,
 * ~/.bash_login, ~/.profile and the ~/.bashrc those usually source; zsh: the zshenv, zprofile,
 * zshrc and zlogin files of /etc, /etc/zsh and $ZDOTDIR or ~; sh: $ENV), plus /etc/profile.d,
 * whose folder changes when a file is added or removed. A change to any of them makes the
 * snapshot stale.
 */
export function profileFiles(env: NodeJS.ProcessEnv): string[] {
  const home = env.HOME ?? ''
  const zdotdir = env.ZDOTDIR || home
  const files = ['/etc/profile', '/etc/profile.d', '/etc/bash.bashrc', '/etc/bashrc']
  if (home) files.push(...['.bash_profile', '.bash_login', '.profile', '.bashrc'].map((name) => path.join(home, name)))
  for (const name of ['zshenv', 'zprofile', 'zshrc', 'zlogin']) {
    files.push(`/etc/${name}`, `/etc/zsh/${name}`)
    if (zdotdir) files.push(path.join(zdotdir, `.${name}`))
  }
  for (const variable of ['BASH_ENV', 'ENV']) {
    const file = env[variable]
    if (file && path.isAbsolute(file)) files.push(file)
  }
  return files
}

/** A fingerprint of `files` (size, modification time and inode of each; `-` for a missing one). */
export function profileSignature(files: readonly string[]): string {
  return files
    .map((file) => {
      try {
        const stat = statSync(file)
        return `${stat.ino}:${stat.size}:${stat.mtimeMs}`
      } catch {
        return '-'
      }
    })
    .join('|')
}

/** The snapshot text printed by a capture: from the marker on (what the profile printed before it is dropped). */
export function snapshotFromOutput(output: string): string | undefined {
  if (output.startsWith(SNAPSHOT_MARKER)) return output
  const at = output.indexOf(`\n${SNAPSHOT_MARKER}`)
  return at === -1 ? undefined : output.slice(at + 1)
}

/** Settings of ShellSnapshots. */
export interface ShellSnapshotsOptions {
  /** The shell commands run in (resolveShell). */
  shell: string
  /** The environment commands start with (commandEnvironment); the capture runs with it. */
  env: NodeJS.ProcessEnv
  /** Folder the capture runs in (the workspace root). */
  cwd: string
  /** Where the one-time "why commands run in a login shell" line goes. */
  log: Logger
  /**
   * Turns a program and its arguments into what is actually spawned (the sandbox's wrapper);
   * given the folder the snapshot files live in, which the wrapper must let the shell read.
   */
  wrap?: (argv: string[], snapshotDir: string) => string[]
  /** The seccomp filter the wrapper reads on SECCOMP_FD (sandbox.ts), if it asks for one. */
  seccompProgram?: Uint8Array
  /** Time limit of capture and check, in ms. Default: SNAPSHOT_TIMEOUT_ENV, else SNAPSHOT_TIMEOUT_MS. */
  timeoutMs?: number
  /** Wait before trying again after a time-out, in ms. Default SNAPSHOT_RETRY_AFTER_TIMEOUT_MS. */
  retryAfterTimeoutMs?: number
}

/** Whether the server's environment turns the snapshot off (SNAPSHOT_SWITCH_ENV). */
export function isSnapshotSwitchedOff(env: NodeJS.ProcessEnv): boolean {
  return ['off', '0', 'false', 'no'].includes((env[SNAPSHOT_SWITCH_ENV] ?? '').trim().toLowerCase())
}

interface RunResult {
  code: number | null
  stdout: string
  stderr: string
  timedOut: boolean
  /** Why the process could not be started (startProcess's message), if it was not. */
  startError?: string
  /** Whether it could not be started for want of descriptors, processes or memory: worth a retry. */
  isShortage?: boolean
}

/**
 * Runs `argv` detached with stdin closed. At `timeoutMs`, or when `signal` aborts, its process
 * group is stopped gently (stopProcessGroup: SIGTERM, so that the profile's EXIT traps run, then
 * SIGKILL after SNAPSHOT_STOP_GRACE_MS); so is whatever the profile left running in the group
 * once the shell exits. Resolves after that. Output past MAX_SNAPSHOT_BYTES empties stdout.
 * `isWrapped`: the leader is the sandbox's bubblewrap (see stopProcessGroup's `spareLeader`);
 * `seccompProgram` goes to it (sendSeccompProgram).
 */
function runBounded(
  argv: string[],
  options: {cwd: string; env: NodeJS.ProcessEnv; timeoutMs: number; signal: AbortSignal; isWrapped: boolean; seccompProgram?: Uint8Array},
): Promise<RunResult> {
  const stdio = ['ignore', 'pipe', 'pipe'] as const
  const started = startProcess(argv[0]!, argv.slice(1), {
    cwd: options.cwd,
    env: options.env,
    detached: true,
    stdio: () => withoutInheritedDescriptors(options.seccompProgram ? withSeccompPipe(stdio) : [...stdio]),
    what: "the shell snapshot's login shell",
    fix: 'Check the SHELL variable of the server.',
  })
  return started.then(
    (child) => collectBounded(child, options),
    (error: Error) => ({code: null, stdout: '', stderr: '', timedOut: false, startError: error.message, isShortage: error instanceof LimitReachedError}),
  )
}

/** The rest of runBounded, once `child` has started. */
function collectBounded(
  child: ChildProcess,
  options: {timeoutMs: number; signal: AbortSignal; isWrapped: boolean; seccompProgram?: Uint8Array},
): Promise<RunResult> {
  return new Promise((resolve) => {
    if (options.seccompProgram) sendSeccompProgram(child, options.seccompProgram)
    const out: Buffer[] = []
    const err: Buffer[] = []
    let outBytes = 0
    let timedOut = false
    child.stdout!.on('data', (chunk: Buffer) => {
      outBytes += chunk.length
      if (outBytes <= MAX_SNAPSHOT_BYTES) out.push(chunk)
    })
    child.stderr!.on('data', (chunk: Buffer) => {
      if (err.length < 64) err.push(chunk)
    })
    let stopping: Promise<void> | undefined
    const stop = () =>
      (stopping ??= child.pid === undefined
        ? Promise.resolve()
        : stopProcessGroup(child.pid, {graceMs: SNAPSHOT_STOP_GRACE_MS, spareLeader: options.isWrapped}))
    const timer = setTimeout(() => {
      timedOut = true
      void stop()
    }, options.timeoutMs)
    const onAbort = () => void stop()
    if (options.signal.aborted) onAbort()
    else options.signal.addEventListener('abort', onAbort, {once: true})
    child.once('close', (code) => {
      clearTimeout(timer)
      options.signal.removeEventListener('abort', onAbort)
      const stdout = outBytes > MAX_SNAPSHOT_BYTES ? '' : Buffer.concat(out).toString('utf8')
      const result = {code, stdout, stderr: Buffer.concat(err).toString('utf8'), timedOut}
      // In the sandbox, what the profile left running died with the sandbox's PID namespace when
      // the shell exited; waiting on the group's last members as they go only delayed the snapshot
      // (a full grace for each run). Outside, it goes with the capture, gently too.
      if (options.isWrapped && stopping === undefined) resolve(result)
      else void stop().then(() => resolve(result))
    })
  })
}

type State =
  | {kind: 'idle'}
  | {kind: 'capturing'}
  | {kind: 'ready'; file: string; signature: string}
  | {kind: 'failed'; signature: string; retryAtMs: number; timeouts: number}
  | {kind: 'off'}

/**
 * The shell snapshot of one CommandSessions: captured in the background at the first command,
 * recaptured when a profile file changes. `current()` answers the snapshot file a command should
 * source, or undefined while there is none (first command, capture under way, profile just
 * changed, capture failed, unsupported shell, switched off): that command then runs in a login
 * shell, which is always correct, only slower. A failed capture is said once on the log; it is
 * retried after a profile file changes, or, when it only passed the time limit, a few times
 * after SNAPSHOT_RETRY_AFTER_TIMEOUT_MS.
 */
export class ShellSnapshots {
  private readonly shell: SnapshotShell | undefined
  private readonly files: string[]
  private readonly timeoutMs: number
  private state: State = {kind: 'idle'}
  private dir: string | undefined
  private generation = 0
  private capture: Promise<void> | undefined
  private isClosed = false
  /** Aborted by close(): stops a capture under way. */
  private readonly closing = new AbortController()

  constructor(private readonly options: ShellSnapshotsOptions) {
    this.shell = snapshotShellOf(options.shell)
    this.files = profileFiles(options.env)
    const fromEnv = Number(options.env[SNAPSHOT_TIMEOUT_ENV])
    this.timeoutMs = options.timeoutMs ?? (Number.isFinite(fromEnv) && fromEnv > 0 ? fromEnv : SNAPSHOT_TIMEOUT_MS)
    if (isSnapshotSwitchedOff(options.env)) {
      this.state = {kind: 'off'}
    } else if (!this.shell) {
      this.state = {kind: 'off'}
      options.log.info(
        `commands run in a login shell each: the shell snapshot supports bash and zsh, not ${path.basename(options.shell)}`,
      )
    }
  }

  /** The folder holding the snapshot files (the sandbox lets commands read it), once one exists. */
  get snapshotDir(): string | undefined {
    return this.dir
  }

  /** Whether a snapshot is ready for the profile files as they are now. */
  get isReady(): boolean {
    return this.state.kind === 'ready' && this.state.signature === profileSignature(this.files)
  }

  /** Resolves when the capture under way (if any) has finished. For tests and benchmarks. */
  async settled(): Promise<void> {
    while (this.capture) await this.capture
  }

  /**
   * The snapshot file a command starting now should source, or undefined to run it in a login
   * shell. Starts a capture when there is no snapshot for the current profile files.
   */
  current(): string | undefined {
    const {state} = this
    if (state.kind === 'off' || state.kind === 'capturing' || this.isClosed) return undefined
    const signature = profileSignature(this.files)
    if (state.kind === 'ready' && state.signature === signature) return state.file
    let timeouts = 0
    if (state.kind === 'failed' && state.signature === signature) {
      if (state.timeouts === 0 || state.timeouts > SNAPSHOT_TIMEOUT_RETRIES || Date.now() < state.retryAtMs) return undefined
      timeouts = state.timeouts
    }
    this.start(signature, timeouts)
    return undefined
  }

  /** Stops a capture under way and removes the snapshot files; no capture starts afterwards. */
  async close(): Promise<void> {
    this.isClosed = true
    this.closing.abort()
    await this.settled()
    if (this.dir) rmSync(this.dir, {recursive: true, force: true})
  }

  /**
   * Starts a capture for the profile files as `signature` describes them; `timeouts` counts the
   * earlier captures of the same files that passed the time limit. Only the first failure for
   * given files is logged.
   */
  private start(signature: string, timeouts: number): void {
    this.state = {kind: 'capturing'}
    this.capture = this.take()
      // The snapshot folder or file could not be made (no space, too many files open): a failure
      // like the others, retried later, never a rejection nothing awaits.
      .catch((error: unknown) => ({reason: `its file could not be written (${describeError(error)})`, timedOut: true}))
      .then((result) => {
        if ('file' in result) {
          this.state = {kind: 'ready', file: result.file, signature}
          if (timeouts > 0) this.options.log.info(`the shell snapshot of ${this.options.shell} is taken; commands no longer run in a login shell each`)
          return
        }
        const failures = result.timedOut ? timeouts + 1 : 0
        const retryAfterMs = this.options.retryAfterTimeoutMs ?? SNAPSHOT_RETRY_AFTER_TIMEOUT_MS
        this.state = {kind: 'failed', signature, retryAtMs: Date.now() + retryAfterMs, timeouts: failures}
        if (this.isClosed || timeouts > 0) return
        const retry = result.timedOut ? ` It is tried again in ${retryAfterMs / 1000} s.` : ''
        this.options.log.warn(
          `the shell snapshot of ${this.options.shell} failed (${result.reason}), so commands run in a login shell ` +
            `each, which is slower.${retry} Fix the profile, or set ${SNAPSHOT_SWITCH_ENV}=off to skip the snapshot.`,
        )
      })
      .finally(() => (this.capture = undefined))
  }

  private async take(): Promise<{file: string} | {reason: string; timedOut?: boolean}> {
    const shell = this.shell!
    this.dir ??= mkdtempSync(path.join(tmpdir(), 'ak-shell-snapshot-'))
    const wrap = (argv: string[]) => (this.options.wrap ? this.options.wrap(argv, this.dir!) : argv)
    const run = (argv: string[]) =>
      runBounded(wrap(argv), {
        cwd: this.options.cwd,
        env: this.options.env,
        timeoutMs: this.timeoutMs,
        signal: this.closing.signal,
        isWrapped: this.options.wrap !== undefined,
        seccompProgram: this.options.seccompProgram,
      })
    const seconds = `${this.timeoutMs / 1000} s`
    const captured = await run([this.options.shell, '-lc', snapshotScript(shell)])
    if (this.isClosed) return {reason: 'the server is closing'}
    if (captured.startError) return {reason: captured.startError, timedOut: captured.isShortage}
    if (captured.timedOut) return {reason: `the login shell did not finish reading its profile within ${seconds}`, timedOut: true}
    if (captured.code !== 0) return {reason: `the login shell exited with ${captured.code}: ${firstLine(captured.stderr)}`}
    const snapshot = snapshotFromOutput(captured.stdout)
    if (snapshot === undefined) return {reason: 'the login shell printed no snapshot'}
    const file = path.join(this.dir, `snapshot-${++this.generation}.sh`)
    // An older file stays until close: a command that started just before may still source it.
    writeFileSync(file, snapshot, {mode: 0o600})
    const checked = await run([this.options.shell, '-c', `set -e; . ${quoteForShell(file)}`])
    if (checked.startError) return {reason: checked.startError, timedOut: checked.isShortage}
    if (checked.timedOut) return {reason: `sourcing the snapshot took longer than ${seconds}`, timedOut: true}
    if (checked.code !== 0) return {reason: `sourcing the snapshot failed: ${firstLine(checked.stderr)}`}
    if (this.isClosed) return {reason: 'the server is closing'}
    return {file}
  }
}

function describeError(error: unknown): string {
  return isSystemError(error) ? describeSystemError(error) : String((error as Error)?.message ?? error)
}

function firstLine(text: string): string {
  return text.trim().split('\n', 1)[0] || 'no message'
}
