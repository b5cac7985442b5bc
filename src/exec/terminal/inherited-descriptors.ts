import {closeSync, openSync, readFileSync, readdirSync} from 'node:fs'

/** `O_CLOEXEC` as Linux reports it in the octal `flags:` line of `/proc/self/fdinfo/<fd>`. */
const LINUX_O_CLOEXEC = 0o2000000

let devNull: number | undefined

/**
 * The descriptors above 2 that this process holds without close-on-exec, so that every program it
 * starts would inherit them (Linux; elsewhere none are found): not Node's own, which it opens
 * close-on-exec, but ones its parent left open (a shell's `exec 200>file`, a leaky MCP host) or a
 * native module opened. Read from `/proc/self/fd` and `/proc/self/fdinfo` at each call, since a
 * host application that mounts the library may open more.
 * @throws the system error (EMFILE…) when /proc/self/fd cannot be read although it exists
 */
export function inheritableDescriptors(): number[] {
  let names: string[]
  try {
    names = readdirSync('/proc/self/fd')
  } catch (error) {
    // No /proc (not Linux): none can be found. Any other failure (EMFILE) is thrown: an empty
    // answer would hand the descriptors on.
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return []
    throw error
  }
  const found: number[] = []
  for (const name of names) {
    const fd = Number(name)
    if (!Number.isInteger(fd) || fd <= 2) continue
    try {
      const flags = /^flags:\s*([0-7]+)$/m.exec(readFileSync(`/proc/self/fdinfo/${fd}`, 'latin1'))
      if (flags && (Number.parseInt(flags[1]!, 8) & LINUX_O_CLOEXEC) === 0) found.push(fd)
    } catch (error) {
      // Closed meanwhile (the listing's own descriptor among them): nothing to hand on. Any other
      // failure (EMFILE) is thrown, for the same reason as above.
      if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error
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

/**
 * Closes every descriptor of inheritableDescriptors in this process, except Node's IPC channel
 * (`NODE_CHANNEL_FD`), and returns how many it closed. For the server's own process (`ak exec
 * serve`, `dist/agentexec.js`), which never uses a descriptor its parent left open: once they are
 * gone no spawn needs to mask them. Masking cannot reach every one: a descriptor at or above the
 * descriptor limit (a parent's `exec 251>file`, then `ulimit -n 128`) cannot be the target of the
 * child's dup2, and libuv's child asks for descriptors above the last masked one, which the limit
 * refuses: every spawn failed with EINVAL. A host that mounts the library keeps its descriptors;
 * there withoutInheritedDescriptors masks them, and a spawn it cannot mask is a tool error.
 */
export function closeInheritedDescriptors(env: NodeJS.ProcessEnv = process.env): number {
  const channel = Number(env.NODE_CHANNEL_FD)
  let closed = 0
  for (const fd of inheritableDescriptors()) {
    if (fd === channel) continue
    try {
      closeSync(fd)
      closed++
    } catch {
      // closed meanwhile
    }
  }
  return closed
}
