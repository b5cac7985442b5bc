import {setTimeout as delay} from 'node:timers/promises'

import {BadInputError, LimitReachedError, NotFoundError} from '../../errors.js'
import {type Logger, silentLogger} from '../../log.js'
import type {RuntimeService} from '../runtime.js'
import type {ExecConnection} from '../context.js'
import {type CommandAnswer, NO_SESSION, commandAnswer} from './answer.js'
import {CommandSession} from './command-session.js'
import {
  COMMAND_IDLE_LIMIT_MS,
  COMMAND_PREVIEW_CHARS,
  KILL_GRACE_MS,
  MAX_RUNNING_COMMANDS,
  MAX_UNREAD_ENDED_COMMANDS,
  OUTPUT_BUFFER_CHARS,
  UNPOLLED_AFTER_MS,
  UNPOLLED_OUTPUT_BUFFER_CHARS,
} from './limits.js'
import {type StopTarget, describeProcess, pipeHolders, stopProcessTree} from './process-tree.js'
import {newProcessTag, newSessionId} from './session-id.js'
import {AllowedProtectedPaths} from '../protected-paths.js'
import {SandboxUnavailableError, bwrapArguments, openSandbox} from './sandbox.js'
import {type CallSandboxPolicy, type CodexSandboxRequest, realCodexRequest, sandboxForCall} from './codex-sandbox-state.js'
import {type ProtectedMounts, prepareProtectedMounts} from './sandbox-protected.js'
import {LeftoverChecks} from './sandbox-leftovers.js'
import {defaultStateFolder} from '../journal/state-folder.js'
import {NO_SANDBOX, type Sandbox} from './sandbox-policy.js'
import {commandEnvironment, resolveShell} from './shell.js'
import {ShellSnapshots} from './shell-snapshot.js'

/** Ids of sessions that ended unreported (stopped while idle) remembered for a clearer error. */
const REMEMBERED_STOPS = 256

/** Settings of a CommandSessions; the defaults are the limits of limits.ts. Tests shorten them. */
export interface CommandSessionsOptions {
  /** A command no call waited on for this long is stopped. Default COMMAND_IDLE_LIMIT_MS. */
  idleLimitMs?: number
  /** Time between SIGTERM and SIGKILL. Default KILL_GRACE_MS. */
  killGraceMs?: number
  /** Commands running at once. Default MAX_RUNNING_COMMANDS. */
  maxRunning?: number
  /** Ended commands kept unread. Default MAX_UNREAD_ENDED_COMMANDS. */
  maxUnreadEnded?: number
  /** Base environment of commands. Default `process.env`. */
  env?: NodeJS.ProcessEnv
  /** Characters of output kept per command between answers. Default OUTPUT_BUFFER_CHARS. */
  bufferChars?: number
  /** Characters of output kept for a command nobody polls. Default UNPOLLED_OUTPUT_BUFFER_CHARS. */
  unpolledBufferChars?: number
  /** Time without a call waiting on a command after which it counts as unpolled. Default UNPOLLED_AFTER_MS. */
  unpolledAfterMs?: number
  /** Real path of the workspace: where the shell snapshot is taken, and what the sandbox lets commands write. */
  workspace?: string
  /** The sandbox commands run in (openSandbox). Default NO_SANDBOX. */
  sandbox?: Sandbox
  /** Protected paths the operator made writable; the sandbox binds the others read-only. Default none. */
  allowedProtected?: AllowedProtectedPaths
  /** ak's state folder, where the sandbox quarantines what a command left behind (sandbox-leftovers.ts). Default: the journal's default. */
  stateFolder?: string
  /**
   * Where a process that escaped a stop is reported, and where the shell snapshot says why
   * commands run in a login shell. Default: nowhere.
   */
  log?: Logger
}

/** One call's wait on a session. */
export interface WaitOptions {
  /** How long to wait for the command to end before answering that it runs, in ms (already clamped). */
  yieldTimeMs: number
  /** The answer's output budget in tokens (already clamped). */
  maxOutputTokens: number
  /** When the call started (`performance.now()`), for `seconds`. */
  callStartedAt: number
  /** Aborted when the client cancels the call. */
  signal: AbortSignal
}

