/**
 * Who holds a replace lock (see replace-lock.ts), in terms any ak server can check, whatever PID
 * namespace it runs in (DESIGN §4.2): two containers sharing a volume, a server under
 * `unshare --pid`, or one started inside another's sandbox each number processes their own way,
 * so a pid alone names a different process, or none, in each.
 *
 * On Linux a lock records, beside the pid, the boot id (`/proc/sys/kernel/random/boot_id`), the
 * inode of the holder's PID namespace (`/proc/self/ns/pid`) and the holder's start time (field 22
 * of `/proc/<pid>/stat`, in clock ticks since boot). A reader in the same boot and the same PID
 * namespace checks that the pid still runs with that start time (a pid reused by another process
 * does not count); any other reader cannot check the holder, and holds it alive until the lock's
 * age limit (EDIT_LOCK_STALE_MS). A lock holding only a pid (ak before this format, or a system
 * without /proc) is judged by that pid in the reader's own namespace.
 */
import {readFileSync, readlinkSync} from 'node:fs'

import {errorCode} from '../fs-errors.js'

/** A lock holder as a lock file names it. */
export interface LockHolder {
  pid: number
  /** Linux: what places the pid in one boot of one machine and one PID namespace. */
  namespace?: {bootId: string; pidNamespace: string; startTicks: string}
}

/** What a reader can tell of a lock's holder from where it runs. */
export type HolderState = 'running' | 'gone' | 'unknown'

const BOOT_ID_FILE = '/proc/sys/kernel/random/boot_id'
/** A boot id as Linux writes it (a UUID), a namespace inode and a start time: all the fields are checked by shape. */
const BOOT_ID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/
const DIGITS = /^\d{1,20}$/

let own: LockHolder | undefined

/** The fields of `/proc/<pid>/stat` after the command name (which may hold spaces and parentheses). */
function statFields(pid: number | 'self'): string[] {
  const stat = readFileSync(`/proc/${pid}/stat`, 'utf8')
  return stat.slice(stat.lastIndexOf(')') + 2).split(' ')
}

/** This process as a lock names it (cached: none of it changes while the process runs). */
export function thisHolder(): LockHolder {
  if (own) return own
  own = {pid: process.pid}
  try {
    const bootId = readFileSync(BOOT_ID_FILE, 'utf8').trim()
    const pidNamespace = /^pid:\[(\d+)\]$/.exec(readlinkSync('/proc/self/ns/pid'))?.[1]
    // Field 22 of stat is the 20th after the name and the state.
    const startTicks = statFields('self')[19]
    // Under `unshare --pid` without `--mount-proc`, /proc shows another namespace's processes.
    const isOwnProc = readlinkSync('/proc/self') === String(process.pid)
    if (BOOT_ID.test(bootId) && pidNamespace !== undefined && startTicks !== undefined && DIGITS.test(startTicks) && isOwnProc) {
      own.namespace = {bootId, pidNamespace, startTicks}
    }
  } catch {
    // No /proc (macOS, or not mounted): the pid alone, checked by readers in this namespace.
  }
  return own
}

/** The holder part of a lock's content: `<pid>` or `<pid> boot=… pidns=… start=…` (see parseHolder). */
export function formatHolder(holder: LockHolder): string[] {
  const {pid, namespace} = holder
  return namespace ? [String(pid), `boot=${namespace.bootId}`, `pidns=${namespace.pidNamespace}`, `start=${namespace.startTicks}`] : [String(pid)]
}

/**
 * The holder named by a lock's whitespace-separated `fields` (its pid first, then any `key=value`
 * fields among the rest); undefined when the first field is not a pid, or the namespace fields are
 * partial or malformed (such a lock is stale only by its age).
 */
export function parseHolder(fields: readonly string[]): LockHolder | undefined {
  const pid = Number(fields[0])
  if (!DIGITS.test(fields[0] ?? '') || !Number.isSafeInteger(pid) || pid <= 0) return undefined
  const values = new Map<string, string>()
  for (const field of fields.slice(1)) {
    const equals = field.indexOf('=')
    if (equals > 0) values.set(field.slice(0, equals), field.slice(equals + 1))
  }
  const [bootId, pidNamespace, startTicks] = ['boot', 'pidns', 'start'].map((key) => values.get(key))
  if (bootId === undefined && pidNamespace === undefined && startTicks === undefined) return {pid}
  if (!BOOT_ID.test(bootId ?? '') || !DIGITS.test(pidNamespace ?? '') || !DIGITS.test(startTicks ?? '')) return undefined
  return {pid, namespace: {bootId: bootId as string, pidNamespace: pidNamespace as string, startTicks: startTicks as string}}
}

/** Whether a process with this pid exists in this PID namespace (EPERM: it exists but belongs to someone else). */
export function isRunning(pid: number): boolean {
  try {
    process.kill(pid, 0)
    return true
  } catch (error) {
    return errorCode(error) === 'EPERM'
  }
}

/**
 * Whether the lock holder `holder` still runs, as far as this process can tell: `unknown` when it
 * lives in another boot (another machine sharing the folder) or another PID namespace, or this
 * process cannot read where its own namespace's processes are shown.
 */
export function holderState(holder: LockHolder): HolderState {
  const here = thisHolder()
  if (!holder.namespace) return isRunning(holder.pid) ? 'running' : 'gone'
  if (!here.namespace || here.namespace.bootId !== holder.namespace.bootId || here.namespace.pidNamespace !== holder.namespace.pidNamespace) {
    return 'unknown'
  }
  try {
    const fields = statFields(holder.pid)
    // A zombie holds nothing; a pid that another process took since has another start time.
    return fields[0] === 'Z' || fields[19] !== holder.namespace.startTicks ? 'gone' : 'running'
  } catch (error) {
    return errorCode(error) === 'ENOENT' || errorCode(error) === 'ESRCH' ? 'gone' : 'unknown'
  }
}
