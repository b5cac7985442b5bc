import type {ChildProcess} from 'node:child_process'
import {constants as osConstants} from 'node:os'
import type {Writable} from 'node:stream'
import {StringDecoder} from 'node:string_decoder'
import {setImmediate as nextTurn, setTimeout as delay} from 'node:timers/promises'

import {startProcess} from '../../process-start.js'
import {MAX_PENDING_STDIN_BYTES, OUTPUT_BUFFER_CHARS, POST_EXIT_DRAIN_MS} from './limits.js'
import {LastLine} from './last-line.js'
import {type BufferedOutput, NO_OUTPUT, OutputBuffer} from './output-buffer.js'
import {noteOutputRead} from './output-collection.js'
import {outputSettled, paceOutput} from './output-pacer.js'
import {channelIdentity, listProcesses} from './process-tree.js'
import {withoutInheritedDescriptors} from './inherited-descriptors.js'
import {sendSeccompProgram, withSeccompPipe} from './sandbox.js'
import {START_GATE_FD, shellInvocation} from './shell.js'
import {writeWithinBound} from './stdin-writer.js'

/** How to start one command. */
export interface CommandSpec {
  /** The session id the command answers to. */
  id: string
  /** The command line as the caller wrote it (`cmd`). */
  command: string
  /** Real path of the folder it runs in. */
  cwd: string
  /** Connection id of the owner; undefined for a stateless request. */
  owner: string | undefined
  /** The tag that marks this command's processes (see COMMAND_TAG_VARIABLE). */
  tag: string
  /** The shell to run it with (resolveShell). */
  shell: string
  /** The full environment (commandEnvironment). */
  env: NodeJS.ProcessEnv
  /** Characters of output kept between answers. Default OUTPUT_BUFFER_CHARS. */
  bufferChars?: number
  /** The shell snapshot to source instead of running a login shell (ShellSnapshots.current()). */
  snapshotFile?: string
  /** The sandbox's wrapper (`bwrap … --`) the shell runs under, if any. */
  wrapper?: readonly string[]
  /** The seccomp filter the wrapper reads on SECCOMP_FD (sandbox.ts), if it asks for one. */
  seccompProgram?: Uint8Array
}

/** The exit code a shell reports for a child: the code, or 128 + the signal's number. */
export function exitCodeOf(code: number | null, signal: NodeJS.Signals | null): number {
  if (code !== null) return code
  return 128 + (signal ? (osConstants.signals[signal] ?? 0) : 0)
}

/**
 * One running command (DESIGN §4.5): its login shell, spawned in its own session and process
 * group, with stdin an open pipe and stdout and stderr joined in one pipe; its output decoded as
 * UTF-8 incrementally into a bounded buffer. It knows nothing of ownership or limits
 * (CommandSessions does).
 *
 * Lifecycle: running → exited (the shell ended; `exitCode` set) → ended (the output the shell
 * wrote is read) → retired (its end was reported, or it was stopped). After retirement the pipe
 * is still read, so background children that hold it never block on a full pipe, but what they
 * print is discarded.
 */
export class CommandSession {
  readonly id: string
  readonly command: string
  readonly owner: string | undefined
  readonly tag: string
  /** When the command started (ms since the epoch). */
  readonly startedAtMs = Date.now()
  /** The shell's pid: it leads the command's session and process group. */
  readonly pid: number
  /** The exit code once the shell exited (128 + n for signal n). */
  exitCode: number | undefined
  /** Resolves once the shell exited and the output it wrote is read. */
  readonly ended: Promise<void>
  /** Resolves once the session is retired. */
  readonly retired: Promise<void>
  /** Resolves once the output pipe is closed: every process holding it ended, or closeOutput(). */
  readonly outputClosed: Promise<void>
  /**
   * Identity of the command's end of its output pipe (Linux; Node makes it a socket pair, so
   * `socket:[inode]`), by which the processes holding it are found; undefined without `/proc`.
   */
  readonly outputPipe: string | undefined