/**
 * Settles, never rejecting, once the command of `session` ends (its output read), it is retired,
 * `ms` pass or `signal` aborts, whichever comes first. Aborting `over` drops its timer and its
 * listener on `signal`: the caller aborts it once it stops waiting.
 */
function endOrYield(session: CommandSession, ms: number, signal: AbortSignal, over: AbortSignal): Promise<unknown> {
  const deadline = delay(ms, undefined, {signal: over}).catch(() => undefined)
  const cancelled = new Promise<void>((resolve) => {
    if (signal.aborted) resolve()
    signal.addEventListener('abort', () => resolve(), {once: true, signal: over})
  })
  return Promise.race([deadline, session.ended, session.retired, cancelled])
}

function preview(command: string): string {
  const line = command.replace(/\s+/g, ' ').trim()
  return line.length > COMMAND_PREVIEW_CHARS ? `${line.slice(0, COMMAND_PREVIEW_CHARS - 1)}…` : line
}

function formatAge(ms: number): string {
  const seconds = Math.floor(ms / 1000)
  if (seconds < 60) return `${seconds}s`
  const minutes = Math.floor(seconds / 60)
  if (minutes < 60) return `${minutes}m${String(seconds % 60).padStart(2, '0')}s`
  return `${Math.floor(minutes / 60)}h${String(minutes % 60).padStart(2, '0')}m`
}

/**
 * The command sessions of one runtime (DESIGN §4.5), shared by all its connections; the model is
 * Codex's unified exec process manager, with ak's rules where they differ:
 * - at most `maxRunning` commands run at once; the next start is refused with the list of running
 *   ones, and nothing is evicted. A command that ended does not count: its output (bounded) is
 *   kept until a call reads its end or its connection closes, for at most `maxUnreadEnded` such
 *   commands; past that the longest-waiting one is dropped and its id answers with its exit code;
 * - a session belongs to the connection that started it (`ExecConnection.id`); any other
 *   connection gets "unknown session". Stateless requests (`id` undefined) share one owner, so
 *   there the id alone is the capability;
 * - the answer that reports the end retires the id;
 * - a connection's close stops every command it started, including background processes left
 *   behind by commands that already ended; a command no call waited on for the idle limit is
 *   stopped; `close()` (the runtime's) stops everything.
 *
 * Every process of a command carries its owner's tag and its own tag in COMMAND_TAG_VARIABLE;
 * stopping uses them to find processes that left the process group (process-tree.ts).
 */
export class CommandSessions implements RuntimeService {
  private readonly sessions = new Map<string, CommandSession>()
  private readonly ownerTags = new Map<string | undefined, string>()
  private readonly attached = new WeakSet<ExecConnection>()
  private readonly idleTimers = new Map<string, NodeJS.Timeout>()
  private readonly unpolledTimers = new Map<string, NodeJS.Timeout>()
  private readonly busy = new Map<string, number>()
  private readonly stoppedWhileIdle = new Map<string, string | undefined>()
  /** Ended sessions not yet read, oldest end first. */
  private readonly unreadEnded = new Set<CommandSession>()
  /** Ids of ended sessions dropped unread (see maxUnreadEnded), with their owner and exit code. */
  private readonly droppedUnread = new Map<string, {owner: string | undefined; exitCode: number}>()
  private readonly stopping = new Set<Promise<void>>()
  /** Sessions whose output pipe is still open, retired or not (a background child may hold it). */
  private readonly openOutputs = new Set<CommandSession>()
  private readonly idleLimitMs: number
  private readonly killGraceMs: number
  private readonly maxRunning: number
  private readonly maxUnreadEnded: number
  private readonly env: NodeJS.ProcessEnv
  private readonly bufferChars: number
  private readonly unpolledBufferChars: number
  private readonly unpolledAfterMs: number
  private readonly workspace: string | undefined
  private readonly sandbox: Sandbox
  private readonly allowedProtected: AllowedProtectedPaths
  private readonly stateFolder: string
  /** The checks for what each sandboxed command leaves behind, until its end is reported. */
  private readonly leftovers = new Map<CommandSession, LeftoverChecks>()
  private readonly log: Logger
  private shell: string | undefined
  private snapshots: ShellSnapshots | undefined
  private starting = 0
  private isClosed = false
  /** Sandboxes opened for calls Codex sent its sandbox state with, by mode and network. */
  private readonly callSandboxes = new Map<string, Promise<Sandbox>>()

