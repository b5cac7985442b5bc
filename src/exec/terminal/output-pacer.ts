/**
 * Keeps commands that flood their output from starving everything else the server does.
 *
 * Node reads every readable pipe in one turn of its event loop; with 64 commands printing as
 * fast as they can, handling their output filled each turn, and a `read` call, which needs
 * several turns (stdin, then each file-system step), waited behind all of it. Output handling
 * now gets at most OUTPUT_TURN_BUDGET_MS per turn (plus the chunk in hand): past that, a
 * command's pipe is paused and its chunk handled in a later turn, so the command is slowed (its
 * writes block on a full pipe), never stopped, and nothing is lost or reordered.
 */
import type {Readable} from 'node:stream'

/**
 * Time output handling may take in one turn of the event loop before it waits for the next, in ms.
 * With 64 commands flooding, a `read` meanwhile took a median of 34 ms at 1 ms and 20 ms at 0.5 ms
 * (same loaded machine); one command draining 1 GiB kept its throughput.
 */
export const OUTPUT_TURN_BUDGET_MS = 0.5

interface Deferred {
  stream: Readable
  handle: () => void
}

/** When the current turn's output handling started (performance.now()), or undefined when none yet. */
let turnStartedAt: number | undefined
const deferred: Deferred[] = []

/**
 * Handles one chunk `handle` of `stream`'s output now when this turn's budget allows, else
 * pauses `stream` and handles the chunk (then resumes the stream) in a later turn, in arrival order.
 */
export function paceOutput(stream: Readable, handle: () => void): void {
  if (deferred.length === 0 && isWithinBudget()) {
    handle()
    return
  }
  stream.pause()
  deferred.push({stream, handle})
}

function isWithinBudget(): boolean {
  const now = performance.now()
  if (turnStartedAt === undefined) {
    turnStartedAt = now
    setImmediate(nextTurn)
  }
  return now - turnStartedAt < OUTPUT_TURN_BUDGET_MS
}

/** Runs once per turn while output flows: opens a new budget and spends it on deferred chunks. */
function nextTurn(): void {
  turnStartedAt = undefined
  while (deferred.length > 0 && isWithinBudget()) {
    const {stream, handle} = deferred.shift()!
    handle()
    if (!stream.destroyed) stream.resume()
  }
}

/** Resolves once no chunk of `stream` waits for a later turn (at once when none does). */
export async function outputSettled(stream: Readable): Promise<void> {
  while (deferred.some((entry) => entry.stream === stream)) await new Promise((resolve) => setImmediate(resolve))
}