  private readonly child: ChildProcess
  private readonly isWrapped: boolean
  private readonly buffer: OutputBuffer
  private readonly lastLine = new LastLine()
  /** stderr is normally joined to stdout by the shell; anything still written to it is decoded apart. */
  private readonly stderrDecoder = new StringDecoder('utf8')
  private hasEndedFlag = false
  private isRetiredFlag = false
  private isStdinClosedFlag = false
  private isPipeClosedFlag = false
  private markRetired!: () => void
  /** Calls on this session run one after the other. */
  private queue: Promise<unknown> = Promise.resolve()

  private constructor(spec: CommandSpec, child: ChildProcess, outputPipe: string | undefined) {
    this.id = spec.id
    this.command = spec.command
    this.owner = spec.owner
    this.tag = spec.tag
    this.child = child
    this.isWrapped = (spec.wrapper?.length ?? 0) > 0
    this.pid = child.pid!
    this.buffer = new OutputBuffer(spec.bufferChars ?? OUTPUT_BUFFER_CHARS)
    this.retired = new Promise((resolve) => (this.markRetired = resolve))
    child.stdout!.on('data', (chunk: Buffer) => paceOutput(child.stdout!, () => this.receive('stdout', chunk)))
    child.stderr!.on('data', (chunk: Buffer) => paceOutput(child.stderr!, () => this.receive('stderr', chunk)))
    child.stdin!.on('error', () => {}) // EPIPE once nothing reads stdin any more
    child.on('error', () => {}) // a failed kill(); the exit event still comes
    this.outputPipe = outputPipe
    const pipeClosed = new Promise<void>((resolve) => child.stdout!.once('close', resolve))
    this.outputClosed = pipeClosed
    void pipeClosed.then(() => (this.isPipeClosedFlag = true))
    this.ended = new Promise<void>((resolve) => {
      child.once('exit', (code, signal) => {
        this.exitCode = exitCodeOf(code, signal)
        resolve(this.drainAfterExit(pipeClosed))
      })
    })
  }

  /**
   * Spawns the command (see shellInvocation) detached, so its shell leads a new session and
   * process group.
   * @throws LimitReachedError when the system is short of descriptors, processes or memory, and
   *   DispatchFailedError when the shell cannot be started otherwise (e.g. the folder vanished);
   *   see startProcess.
   */
  static async start(spec: CommandSpec): Promise<CommandSession> {
    const {file, args} = shellInvocation(spec.shell, spec.command, {snapshotFile: spec.snapshotFile, wrapper: spec.wrapper})
    const stdio = ['pipe', 'pipe', 'pipe', 'pipe'] as const
    const child = await startProcess(file, args, {
      cwd: spec.cwd,
      env: spec.env,
      detached: true,
      stdio: () => withoutInheritedDescriptors(spec.seccompProgram ? withSeccompPipe(stdio) : [...stdio]),
      what: 'the command',
      fix: 'Check workdir and try again.',
    })
    if (spec.seccompProgram) sendSeccompProgram(child, spec.seccompProgram)
    const outputPipe = outputPipeOf(child)
    const gate = child.stdio[START_GATE_FD] as Writable | null
    gate?.on('error', () => {}) // EPIPE when the process is already gone
    gate?.end()
    return new CommandSession(spec, child, outputPipe)
  }

  /** Whether the shell has exited. */
  get hasExited(): boolean {
    return this.exitCode !== undefined
  }

  /** Whether the shell has exited and its output is read: the next answer reports the end. */
  get hasEnded(): boolean {
    return this.hasEndedFlag
  }

  /** Whether the end was reported or the command was stopped; the id is no longer valid. */
  get isRetired(): boolean {
    return this.isRetiredFlag
  }

  /** Whether stdin was closed (by `\u0004`). */
  get isStdinClosed(): boolean {
    return this.isStdinClosedFlag
  }

  /** Whether some process (a background child, after the shell ended) still holds the output pipe. */
  get isPipeOpen(): boolean {
    return !this.isPipeClosedFlag
  }

  /** Runs `task` after every earlier task of this session, so concurrent calls take turns. */
  serialize<T>(task: () => Promise<T>): Promise<T> {
    const result = this.queue.then(task, task)
    this.queue = result.catch(() => undefined)
    return result
  }

