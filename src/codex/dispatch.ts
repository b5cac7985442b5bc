import {DispatchFailedError} from '../errors.js'
import {stopProcessGroupGently} from '../process-group.js'
import {startProcess} from '../process-start.js'
import {DISPATCH_KILL_GRACE_MS, DISPATCH_OUTPUT_DRAIN_MS, DISPATCH_STDERR_MAX_BYTES, DISPATCH_STDOUT_MAX_BYTES} from './limits.js'

/** One `codex exec` run to start. */
export interface DispatchSpec {
  /** The executable, `codex` looked up on PATH unless given. */
  command: string
  args: string[]
  cwd: string
  env: NodeJS.ProcessEnv
  /** Written to stdin, which is then closed. */
  prompt: string
  /** Aborting it stops the process and everything it started. */
  signal: AbortSignal
  /** Called with each complete stderr line while the process runs (Codex logs its progress there). */
  onStderrLine?: (line: string) => void
}

/** How a run ended and what it printed (both streams capped; see the limits). */
export interface DispatchOutcome {
  exitCode: number | null
  signal: NodeJS.Signals | null
  /** The beginning of stdout, at most DISPATCH_STDOUT_MAX_BYTES bytes. */
  stdout: string
  stdoutDroppedBytes: number
  /** The end of stderr, at most DISPATCH_STDERR_MAX_BYTES bytes. */
  stderr: string
  stderrDroppedBytes: number
}

/**
 * Runs one process in its own process group, feeding `prompt` on stdin and capturing its output
 * with bounded memory: the first DISPATCH_STDOUT_MAX_BYTES of stdout and the last
 * DISPATCH_STDERR_MAX_BYTES of stderr. When the signal aborts, the whole group gets SIGTERM, then
 * SIGKILL after DISPATCH_KILL_GRACE_MS; when the process exits, whatever it left running in its
 * group is stopped the same way, so nothing outlives the call, and its output is read for at most
 * DISPATCH_OUTPUT_DRAIN_MS more (a process that left the group may hold it open for ever).
 * @throws DispatchFailedError when the command cannot be started (not installed, not executable)
 *   or the run was stopped by the signal; LimitReachedError when the system is short of
 *   descriptors, processes or memory to start it (startProcess).
 */
export async function runDispatch(spec: DispatchSpec): Promise<DispatchOutcome> {
  if (spec.signal.aborted) throw new DispatchFailedError('The call was cancelled before the agent started.')
  const child = await startProcess(spec.command, spec.args, {
    cwd: spec.cwd,
    env: spec.env,
    stdio: ['pipe', 'pipe', 'pipe'],
    detached: true, // its own process group, so the whole tree can be stopped
    what: 'the agent',
    fix: 'Install the Codex CLI (npm install -g @openai/codex) or put it on the PATH of the process that starts this server, then call again.',
  })
  return new Promise((resolve, reject) => {
    const stdout = headBuffer(DISPATCH_STDOUT_MAX_BYTES)
    const stderr = tailBuffer(DISPATCH_STDERR_MAX_BYTES)
    let partialLine = ''
    let killTimer: NodeJS.Timeout | undefined
    let stopped = false

    const killGroup = (signal: NodeJS.Signals): void => {
      if (child.pid === undefined) return
      try {
        process.kill(-child.pid, signal)
      } catch {
        // the group is already gone
      }
    }
    const onAbort = (): void => {
      stopped = true
      killGroup('SIGTERM')
      killTimer = setTimeout(() => killGroup('SIGKILL'), DISPATCH_KILL_GRACE_MS)
      killTimer.unref()
    }
    if (spec.signal.aborted) onAbort()
    else spec.signal.addEventListener('abort', onAbort, {once: true})

    child.stdout!.on('data', (chunk: Buffer) => stdout.push(chunk))
    child.stderr!.on('data', (chunk: Buffer) => {
      stderr.push(chunk)
      if (!spec.onStderrLine) return
      const lines = (partialLine + chunk.toString('utf8')).split('\n')
      partialLine = (lines.pop() ?? '').slice(-DISPATCH_STDERR_MAX_BYTES)
      for (const line of lines) if (line.trim()) spec.onStderrLine(line)
    })
    child.stdin!.on('error', () => undefined) // the process may exit without reading its prompt
    child.stdin!.end(spec.prompt)

    // What it left running in its group (the MCP servers it started) is stopped gently too: SIGTERM,
    // then SIGKILL after the grace, so their exit handlers can clean up after themselves.
    // A process of another session may still hold the output open: past the drain, the output is
    // let go, so the call ends (and 'close' comes) whatever that process does.
    let drainTimer: NodeJS.Timeout | undefined
    child.on('exit', () => {
      if (child.pid !== undefined) void stopProcessGroupGently(child.pid, {graceMs: DISPATCH_KILL_GRACE_MS})
      drainTimer = setTimeout(() => {
        child.stdout!.destroy()
        child.stderr!.destroy()
      }, DISPATCH_OUTPUT_DRAIN_MS)
    })
    child.on('close', (exitCode, signal) => {
      spec.signal.removeEventListener('abort', onAbort)
      if (killTimer) clearTimeout(killTimer)
      if (drainTimer) clearTimeout(drainTimer)
      if (stopped) {
        reject(new DispatchFailedError('The call was cancelled; the agent was stopped.'))
        return
      }
      resolve({
        exitCode,
        signal,
        stdout: stdout.text(),
        stdoutDroppedBytes: stdout.dropped(),
        stderr: stderr.text(),
        stderrDroppedBytes: stderr.dropped(),
      })
    })
  })
}

/** Keeps the first `max` bytes. */
function headBuffer(max: number) {
  const chunks: Buffer[] = []
  let kept = 0
  let dropped = 0
  return {
    push(chunk: Buffer) {
      const room = max - kept
      if (room > 0) {
        chunks.push(chunk.subarray(0, room))
        kept += Math.min(room, chunk.length)
      }
      dropped += Math.max(0, chunk.length - Math.max(room, 0))
    },
    text: () => Buffer.concat(chunks).toString('utf8'),
    dropped: () => dropped,
  }
}

/** Keeps the last `max` bytes (holding at most twice that between trims). */
function tailBuffer(max: number) {
  let chunks: Buffer[] = []
  let held = 0
  let dropped = 0
  return {
    push(chunk: Buffer) {
      chunks.push(chunk)
      held += chunk.length
      if (held > 2 * max) {
        const all = Buffer.concat(chunks)
        dropped += all.length - max
        chunks = [all.subarray(all.length - max)]
        held = max
      }
    },
    text: () => {
      const all = Buffer.concat(chunks)
      return all.subarray(Math.max(0, all.length - max)).toString('utf8')
    },
    dropped: () => dropped + Math.max(0, held - max),
  }
}
