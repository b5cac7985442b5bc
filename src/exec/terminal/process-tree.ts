import {readFileSync, readdirSync, readlinkSync} from 'node:fs'
import {setTimeout as delay} from 'node:timers/promises'

import {isStopHurried, stopProcessGroupGently} from '../../process-group.js'
import {COMMAND_TAG_VARIABLE} from './shell.js'

/** One process as Linux's `/proc/<pid>/stat` and `/proc/<pid>/environ` describe it. */
export interface ProcessInfo {
  pid: number
  ppid: number
  /** Process group id. */
  pgid: number
  /** Session id (`setsid` gives a process a new one). */
  sid: number
  /** One-letter state; `Z` is a zombie (dead, waiting for its parent to reap it). */
  state: string
  /** Tags of COMMAND_TAG_VARIABLE in its environment; empty when unreadable or absent. */
  tags: string[]
}

/**
 * What to stop: processes carrying any of `tags`, the groups and sessions of `leaders`, processes
 * holding one of `pipes` open, and their descendants.
 */
export interface StopTarget {
  tags: ReadonlySet<string>
  /**
   * Identities of the command end of the commands' output pipes (see channelIdentity). A process that
   * holds one was started by the command, however it left the group and dropped its tag
   * (`env -i setsid …`), and it would keep that output open.
   */
  pipes?: ReadonlySet<string>
  /**
   * Pids of command shells not reaped yet, asked afresh before each round of signals: each leads
   * its own session and process group (spawned detached), and an unreaped pid cannot have been
   * reused by another process.
   */
  leaders(): readonly number[]
}

/** Interval at which a stop checks whether the processes it signalled are gone. */
const STOP_CHECK_INTERVAL_MS = 25
/** How long a stop waits for SIGKILLed processes to disappear before returning. */
const AFTER_KILL_WAIT_MS = 500

/**
 * Parses `/proc/<pid>/stat`. The command name (field 2) is in parentheses and may itself hold
 * spaces and parentheses, so fields are counted from the last `)`.
 */
export function parseStat(text: string): Pick<ProcessInfo, 'pid' | 'ppid' | 'pgid' | 'sid' | 'state'> | undefined {
  const close = text.lastIndexOf(')')
  if (close === -1) return undefined
  const pid = Number.parseInt(text, 10)
  const fields = text.slice(close + 2).split(' ')
  const [state, ppid, pgid, sid] = [fields[0], Number(fields[1]), Number(fields[2]), Number(fields[3])]
  if (!state || !Number.isInteger(pid) || !Number.isInteger(ppid)) return undefined
  return {pid, ppid, pgid, sid, state}
}

/** The tags of COMMAND_TAG_VARIABLE in a raw `/proc/<pid>/environ` (NUL-separated `NAME=value`). */
export function parseEnvironTags(environ: string): string[] {
  const prefix = `${COMMAND_TAG_VARIABLE}=`
  for (const entry of environ.split('\0')) {
    if (entry.startsWith(prefix)) return entry.slice(prefix.length).split(',').filter(Boolean)
  }
  return []
}

/** The pids (as `/proc` names them) of every process but this one; none where there is no `/proc`. */
function otherPids(): string[] {
  let names: string[]
  try {
    names = readdirSync('/proc')
  } catch {
    return []
  }
  const self = String(process.pid)
  return names.filter((name) => name !== self && /^\d+$/.test(name))
}

/**
 * Every process `/proc` shows, except this one. Empty where there is no `/proc` (macOS): there
 * only process groups can be signalled. Environments of other users' processes are unreadable
 * and count as untagged.
 */
export function listProcesses(): ProcessInfo[] {
  const processes: ProcessInfo[] = []
  for (const name of otherPids()) {
    try {
      const stat = parseStat(readFileSync(`/proc/${name}/stat`, 'latin1'))
      if (!stat) continue
      let tags: string[] = []
      try {
        tags = parseEnvironTags(readFileSync(`/proc/${name}/environ`, 'latin1'))
      } catch {
        // another user's process, or gone
      }
      processes.push({...stat, tags})
    } catch {
      // exited while scanning
    }
  }
  return processes
}