  constructor(options: CommandSessionsOptions = {}) {
    this.idleLimitMs = options.idleLimitMs ?? COMMAND_IDLE_LIMIT_MS
    this.killGraceMs = options.killGraceMs ?? KILL_GRACE_MS
    this.maxRunning = options.maxRunning ?? MAX_RUNNING_COMMANDS
    this.maxUnreadEnded = options.maxUnreadEnded ?? MAX_UNREAD_ENDED_COMMANDS
    this.env = options.env ?? process.env
    this.bufferChars = options.bufferChars ?? OUTPUT_BUFFER_CHARS
    this.unpolledBufferChars = Math.min(this.bufferChars, options.unpolledBufferChars ?? UNPOLLED_OUTPUT_BUFFER_CHARS)
    this.unpolledAfterMs = options.unpolledAfterMs ?? UNPOLLED_AFTER_MS
    this.workspace = options.workspace
    this.sandbox = options.sandbox ?? NO_SANDBOX
    this.allowedProtected = options.allowedProtected ?? AllowedProtectedPaths.NONE
    this.stateFolder = options.stateFolder ?? defaultStateFolder()
    this.log = options.log ?? silentLogger
  }

  /** The shell snapshot, once the first command started. */
  get shellSnapshot(): ShellSnapshots | undefined {
    return this.snapshots
  }

  /** Sessions open now (running, or ended and not yet reported). */
  get openCount(): number {
    return this.sessions.size
  }

  /** Commands running now (their shell has not exited), the ones the limit counts. */
  get runningCount(): number {
    let count = 0
    for (const session of this.sessions.values()) if (!session.hasExited) count++
    return count
  }

  /**
   * Makes sure the commands of `connection` are stopped when it closes. Idempotent per
   * connection; a stateless request (`id` undefined) has nothing to attach.
   */
  attach(connection: ExecConnection): void {
    const owner = connection.id
    if (owner === undefined || this.attached.has(connection)) return
    this.attached.add(connection)
    connection.onClose(() => this.closeOwner(owner))
  }

  /**
   * Starts `command` in `cwd` for `owner`.
   * @throws LimitReachedError when `maxRunning` commands run, listing the caller's running
   *   commands (id, age, command) and counting the others'.
   * @throws DispatchFailedError when the shell cannot start.
   * @throws SandboxUnavailableError when `codex` (Codex's sandbox for the call) asks for a sandbox
   *   that cannot run here: the command is refused, never run weaker.
   */
  async start(command: string, cwd: string, owner: string | undefined, codex?: CodexSandboxRequest): Promise<CommandSession> {
    if (this.isClosed) throw new LimitReachedError('The server is shutting down; no new command can start.')
    if (this.runningCount + this.starting >= this.maxRunning) throw new LimitReachedError(this.limitMessage(owner))
    let ownerTag = this.ownerTags.get(owner)
    if (!ownerTag) {
      ownerTag = newProcessTag()
      this.ownerTags.set(owner, ownerTag)
    }
    let id = newSessionId()
    while (this.sessions.has(id)) id = newSessionId()
    const tag = newProcessTag()
    this.shell ??= resolveShell(this.env)
    this.snapshots ??= this.createSnapshots(this.shell, cwd)
    const snapshotFile = this.snapshots.current()
    // Counted while the spawn is under way, so concurrent starts respect the limit.
    this.starting++
    let session: CommandSession
    let mounts: ProtectedMounts | undefined
    try {
      const root = this.workspace ?? cwd
      const policy = codex ? sandboxForCall(this.sandbox, await realCodexRequest(codex, root), root) : undefined
      const sandbox = policy ? await this.sandboxOf(policy, root) : this.sandbox
      mounts = await this.protectedMounts(root, sandbox)
      session = await CommandSession.start({
        id,
        command,
        cwd,
        owner,
        tag,
        shell: this.shell,
        env: commandEnvironment(this.env, [ownerTag, tag]),
        bufferChars: this.bufferChars,
        snapshotFile,
        wrapper: this.wrapper(root, undefined, mounts?.args, sandbox, policy),
        seccompProgram: sandbox.seccompProgram,
      })
    } catch (error) {
      await mounts?.release()
      throw error
    } finally {
      this.starting--
    }
    // Its sandbox, and so every mount on the placeholders, is gone once the command has ended;
    // then what it left behind is checked a last time.
    if (mounts) {
      const checks = new LeftoverChecks(mounts.baseline, this.stateFolder, this.log)
      this.leftovers.set(session, checks)
      checks.finishAfter(session.ended)
      // The check needs the sandbox gone, not the placeholders removed (they are among what it knows).
      // They are removed after it, once the answer it holds back has gone out: removing them takes
      // a few milliseconds of synchronous calls, which the answer does not wait for.
      const release = () =>
        mounts.release().catch((error: Error) => this.log.warn(`could not remove the sandbox's placeholders after a command: ${error.message}`))
      void checks.finished().then(() => setImmediate(release))
    }
    this.sessions.set(id, session)
    this.openOutputs.add(session)
    void session.outputClosed.then(() => this.openOutputs.delete(session))
    this.touch(session)
    void session.ended.then(() => this.keepUnread(session))
    if (this.isClosed || !this.ownerTags.has(owner)) {
      // The runtime or the owner's connection closed while the shell was starting.
      await this.stop(session)
      throw new LimitReachedError('The connection closed while the command was starting; it was stopped.')
    }
    return session
  }

