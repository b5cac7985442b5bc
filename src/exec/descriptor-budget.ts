import {MAX_RUNNING_COMMANDS} from './terminal/limits.js'
import {SEARCH_MAX_WORKERS} from './limits.js'
import {MAX_EXTRA_WORKERS} from './search/worker-pool.js'

/**
 * How many file descriptors a server takes, measured on Linux with Node.js 22 (the count of
 * /proc/<pid>/fd of `node dist/agentexec.js` while it serves), and rounded up. Under a descriptor
 * limit (`ulimit -n`) below what a full server needs, calls beyond it are answered "The server
 * has too many files open …" (docs/terminal.md); `ak doctor` warns about such a limit.
 */

/** A server serving stdio at the terminal level, idle: Node's own (its event loop, stdio) and ak's. Measured 21. */
export const BASE_DESCRIPTORS = 24
/** Held by each running command: the pipes of its input and its output. Measured 2. */
export const DESCRIPTORS_PER_COMMAND = 2
/** Free descriptors a command needs for a moment while it starts: a pair for each of its 4 stdio pipes, and libuv's status pipe. */
export const DESCRIPTORS_TO_START_COMMAND = 10
/** Each search worker thread (its event loop's descriptors) and the file it reads. Measured about 3. */
export const DESCRIPTORS_PER_SEARCH_WORKER = 4
/** Each HTTP session: its connection, and its event stream while one is open. Measured 1.2 on average. */
export const DESCRIPTORS_PER_HTTP_SESSION = 2

/** Search workers a server runs at most: the pool's bound and the extra ones while batches stall. */
const MOST_SEARCH_WORKERS = SEARCH_MAX_WORKERS + MAX_EXTRA_WORKERS

/**
 * Descriptors a server needs to run `commands` commands at once while its search pool is full and
 * `httpSessions` HTTP sessions are open (0 over stdio).
 */
export function descriptorsNeeded(commands: number, httpSessions = 0): number {
  return (
    BASE_DESCRIPTORS +
    MOST_SEARCH_WORKERS * DESCRIPTORS_PER_SEARCH_WORKER +
    DESCRIPTORS_TO_START_COMMAND +
    commands * DESCRIPTORS_PER_COMMAND +
    httpSessions * DESCRIPTORS_PER_HTTP_SESSION
  )
}

/** Descriptors a full stdio server needs: MAX_RUNNING_COMMANDS commands and a full search pool. */
export const FULL_SERVER_DESCRIPTORS = descriptorsNeeded(MAX_RUNNING_COMMANDS)

/** How many commands a descriptor limit of `limit` leaves room for, with a full search pool, at most MAX_RUNNING_COMMANDS. */
export function commandsWithin(limit: number): number {
  const room = Math.floor((limit - descriptorsNeeded(0)) / DESCRIPTORS_PER_COMMAND)
  return Math.max(0, Math.min(MAX_RUNNING_COMMANDS, room))
}
