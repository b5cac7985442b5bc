/**
 * Keeps a server's memory near its idle size while commands print a lot.
 *
 * Node reads a command's pipe into a fresh 64 KiB Buffer per read, and the server drops most of
 * them at once (only the head and tail of the output are kept, see output-buffer.ts). V8 frees
 * such buffers only when it collects garbage, and reading a pipe creates little other garbage, so
 * a collection may come only after tens of MiB of dropped buffers: a server draining 1 GiB peaked
 * 50–65 MiB above its idle size. Node offers no public way to read a child's pipe into one reused
 * buffer (`onread` is for sockets Node's user creates), so instead the server asks V8 for a
 * young-generation collection (a scavenge: 0.1–0.3 ms, since almost everything young is dead)
 * after every OUTPUT_BYTES_PER_COLLECTION bytes of output read. A bare reader of 1 GiB then
 * peaked 14–16 MiB above idle instead of 34–42, for 2–3 % more time.
 *
 * Off unless a server turns it on (`collectAfterOutput`): it sets V8's `--expose-gc` for the whole
 * process, which a program embedding the library should decide for itself.
 */
import {setFlagsFromString} from 'node:v8'
import {runInNewContext} from 'node:vm'

/** Output read from commands between two young-generation collections, in bytes. */
export const OUTPUT_BYTES_PER_COLLECTION = 4 * 1024 * 1024

type Collect = (options: {type: 'minor'}) => void

let isEnabled = false
/** V8's collector, fetched at the first collection due; null when V8 refused it. */
let collect: Collect | null | undefined
let sinceCollection = 0

/**
 * Turns the collections on for this process (see the module comment). Idempotent and cheap: V8's
 * flag is set only when the first collection is due, so a server whose commands print little
 * never changes it.
 */
export function collectAfterOutput(): void {
  isEnabled = true
}

/** Counts `bytes` of command output read; collects the young generation when enough have passed (and collections are on). */
export function noteOutputRead(bytes: number): void {
  if (!isEnabled) return
  sinceCollection += bytes
  if (sinceCollection < OUTPUT_BYTES_PER_COLLECTION) return
  sinceCollection = 0
  collect ??= youngGenerationCollector()
  collect?.({type: 'minor'})
}

/** V8's `gc` function, exposed for this process; null when V8 refuses (output is then read as before). */
function youngGenerationCollector(): Collect | null {
  try {
    setFlagsFromString('--expose-gc')
    return runInNewContext('gc') as Collect
  } catch {
    return null
  }
}
