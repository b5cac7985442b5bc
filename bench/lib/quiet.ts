/**
 * Waiting for the machine to be quiet between timed runs: some servers keep working after they
 * answer (Desktop Commander runs `python3 --version` and more after each `start_process`), and
 * that work would otherwise be charged to whichever contender runs next.
 */
import {readdirSync, readFileSync} from 'node:fs'
import {setTimeout as sleep} from 'node:timers/promises'

/** How often the process table is read while waiting, in ms. */
const POLL_MS = 10
/** How long to wait for leftovers before giving up (and timing anyway), in ms. */
const GIVE_UP_MS = 5_000

/** The pids whose parent is one of `parents` (Linux: /proc); empty elsewhere. */
export function childrenOf(parents: number[]): number[] {
  const wanted = new Set(parents)
  const found: number[] = []
  let entries: string[]
  try {
    entries = readdirSync('/proc')
  } catch {
    return found
  }
  for (const entry of entries) {
    if (!/^\d+$/.test(entry)) continue
    try {
      const stat = readFileSync(`/proc/${entry}/stat`, 'utf8')
      const ppid = Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1])
      if (wanted.has(ppid)) found.push(Number(entry))
    } catch {
      // the process ended while we looked
    }
  }
  return found
}

/**
 * Resolves once none of the `servers` has a child process (the work a call left behind has
 * ended), then after `settleMs` more; gives up after GIVE_UP_MS. Returns how long it waited, in ms.
 */
export async function waitUntilQuiet(servers: number[], settleMs = 20): Promise<number> {
  const started = performance.now()
  while (childrenOf(servers).length > 0 && performance.now() - started < GIVE_UP_MS) await sleep(POLL_MS)
  await sleep(settleMs)
  return performance.now() - started
}