  /**
   * The open session `id` of `owner`. Accepts the id as a number too (models trained on Codex
   * send numbers) and compares it as text.
   * @throws NotFoundError when no such session is open for this owner.
   */
  find(id: string | number, owner: string | undefined): CommandSession {
    const key = String(id).trim()
    const session = this.sessions.get(key)
    if (session && session.owner === owner && !session.isRetired) return session
    const dropped = this.droppedUnread.get(key)
    if (dropped && dropped.owner === owner) {
      throw new NotFoundError(
        `Session ${key} ended with exit code ${dropped.exitCode}, but its output was discarded unread because ` +
          `more than ${this.maxUnreadEnded} ended commands were waiting to be read. Poll commands until they ` +
          `report their end, or run the command again with exec_command.`,
      )
    }
    if (this.stoppedWhileIdle.has(key) && this.stoppedWhileIdle.get(key) === owner) {
      throw new NotFoundError(
        `Session ${key} was stopped because no call waited on it for ${formatAge(this.idleLimitMs)} ` +
          `(the idle limit). Start the command again with exec_command.`,
      )
    }
    throw new NotFoundError(
      `Unknown session_id "${key}": no command with this id is open for this connection. An id is ` +
        `retired by the answer that reports its command's end (exit_code a number, session_id none). ` +
        `Start a new command with exec_command.`,
    )
  }

  /**
   * Waits on `session` until its command ends or `yieldTimeMs` passes, and answers with the output
   * since the previous answer. The answer that reports the end retires the id. `before` runs first
   * (write_stdin's writes), in turn with other calls on the same session.
   * @throws NotFoundError when the session is retired meanwhile (stopped by its connection's close).
   * @throws BadInputError when the call is cancelled (the output stays for the next call).
   */
  wait(session: CommandSession, options: WaitOptions, before?: (until: Promise<unknown>) => Promise<unknown>): Promise<CommandAnswer> {
    return session.serialize(async () => {
      if (session.isRetired) this.find(session.id, session.owner)
      // Polled: what comes next is kept in full again.
      const release = this.follow(session)
      const waitOver = new AbortController()
      try {
        const until = endOrYield(session, options.yieldTimeMs, options.signal, waitOver.signal)
        if (before) await before(until)
        await until
        if (session.isRetired) this.find(session.id, session.owner)
        if (options.signal.aborted) throw new BadInputError('The call was cancelled; the command keeps running.')
        // What a sandboxed command left behind is checked at each answer, and a last time at its end.
        const checks = this.leftovers.get(session)
        if (checks && !session.hasEnded) await checks.check()
        const output = session.takeOutput()
        const hasEnded = session.hasEnded
        if (checks && hasEnded) await checks.finished()
        const notice = checks?.take()
        if (hasEnded) this.retire(session)
        const answer = commandAnswer({
          exitCode: hasEnded ? session.exitCode! : 'running',
          elapsedMs: performance.now() - options.callStartedAt,
          sessionId: hasEnded ? NO_SESSION : session.id,
          output,
          maxOutputTokens: options.maxOutputTokens,
        })
        if (notice !== undefined) answer.text += `${answer.text === '' || answer.text.endsWith('\n') ? '' : '\n'}${notice}\n`
        return answer
      } finally {
        waitOver.abort()
        release()
      }
    })
  }

