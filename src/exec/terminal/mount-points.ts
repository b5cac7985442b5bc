/**
 * Which paths a sandbox still has a mount on (DESIGN §4.9): the placeholders of
 * sandbox-protected.ts are bound read-only in each command's mount namespace, and removing one on
 * the host while a sandbox mounts it detaches that bind there (Linux 3.18 and later), so the
 * command could then create the protected name. Servers share the placeholders of a workspace, so
 * before removing one, a server asks whether any mount namespace it can see still has a mount on
 * it: every process's `/proc/PID/mountinfo` (readable by every user unless `/proc` is mounted
 * with `hidepid`), one process per namespace when its `ns/mnt` link can be read. Read with
 * synchronous calls: procfs answers them from memory (about a millisecond for a few hundred
 * processes), where a thread-pool round trip per process costs far more on a busy machine.
 */
import {readFileSync, readdirSync, readlinkSync} from 'node:fs'

/** The mount point of a mountinfo line (its fifth field), with the kernel's octal escapes (`\040` for a space) undone. */
export function mountPointOf(line: string): string | undefined {
  const field = line.split(' ')[4]
  return field?.replace(/\\([0-7]{3})/g, (_, octal: string) => String.fromCharCode(Number.parseInt(octal, 8)))
}

/** `read()`, or undefined when it throws (a process gone meanwhile, a file not allowed). */
function orUndefined<T>(read: () => T): T | undefined {
  try {
    return read()
  } catch {
    return undefined
  }
}

/**
 * The paths of `paths` (absolute, as the sandboxes mount them) that some mount namespace this
 * process can see has a mount on; empty where there is no `/proc`.
 */
export function mountedPaths(paths: ReadonlySet<string>): Set<string> {
  const found = new Set<string>()
  if (paths.size === 0) return found
  const namespaces = new Set<string>()
  for (const pid of orUndefined(() => readdirSync('/proc')) ?? []) {
    if (!/^\d+$/.test(pid)) continue
    const namespace = orUndefined(() => readlinkSync(`/proc/${pid}/ns/mnt`))
    if (namespace !== undefined) {
      if (namespaces.has(namespace)) continue
      namespaces.add(namespace)
    }
    const mounts = orUndefined(() => readFileSync(`/proc/${pid}/mountinfo`, 'utf8')) ?? ''
    for (const line of mounts.split('\n')) {
      const point = mountPointOf(line)
      if (point !== undefined && paths.has(point)) found.add(point)
    }
  }
  return found
}