  /**
   * Writes `text` to the command's stdin, holding at most MAX_PENDING_STDIN_BYTES of it that the
   * command has not read yet (see writeWithinBound), until `until` settles.
   * @returns how many characters (code points) of `text`, from its start, were written: fewer
   *   than all when the command did not take its input in time, or its input is closed.
   */
  async write(text: string, until: Promise<unknown>): Promise<number> {
    const stdin = this.child.stdin!
    if (this.isStdinClosedFlag || stdin.destroyed) return 0
    return writeWithinBound(stdin, text, {maxPendingBytes: MAX_PENDING_STDIN_BYTES, until})
  }

  /**
   * Sends SIGINT to the command's process group, as Ctrl-C would in a terminal. Under the
   * sandbox the group leader is bubblewrap, which SIGINT would kill (and with it, through
   * `--die-with-parent`, the command, by SIGKILL): there every other member of the group gets it.
   */
  interrupt(): void {
    if (this.hasExited) return
    const targets = this.isWrapped
      ? listProcesses()
          .filter((info) => info.pgid === this.pid && info.pid !== this.pid)
          .map((info) => info.pid)
      : [-this.pid]
    for (const target of targets) {
      try {
        process.kill(target, 'SIGINT')
      } catch {
        // gone
      }
    }
  }

  /** Closes stdin, as Ctrl-D would at the start of a line in a terminal. */
  closeStdin(): void {
    this.isStdinClosedFlag = true
    this.child.stdin!.end()
  }

  /** The last line the command printed (LastLine), taken or not; '' before any output. */
  get lastOutputLine(): string {
    return this.lastLine.value
  }

  /** Changes how many characters of output are kept until the next answer (OutputBuffer.setCapacity). */
  setOutputCapacity(capacityChars: number): void {
    this.buffer.setCapacity(capacityChars)
  }

  /** The output since the last call, emptied; nothing once retired. */
  takeOutput(): BufferedOutput {
    return this.isRetiredFlag ? NO_OUTPUT : this.buffer.take()
  }

  /**
   * Marks the session retired: its output is discarded from now on and its stdin closed (nobody
   * can write to it any more). Stopping its processes is the caller's business.
   */
  retire(): void {
    if (this.isRetiredFlag) return
    this.isRetiredFlag = true
    this.buffer.take()
    this.child.stdin!.destroy()
    this.markRetired()
  }

  /**
   * Stops reading the command's output and closes this end of its pipes, so that a process still
   * holding them (one that escaped a stop) cannot keep the server waiting. Only for a stopped
   * session: what it prints from now on is lost.
   */
  closeOutput(): void {
    this.retire()
    this.child.stdout!.destroy()
    this.child.stderr!.destroy()
  }

  private receive(stream: 'stdout' | 'stderr', chunk: Buffer): void {
    noteOutputRead(chunk.length)
    if (this.isRetiredFlag) return
    if (stream === 'stdout') {
      this.buffer.write(chunk)
      this.lastLine.pushBytes(chunk)
    } else {
      const text = this.stderrDecoder.write(chunk)
      this.buffer.append(text)
      this.lastLine.push(text)
    }
  }

  /**
   * Waits, after the shell exited, for what it wrote to be read: until the pipe closes, or for
   * POST_EXIT_DRAIN_MS and one more turn of the event loop (which reads whatever is already in
   * the pipe) when a background child keeps the pipe open; and for any chunk the output pacer
   * put off to be handled.
   */
  private async drainAfterExit(pipeClosed: Promise<void>): Promise<void> {
    await Promise.race([pipeClosed, delay(POST_EXIT_DRAIN_MS)])
    await nextTurn()
    await outputSettled(this.child.stdout!)
    if (this.isPipeClosedFlag && !this.isRetiredFlag) {
      this.buffer.append(this.stderrDecoder.end())
      this.buffer.end()
    }
    this.hasEndedFlag = true
  }
}

/**
 * The identity of the pipe behind the command's stdout (see channelIdentity), which every process
 * the command starts inherits. The command's first process waits on START_GATE_FD until this was
 * read (see shellInvocation), so it surely lives: a quick command's shell could otherwise exit
 * before, and an exited process has no `/proc/<pid>/fd` to read. (The server's own end cannot
 * stand in: Node connects a child's stdio through socket pairs, whose two ends differ.)
 */
function outputPipeOf(child: ChildProcess): string | undefined {
  return child.pid === undefined ? undefined : channelIdentity(child.pid, 1)
}