  /**
   * Waits until the command of `session` ends (its output read), it is retired, `ms` pass or
   * `signal` aborts, as a call waiting on it (so it keeps its whole output meanwhile), without
   * taking its output: a call that may become a task (DESIGN §4.11) decides with this.
   * @returns whether the command has ended.
   */
  async endsWithin(session: CommandSession, ms: number, signal: AbortSignal): Promise<boolean> {
    const release = this.follow(session)
    const waitOver = new AbortController()
    try {
      await endOrYield(session, ms, signal, waitOver.signal)
      return session.hasEnded
    } finally {
      waitOver.abort()
      release()
    }
  }

  /**
   * Counts `session` as waited on until the returned function is called (a call waiting on it, or
   * a task following its command, DESIGN §4.11): it is not stopped at the idle limit, nor dropped
   * unread, and keeps its whole output (OUTPUT_BUFFER_CHARS). Following does not hold its turn, so
   * write_stdin still types into it while a task follows it. The function is idempotent, and does
   * nothing once the session is retired.
   */
  follow(session: CommandSession): () => void {
    this.busy.set(session.id, (this.busy.get(session.id) ?? 0) + 1)
    session.setOutputCapacity(this.bufferChars)
    this.touch(session)
    let isReleased = false
    return () => {
      if (isReleased) return
      isReleased = true
      if (!this.busy.has(session.id)) return // retired meanwhile
      this.busy.set(session.id, (this.busy.get(session.id) ?? 1) - 1)
      this.touch(session)
    }
  }

  /** Stops one session's command and everything it started, and retires its id. */
  async stop(session: CommandSession): Promise<void> {
    this.retire(session)
    await this.track(
      this.stopProcesses({tags: new Set([session.tag]), leaders: () => (session.hasExited ? [] : [session.pid])}, [session]),
    )
  }

  /**
   * Stops every command `owner` started (running ones, and background processes left behind by
   * ones that ended) and retires their ids. Runs when the owner's connection closes.
   */
  async closeOwner(owner: string | undefined): Promise<void> {
    const ownerTag = this.ownerTags.get(owner)
    const sessions = [...this.sessions.values()].filter((session) => session.owner === owner)
    for (const session of sessions) this.retire(session)
    this.ownerTags.delete(owner)
    if (!ownerTag) return
    const outputs = [...this.openOutputs].filter((session) => session.owner === owner)
    await this.track(
      this.stopProcesses({tags: new Set([ownerTag]), leaders: () => sessions.filter((s) => !s.hasExited).map((s) => s.pid)}, outputs),
    )
  }

  /** Stops every command of every owner and refuses new ones. Idempotent. */
  async close(): Promise<void> {
    this.isClosed = true
    await Promise.all([...this.ownerTags.keys()].map((owner) => this.closeOwner(owner)))
    await Promise.all([...this.stopping])
    await this.snapshots?.close()
  }

  /**
   * The sandbox's wrapper (`bwrap … --`) for a command of a workspace whose real path is `root`,
   * letting it read the snapshot files; undefined without a sandbox.
   */
  private wrapper(
    root: string,
    snapshotDir = this.snapshots?.snapshotDir,
    protectedMounts?: readonly string[],
    sandbox = this.sandbox,
    call?: CallSandboxPolicy,
  ): string[] | undefined {
    const {bwrap} = sandbox
    if (!bwrap) return undefined
    // Codex's read-only paths are bound after the protected ones; the snapshot folder stays readable.
    const readOnlyPaths = [...(call?.readOnlyPaths ?? []), ...(snapshotDir ? [snapshotDir] : [])]
    return [bwrap, ...bwrapArguments(sandbox, {workspace: root, readOnlyPaths, protectedMounts, writableRoots: call?.writableRoots})]
  }

