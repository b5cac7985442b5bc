import {setTimeout as delay} from 'node:timers/promises'

/**
 * Stopping a process group gently, for processes ak starts that are not an agent's command (the
 * shell snapshot's capture of the user's login profile; what a dispatched `codex exec` leaves
 * running). Kept outside `src/exec` and `src/codex` so that both use the same rule.
 */

/** How often a stop checks whether the group is gone, in ms. */
const STOP_CHECK_INTERVAL_MS = 25
/** How long a stop waits for SIGKILLed processes to disappear before returning, in ms. */
const AFTER_KILL_WAIT_MS = 500

let isHurried = false

/**
 * Makes every stop under way, and every later one, faster: waits for processes to end after
 * SIGTERM give up at once and SIGKILL follows (a second stop signal asks this: the stop still
 * finishes, only without its grace).
 */
export function hurryStops(): void {
  isHurried = true
}

/** Whether stops skip their grace (see hurryStops). */
export function isStopHurried(): boolean {
  return isHurried
}

/** Whether process group `pgid` still has a member (one we may not signal counts). */
export function isGroupAlive(pgid: number): boolean {
  try {
    process.kill(-pgid, 0)
    return true
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM'
  }
}

/** Sends `name` to `pid` (negative: a process group), ignoring one already gone or not ours. */
export function sendSignal(pid: number, name: NodeJS.Signals): void {
  try {
    process.kill(pid, name)
  } catch {
    // gone already, or not ours
  }
}

/**
 * Stops process group `pgid` gently: SIGTERM first (`terminate`, by default to the whole group),
 * which runs a shell's EXIT traps and lets servers clean up after themselves, then SIGKILL to the
 * group after `graceMs` (ms), or at once once stops are hurried (hurryStops), if anything is left.
 * Resolves once the group is gone, or a short wait after SIGKILL; at once when the group is already gone.
 */
export async function stopProcessGroupGently(
  pgid: number,
  options: {graceMs: number; terminate?: () => void},
): Promise<void> {
  if (!isGroupAlive(pgid)) return
  if (options.terminate) options.terminate()
  else sendSignal(-pgid, 'SIGTERM')
  const deadline = Date.now() + options.graceMs
  while (isGroupAlive(pgid) && Date.now() < deadline && !isHurried) await delay(STOP_CHECK_INTERVAL_MS)
  if (!isGroupAlive(pgid)) return
  sendSignal(-pgid, 'SIGKILL')
  const killDeadline = Date.now() + AFTER_KILL_WAIT_MS
  while (isGroupAlive(pgid) && Date.now() < killDeadline) await delay(STOP_CHECK_INTERVAL_MS)
}
