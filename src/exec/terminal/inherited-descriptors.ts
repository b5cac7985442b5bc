import {openSync, readFileSync, readdirSync} from 'node:fs'

/** `O_CLOEXEC` as Linux reports it in the octal `flags:` line of `/proc/self/fdinfo/<fd>`. */
const LINUX_O_CLOEXEC = 0o2000000

let devNull: number | undefined

/**
 * The descriptors above 2 that this process holds without close-on-exec, so that every program it
 * starts would inherit them (Linux; elsewhere none are found): not Node's own, which it opens
 * close-on-exec, but ones its parent left open (a shell's `exec 200>file`, a leaky MCP host) or a
 * native module opened. Read from `/proc/self/fd` and `/proc/self/fdinfo` at each call, since a
 * host application that mounts the library may open more.
 */
export function inheritableDescriptors(): number[] {
  let names: string[]
  try {
    names = readdirSync('/proc/self/fd')
  } catch {
    return []
  }
  const found: number[] = []
  for (const name of names) {
    const fd = Number(name)
    if (!Number.isInteger(fd) || fd <= 2) continue
    try {
      const flags = /^flags:\s*([0-7]+)$/m.exec(readFileSync(`/proc/self/fdinfo/${fd}`, 'latin1'))
      if (flags && (Number.parseInt(flags[1]!, 8) & LINUX_O_CLOEXEC) === 0) found.push(fd)
    } catch {
      // Closed meanwhile (the listing's own descriptor among them): nothing to hand on.
    }
  }
  return found.sort((a, b) => a - b)
}

/**
 * `stdio` for spawning a program ak starts for an agent or for the user's profile (a command, the
 * sandbox's bubblewrap, the shell snapshot's capture), with every descriptor of
 * inheritableDescriptors that `stdio` does not set pointed at `/dev/null` instead. Without this,
 * Node passes such a descriptor on to the child, and a descriptor opened on the host reaches the
 * host's files past the sandbox's read-only view (a folder's descriptor opens any file under it).
 * `inheritable` is for tests. The `/dev/null` descriptor is opened once, close-on-exec, and kept.
 */
export function withoutInheritedDescriptors<Entry>(
  stdio: readonly Entry[],
  inheritable: readonly number[] = inheritableDescriptors(),
): Array<Entry | 'ignore' | number> {
  const masked: Array<Entry | 'ignore' | number | null | undefined> = [...stdio]
  for (const fd of inheritable) {
    if (fd < masked.length && masked[fd] !== undefined && masked[fd] !== 'ignore' && masked[fd] !== null) continue
    devNull ??= openSync('/dev/null', 'r')
    while (masked.length < fd) masked.push('ignore')
    masked[fd] = devNull
  }
  return masked as Array<Entry | 'ignore' | number>
}