  /**
   * The sandbox of a call Codex sent its state with (`policy` from sandboxForCall), checked to
   * work here once per mode and network. `root` is the workspace's real path.
   * @throws SandboxUnavailableError when bubblewrap cannot build it, saying Codex asked for it.
   */
  private async sandboxOf(policy: CallSandboxPolicy, root: string): Promise<Sandbox> {
    if (policy.mode === 'off') return NO_SANDBOX
    const {mode, network} = policy
    if (this.sandbox.bwrap && this.sandbox.mode === mode && this.sandbox.network === network) return this.sandbox
    const key = `${mode}/${network}`
    let opened = this.callSandboxes.get(key)
    if (!opened) {
      opened = openSandbox({mode, network}, {workspace: root, level: 'terminal', env: this.env, log: this.log})
      this.callSandboxes.set(key, opened)
      opened.catch(() => this.callSandboxes.delete(key))
    }
    try {
      return await opened
    } catch (error) {
      throw new SandboxUnavailableError(
        `Codex runs this turn in a ${mode} sandbox, so the command must run in one too, and it was not run: ` +
          `${(error as Error).message} Or run Codex with a sandbox ak's server already allows.`,
      )
    }
  }

  /**
   * The binds that keep the protected paths of the workspace (real path `root`) read-only for one
   * command, under `workspace-write`; undefined otherwise.
   * @throws SandboxProtectionError (a tool error) when a protected path cannot be protected
   */
  private async protectedMounts(root: string, sandbox = this.sandbox): Promise<ProtectedMounts | undefined> {
    if (!sandbox.bwrap || sandbox.mode !== 'workspace-write') return undefined
    return prepareProtectedMounts([root], root, this.allowedProtected, this.log)
  }

  /** The shell snapshot of `shell`, taken in the workspace (in the sandbox when there is one). */
  private createSnapshots(shell: string, cwd: string): ShellSnapshots {
    const root = this.workspace ?? cwd
    return new ShellSnapshots({
      shell,
      env: commandEnvironment(this.env, [newProcessTag()]),
      cwd: root,
      log: this.log,
      // The snapshot runs the user's profile, which has no business writing the workspace: it is read-only there.
      wrap: this.sandbox.bwrap ? (argv, snapshotDir) => [...this.wrapper(root, snapshotDir, ['--ro-bind', root, root])!, ...argv] : undefined,
      seccompProgram: this.sandbox.seccompProgram,
    })
  }

  /**
   * Stops the processes of `target` and of whatever holds the output pipes of `sessions`, then
   * stops reading those pipes: a process that escaped cannot keep the server waiting on them.
   * Such a process is reported by pid, or, where no `/proc` names it, by its command.
   */
  private async stopProcesses(target: StopTarget, sessions: readonly CommandSession[]): Promise<void> {
    const pipes = new Set(sessions.flatMap((session) => (session.isPipeOpen && session.outputPipe ? [session.outputPipe] : [])))
    const survivors = await stopProcessTree({...target, pipes}, this.killGraceMs)
    const escaped = new Set(survivors)
    for (const session of sessions) {
      if (!session.isPipeOpen) continue
      if (session.outputPipe) for (const pid of pipeHolders(new Set([session.outputPipe]))) escaped.add(pid)
      else this.log.warn(`stopped reading the output of "${preview(session.command)}": a process it started still holds it and could not be found to stop`)
      session.closeOutput()
    }
    if (escaped.size > 0) {
      this.log.warn(`process${escaped.size === 1 ? '' : 'es'} ${[...escaped].map(describeProcess).join(', ')} escaped the stop and still run${escaped.size === 1 ? 's' : ''}; stop ${escaped.size === 1 ? 'it' : 'them'} by hand`)
    }
  }

  private track(stop: Promise<void>): Promise<void> {
    this.stopping.add(stop)
    return stop.finally(() => this.stopping.delete(stop))
  }