/**
 * The processes of `processes` that belong to a command: those tagged with one of `tags`, those
 * in the session or process group of one of `leaderPids`, those of `memberPids` (e.g. holders of
 * its output pipe), and every descendant of any of them (by parent links). Zombies are left out:
 * they are already dead. Pure.
 */
export function selectTargetProcesses(
  processes: readonly ProcessInfo[],
  tags: ReadonlySet<string>,
  leaderPids: readonly number[],
  memberPids: readonly number[] = [],
): ProcessInfo[] {
  const leaders = new Set(leaderPids)
  const members = new Set(memberPids)
  const selected = new Map<number, ProcessInfo>()
  const children = new Map<number, ProcessInfo[]>()
  for (const info of processes) {
    const siblings = children.get(info.ppid) ?? []
    siblings.push(info)
    children.set(info.ppid, siblings)
    const isTagged = info.tags.some((tag) => tags.has(tag))
    const isLed = leaders.has(info.pid) || leaders.has(info.pgid) || leaders.has(info.sid)
    if (isTagged || isLed || members.has(info.pid)) selected.set(info.pid, info)
  }
  const queue = [...selected.keys(), ...leaders]
  while (queue.length > 0) {
    for (const child of children.get(queue.pop()!) ?? []) {
      if (selected.has(child.pid)) continue
      selected.set(child.pid, child)
      queue.push(child.pid)
    }
  }
  return [...selected.values()].filter((info) => info.state !== 'Z')
}

/** Whether `pid` exists and is not a zombie. */
export function isProcessAlive(pid: number): boolean {
  try {
    process.kill(pid, 0)
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM'
  }
  try {
    return parseStat(readFileSync(`/proc/${pid}/stat`, 'latin1'))?.state !== 'Z'
  } catch {
    return true // no /proc: trust kill(0)
  }
}

/**
 * The identity Linux gives the pipe or socket behind file descriptor `fd` of process `pid`
 * (`pipe:[12345]`, `socket:[12346]`): every process holding that end has the same link. Undefined
 * where there is no `/proc`, the process is gone, or `fd` is something else.
 */
export function channelIdentity(pid: number, fd: number): string | undefined {
  try {
    const link = readlinkSync(`/proc/${pid}/fd/${fd}`)
    return /^(?:pipe|socket):\[\d+\]$/.test(link) ? link : undefined
  } catch {
    return undefined
  }
}

/**
 * Pids of the processes (other than this one) holding any of `pipes` open, found through
 * `/proc/<pid>/fd`; empty where there is no `/proc`. Other users' processes cannot be read and
 * are not found.
 */
export function pipeHolders(pipes: ReadonlySet<string>): number[] {
  if (pipes.size === 0) return []
  const holders: number[] = []
  for (const name of otherPids()) {
    let fds: string[]
    try {
      fds = readdirSync(`/proc/${name}/fd`)
    } catch {
      continue // gone, or not ours to read
    }
    for (const fd of fds) {
      let link: string
      try {
        link = readlinkSync(`/proc/${name}/fd/${fd}`)
      } catch {
        continue
      }
      if (pipes.has(link)) {
        holders.push(Number(name))
        break
      }
    }
  }
  return holders
}

/** A process as an operator reads it: `1234 (sleep)`. */
export function describeProcess(pid: number): string {
  try {
    return `${pid} (${readFileSync(`/proc/${pid}/comm`, 'utf8').trim()})`
  } catch {
    return String(pid)
  }
}

function signal(pid: number, name: NodeJS.Signals): void {
  try {
    process.kill(pid, name)
  } catch {
    // gone already, or not ours
  }
}