  /**
   * Keeps `session`, which just ended, among the unread ended sessions; past `maxUnreadEnded`
   * drops the one that has waited longest and no call is reading.
   */
  private keepUnread(session: CommandSession): void {
    if (session.isRetired) return
    this.unreadEnded.add(session)
    if (this.unreadEnded.size <= this.maxUnreadEnded) return
    for (const oldest of this.unreadEnded) {
      if ((this.busy.get(oldest.id) ?? 0) > 0) continue
      this.droppedUnread.set(oldest.id, {owner: oldest.owner, exitCode: oldest.exitCode!})
      if (this.droppedUnread.size > REMEMBERED_STOPS) this.droppedUnread.delete(this.droppedUnread.keys().next().value!)
      this.retire(oldest)
      return
    }
  }

  private retire(session: CommandSession): void {
    this.unreadEnded.delete(session)
    this.leftovers.delete(session)
    session.retire()
    if (this.sessions.get(session.id) === session) this.sessions.delete(session.id)
    clearTimeout(this.idleTimers.get(session.id))
    this.idleTimers.delete(session.id)
    clearTimeout(this.unpolledTimers.get(session.id))
    this.unpolledTimers.delete(session.id)
    this.busy.delete(session.id)
  }

  /** Restarts the idle clock of `session`. */
  private touch(session: CommandSession): void {
    if (session.isRetired) return
    clearTimeout(this.idleTimers.get(session.id))
    const timer = setTimeout(() => this.expire(session), this.idleLimitMs)
    timer.unref()
    this.idleTimers.set(session.id, timer)
    clearTimeout(this.unpolledTimers.get(session.id))
    const unpolled = setTimeout(() => {
      // A command nobody polls keeps only what a default answer shows (UNPOLLED_OUTPUT_BUFFER_CHARS).
      if (!session.isRetired && (this.busy.get(session.id) ?? 0) === 0) session.setOutputCapacity(this.unpolledBufferChars)
    }, this.unpolledAfterMs)
    unpolled.unref()
    this.unpolledTimers.set(session.id, unpolled)
  }

  private expire(session: CommandSession): void {
    if (session.isRetired) return
    if ((this.busy.get(session.id) ?? 0) > 0) return this.touch(session)
    this.stoppedWhileIdle.set(session.id, session.owner)
    if (this.stoppedWhileIdle.size > REMEMBERED_STOPS) {
      this.stoppedWhileIdle.delete(this.stoppedWhileIdle.keys().next().value!)
    }
    // Nothing awaits an idle stop: a failure (no descriptor left to read /proc) is logged, and the
    // next stop of the connection or the runtime tries again.
    this.stop(session).catch((error: Error) => this.log.warn(`stopping idle command ${session.id} failed: ${error.message}`))
  }

  /**
   * The refusal at the command limit. A caller with a connection sees its own running commands
   * (id, age, command) and a count of the others'. A stateless request sees counts and ages only:
   * there a session id is the only key to a command, so listing ids would hand one caller's
   * commands to every other (DESIGN §4.5).
   */
  private limitMessage(owner: string | undefined): string {
    const now = Date.now()
    const running = [...this.sessions.values()].filter((session) => !session.hasExited)
    const own = running.filter((session) => session.owner === owner)
    const others = running.length - own.length
    const head =
      `Too many commands: ${running.length} are running, the most this server runs at once is ${this.maxRunning}. ` +
      `This command was not started and no other was stopped. Free a slot first: wait for a command to end ` +
      `(poll it with write_stdin), interrupt it with write_stdin chars "\\u0003", or end its input with "\\u0004".`
    const othersLine = others > 0 ? [`(and ${others} more started by other connections)`] : []
    if (owner === undefined) {
      const ages = own.map((session) => now - session.startedAtMs)
      const statelessLine =
        own.length === 0
          ? 'No running command was started by a stateless request.'
          : `${own.length} running command${own.length === 1 ? ' was' : 's were'} started by stateless requests, ` +
            `running for ${formatAge(Math.min(...ages))} to ${formatAge(Math.max(...ages))}; their ids and commands are ` +
            'not shown, because over stateless HTTP a session_id is the only key to a command: use the ids your own calls received.'
      return [head, statelessLine, ...othersLine].join('\n')
    }
    const lines = own.map((session) => `  ${session.id}  ${formatAge(now - session.startedAtMs)}  ${preview(session.command)}`)
    return [
      head,
      own.length > 0 ? 'Running commands of this connection (id, age, command):' : 'This connection runs no command.',
      ...lines,
      ...othersLine,
    ].join('\n')
  }
}