/** Signals every process of `target` and the process groups they lead; returns the pids signalled. */
function signalTarget(target: StopTarget, name: NodeJS.Signals): number[] {
  const leaders = target.leaders()
  const found = selectTargetProcesses(listProcesses(), target.tags, leaders, pipeHolders(target.pipes ?? new Set()))
  // Each process gets the signal once: a shell that receives a second SIGTERM while it handles
  // the first (running its EXIT trap) dies at once without finishing it (bash's termsig handler),
  // so a profile's lock would be left behind.
  const signalled = new Set<number>()
  for (const leader of leaders) {
    signal(-leader, name)
    signalled.add(leader)
  }
  for (const info of found) {
    if (signalled.has(info.pgid)) continue
    if (info.pgid === info.pid) {
      signal(-info.pid, name)
      signalled.add(info.pid)
    } else {
      signal(info.pid, name)
    }
  }
  return [...new Set([...leaders, ...found.map((info) => info.pid)])]
}

async function waitUntilGone(pids: number[], timeoutMs: number, isGrace = false): Promise<boolean> {
  const deadline = Date.now() + timeoutMs
  for (;;) {
    if (!pids.some(isProcessAlive)) return true
    // A grace ends early when stops are hurried (a second stop signal): SIGKILL follows at once.
    if (Date.now() >= deadline || (isGrace && isStopHurried())) return false
    await delay(STOP_CHECK_INTERVAL_MS)
  }
}

/**
 * Stops every process of `target`: SIGTERM to the leaders' process groups, to each process found
 * through `/proc` (tagged, in a leader's session or group, holding a command's output pipe, or a
 * descendant of one) and to the groups those lead; after `graceMs` (sooner once stops are hurried,
 * see hurryStops), a fresh scan and SIGKILL to
 * whatever is still there (and to what was forked meanwhile). Resolves once they are gone or
 * after a short wait past SIGKILL.
 *
 * What can escape: a process that clears its environment (`env -i`), leaves the session, closes
 * the command's output, and whose parent chain to a found process is already broken when the
 * scan runs; a process that forks faster than the scans find it; another user's process. Without
 * `/proc` (macOS) only the process groups are signalled.
 * @returns the pids signalled that are still alive at the end (normally none).
 */
export async function stopProcessTree(target: StopTarget, graceMs: number): Promise<number[]> {
  const termed = signalTarget(target, 'SIGTERM')
  if (await waitUntilGone(termed, graceMs, true)) {
    // A last scan catches anything forked while the first ones were dying.
    const holders = pipeHolders(target.pipes ?? new Set())
    if (selectTargetProcesses(listProcesses(), target.tags, target.leaders(), holders).length === 0) return []
  }
  const killed = signalTarget(target, 'SIGKILL')
  await waitUntilGone(killed, AFTER_KILL_WAIT_MS)
  return killed.filter(isProcessAlive)
}

/**
 * Stops process group `pgid` gently (stopProcessGroupGently), for processes ak starts that are
 * not an agent's command (the shell snapshot's capture: the user's own login profile): SIGTERM first, which runs a
 * shell's EXIT traps (a profile that took a lock removes it), then SIGKILL to whatever is left
 * after `graceMs`. With `spareLeader` (the leader is the sandbox's bubblewrap, which a signal
 * would kill, taking its child down by SIGKILL), SIGTERM goes to every other process of its
 * group or session and every descendant, found through `/proc`, and the leader ends when its
 * child does. Resolves once the group is gone, or a short wait after SIGKILL; at once when the
 * group is already gone.
 */
export async function stopProcessGroup(pgid: number, options: {graceMs: number; spareLeader?: boolean}): Promise<void> {
  await stopProcessGroupGently(pgid, {
    graceMs: options.graceMs,
    // Its group, session and descendants (a sandboxed shell may run in a session of its own).
    terminate: options.spareLeader
      ? () => {
          for (const info of selectTargetProcesses(listProcesses(), new Set(), [pgid])) if (info.pid !== pgid) signal(info.pid, 'SIGTERM')
        }
      : undefined,
  })
}
