/**
 * The seccomp filter of the terminal sandbox (DESIGN §4.8): a classic-BPF program that bubblewrap
 * installs (`--seccomp FD`) on the sandboxed command just before it runs it. It forbids what
 * bubblewrap's namespaces and dropped capabilities leave open, after Codex's Linux sandbox
 * (`codex-rs/linux-sandbox/src/seccomp.rs`) and the default profiles of Docker and Flatpak:
 *
 * - always: `ptrace` and `process_vm_readv`/`writev` (reading or steering another process of the
 *   sandbox, bubblewrap's own included); `io_uring_*` (it opens sockets and files without the
 *   system calls this filter sees); `keyctl`, `add_key`, `request_key` (kernel keyrings are not
 *   confined by the sandbox's namespaces); `unshare`, `setns`, `clone` with a namespace flag, and
 *   every mount call (`mount`, `umount2`, `pivot_root`, `chroot`, the new mount API) — the
 *   dropped capabilities and `--disable-userns` already refuse these, the filter says so a second
 *   time; `bpf`, `perf_event_open`, `userfaultfd` (kernel attack surface no build tool needs).
 *   `clone3` answers ENOSYS: its flags lie in memory the filter cannot read, and C libraries then
 *   fall back to `clone`, whose flags it can; `openat2` too, for the same reason (its mode).
 * - always: a mode with set-user-ID or set-group-ID (`chmod u+s`, `open(…, O_CREAT, 04755)`,
 *   `mknod`). The workspace is mounted `nosuid` inside the sandbox, but on the host it is not: a
 *   command of a server run as root would otherwise leave a set-user-ID root program there for
 *   any local user to run (or, as a user, one that runs as that user).
 * - when the network is off: `socket` and `socketpair` for anything but Unix sockets (and
 *   `NETLINK_ROUTE`, which only describes the sandbox's own network and which `getifaddrs` needs),
 *   so no vsock or packet socket reaches the host past the network namespace; `connect`, and
 *   Unix datagram sockets (which send to a path without connecting), so no command talks to a
 *   Unix socket of the host's file system (Docker's, D-Bus's, the journal's) — abstract Unix
 *   sockets belong to the network namespace and are out of reach already. Socket pairs keep
 *   working (`send`, `sendmsg`, passing descriptors), as do pipes.
 * - with the network on: vsock sockets still (as Codex): they reach the hypervisor's services,
 *   outside the sandbox and the network's rules (in WSL2, one starts Windows programs).
 *
 * A forbidden call fails with EPERM ("Operation not permitted"); the command keeps running. A
 * system call of another architecture (a 32-bit program on x86_64, the x32 ABI) fails the same
 * way, so a forbidden call cannot be reached under another number.
 */

/** The architectures whose system call numbers the filter knows, as Node's `process.arch` names them. */
export const SECCOMP_ARCHES = ['x64', 'arm64'] as const
export type SeccompArch = (typeof SECCOMP_ARCHES)[number]

/** `AUDIT_ARCH_*` values (linux/audit.h) the kernel reports in `seccomp_data.arch`. */
const AUDIT_ARCH: Record<SeccompArch, number> = {x64: 0xc0_00_00_3e, arm64: 0xc0_00_00_b7}
/** On x86_64, numbers at or above this bit are the x32 ABI's. */
const X32_SYSCALL_BIT = 0x40_00_00_00

/** System call numbers (x86_64: asm/unistd_64.h; aarch64: asm-generic/unistd.h). */
const SYSCALLS = {
  ptrace: {x64: 101, arm64: 117},
  process_vm_readv: {x64: 310, arm64: 270},
  process_vm_writev: {x64: 311, arm64: 271},
  io_uring_setup: {x64: 425, arm64: 425},
  io_uring_enter: {x64: 426, arm64: 426},
  io_uring_register: {x64: 427, arm64: 427},
  keyctl: {x64: 250, arm64: 219},
  add_key: {x64: 248, arm64: 217},
  request_key: {x64: 249, arm64: 218},
  unshare: {x64: 272, arm64: 97},
  setns: {x64: 308, arm64: 268},
  mount: {x64: 165, arm64: 40},
  umount2: {x64: 166, arm64: 39},
  pivot_root: {x64: 155, arm64: 41},
  chroot: {x64: 161, arm64: 51},
  open_tree: {x64: 428, arm64: 428},
  move_mount: {x64: 429, arm64: 429},
  fsopen: {x64: 430, arm64: 430},
  fsconfig: {x64: 431, arm64: 431},
  fsmount: {x64: 432, arm64: 432},
  fspick: {x64: 433, arm64: 433},
  mount_setattr: {x64: 442, arm64: 442},
  bpf: {x64: 321, arm64: 280},
  perf_event_open: {x64: 298, arm64: 241},
  userfaultfd: {x64: 323, arm64: 282},
  clone: {x64: 56, arm64: 220},
  clone3: {x64: 435, arm64: 435},
  socket: {x64: 41, arm64: 198},
  socketpair: {x64: 53, arm64: 199},
  connect: {x64: 42, arm64: 203},
  chmod: {x64: 90, arm64: undefined},
  fchmod: {x64: 91, arm64: 52},
  fchmodat: {x64: 268, arm64: 53},
  fchmodat2: {x64: 452, arm64: 452},
  open: {x64: 2, arm64: undefined},
  creat: {x64: 85, arm64: undefined},
  openat: {x64: 257, arm64: 56},
  openat2: {x64: 437, arm64: 437},
  mknod: {x64: 133, arm64: undefined},
  mknodat: {x64: 259, arm64: 33},
} as const satisfies Record<string, Record<SeccompArch, number | undefined>>
export type SyscallName = keyof typeof SYSCALLS

/** Refused outright in every sandbox. */
export const ALWAYS_DENIED: readonly SyscallName[] = [
  'ptrace', 'process_vm_readv', 'process_vm_writev',
  'io_uring_setup', 'io_uring_enter', 'io_uring_register',
  'keyctl', 'add_key', 'request_key',
  'unshare', 'setns', 'mount', 'umount2', 'pivot_root', 'chroot',
  'open_tree', 'move_mount', 'fsopen', 'fsconfig', 'fsmount', 'fspick', 'mount_setattr',
  'bpf', 'perf_event_open', 'userfaultfd',
]
/**
 * The calls that set a file's mode, and which argument holds it: refused when it asks for
 * set-user-ID or set-group-ID (MODE_SETID_BITS).
 */
export const MODE_ARGUMENT: ReadonlyArray<[SyscallName, number]> = [
  ['chmod', 1], ['fchmod', 1], ['fchmodat', 2], ['fchmodat2', 2],
  ['open', 2], ['creat', 1], ['openat', 3], ['mknod', 1], ['mknodat', 2],
]
/** S_ISUID | S_ISGID. */
export const MODE_SETID_BITS = 0o6000

/** Refused outright when the network is off. */
export const DENIED_WITHOUT_NETWORK: readonly SyscallName[] = ['connect']

/** The `clone` flags that create a namespace (linux/sched.h; CLONE_NEWTIME exists only for clone3 and unshare). */
export const CLONE_NAMESPACE_FLAGS = 0x00_02_00_00 | 0x02_00_00_00 | 0x04_00_00_00 | 0x08_00_00_00 | 0x10_00_00_00 | 0x20_00_00_00 | 0x40_00_00_00
/** Socket families (linux/socket.h) and the one netlink protocol allowed without network. */
const AF_UNIX = 1
const AF_NETLINK = 16
const AF_VSOCK = 40
const NETLINK_ROUTE = 0
/** The bits of socket()'s type that name it (the rest are SOCK_NONBLOCK and SOCK_CLOEXEC), and the datagram type. */
const SOCK_TYPE_MASK = 0xf
const SOCK_DGRAM = 2
const EPERM = 1
const ENOSYS = 38

// Classic BPF (linux/filter.h, linux/bpf_common.h) and seccomp's return values (linux/seccomp.h).
const BPF_LD_W_ABS = 0x20
const BPF_JEQ_K = 0x15
const BPF_JGE_K = 0x35
const BPF_JSET_K = 0x45
const BPF_RET_K = 0x06
const BPF_ALU_AND_K = 0x54
const SECCOMP_RET_ALLOW = 0x7f_ff_00_00
const SECCOMP_RET_ERRNO = 0x00_05_00_00
/**
 * Offsets in `struct seccomp_data`: nr (u32), arch (u32), instruction pointer (u64), args[6] (u64
 * each; the low 32 bits first on these little-endian machines, and all an int argument holds).
 */
const NR_OFFSET = 0
const ARCH_OFFSET = 4
const argLow = (index: number) => 16 + 8 * index

/** One instruction; a jump names its targets by label, resolved by assemble(). */
export type Instruction =
  | {op: 'load'; offset: number}
  | {op: 'jeq' | 'jge' | 'jset'; k: number; then: string; else?: string}
  | {op: 'and'; k: number}
  | {op: 'return'; value: number}
  | {op: 'label'; name: string}

/**
 * Encodes `program` as the `struct sock_filter` array bubblewrap expects (8 bytes per
 * instruction: u16 code, u8 jt, u8 jf, u32 k, little-endian as on both supported architectures).
 * A jump without `else` falls through. Pure.
 * @throws Error for an unknown label, a backward jump, or one further than 255 instructions.
 */
export function assemble(program: readonly Instruction[]): Buffer {
  const labels = new Map<string, number>()
  const code: Exclude<Instruction, {op: 'label'}>[] = []
  for (const instruction of program) {
    if (instruction.op === 'label') labels.set(instruction.name, code.length)
    else code.push(instruction)
  }
  const out = Buffer.alloc(code.length * 8)
  const distance = (from: number, label: string | undefined) => {
    if (label === undefined) return 0
    const target = labels.get(label)
    if (target === undefined) throw new Error(`seccomp filter: unknown label ${label}`)
    const offset = target - from - 1
    if (offset < 0 || offset > 255) throw new Error(`seccomp filter: jump to ${label} out of range (${offset})`)
    return offset
  }
  code.forEach((instruction, index) => {
    const at = index * 8
    switch (instruction.op) {
      case 'load': {
        out.writeUInt16LE(BPF_LD_W_ABS, at)
        out.writeUInt32LE(instruction.offset, at + 4)
        break
      }
      case 'and': {
        out.writeUInt16LE(BPF_ALU_AND_K, at)
        out.writeUInt32LE(instruction.k >>> 0, at + 4)
        break
      }
      case 'return': {
        out.writeUInt16LE(BPF_RET_K, at)
        out.writeUInt32LE(instruction.value >>> 0, at + 4)
        break
      }
      default: {
        out.writeUInt16LE({jeq: BPF_JEQ_K, jge: BPF_JGE_K, jset: BPF_JSET_K}[instruction.op], at)
        out.writeUInt8(distance(index, instruction.then), at + 2)
        out.writeUInt8(distance(index, instruction.else), at + 3)
        out.writeUInt32LE(instruction.k >>> 0, at + 4)
      }
    }
  })
  return out
}

/**
 * The sandbox's seccomp filter for `arch`, as the instructions assemble() encodes (see the
 * module's comment for what it refuses and why). Pure.
 */
export function seccompInstructions(arch: SeccompArch, options: {network: boolean}): Instruction[] {
  const nr = (name: SyscallName) => {
    const number = SYSCALLS[name][arch]
    if (number === undefined) throw new Error(`seccomp filter: ${name} does not exist on ${arch}`)
    return number
  }
  const program: Instruction[] = [
    {op: 'load', offset: ARCH_OFFSET},
    {op: 'jeq', k: AUDIT_ARCH[arch], then: 'native', else: 'deny'},
    {op: 'label', name: 'native'},
    {op: 'load', offset: NR_OFFSET},
  ]
  if (arch === 'x64') program.push({op: 'jge', k: X32_SYSCALL_BIT, then: 'deny'})
  const denied = [...ALWAYS_DENIED, ...(options.network ? [] : DENIED_WITHOUT_NETWORK)]
  for (const name of denied) program.push({op: 'jeq', k: nr(name), then: 'deny'})
  program.push(
    {op: 'jeq', k: nr('clone3'), then: 'no-such-call'},
    {op: 'jeq', k: nr('openat2'), then: 'no-such-call'},
    {op: 'jeq', k: nr('clone'), then: 'clone'},
  )
  for (const [name, argument] of MODE_ARGUMENT) {
    const number = SYSCALLS[name][arch]
    if (number !== undefined) program.push({op: 'jeq', k: number, then: `mode-${argument}`})
  }
  program.push(
    {op: 'jeq', k: nr('socket'), then: options.network ? 'socket-any' : 'socket'},
    {op: 'jeq', k: nr('socketpair'), then: options.network ? 'socket-any' : 'socketpair'},
  )
  if (!options.network) {
  }
  // Everything else is allowed; the checks of arguments follow, then the shared answers, so that
  // every jump goes forward (classic BPF has no backward jumps).
  program.push(
    {op: 'return', value: SECCOMP_RET_ALLOW},
    {op: 'label', name: 'clone'},
    {op: 'load', offset: argLow(0)},
    {op: 'jset', k: CLONE_NAMESPACE_FLAGS, then: 'deny', else: 'allow'},
  )
  for (const argument of new Set(MODE_ARGUMENT.map(([, index]) => index))) {
    program.push(
      {op: 'label', name: `mode-${argument}`},
      {op: 'load', offset: argLow(argument)},
      {op: 'jset', k: MODE_SETID_BITS, then: 'deny', else: 'allow'},
    )
  }
  if (options.network) {
    program.push(
      {op: 'label', name: 'socket-any'},
      {op: 'load', offset: argLow(0)},
      {op: 'jeq', k: AF_VSOCK, then: 'deny', else: 'allow'},
    )
  } else {
    program.push(
      {op: 'label', name: 'socket'},
      {op: 'load', offset: argLow(0)},
      {op: 'jeq', k: AF_UNIX, then: 'unix'},
      {op: 'jeq', k: AF_NETLINK, then: 'netlink', else: 'deny'},
      // socket(AF_UNIX, type, protocol): a datagram socket could send to a host path unconnected.
      {op: 'label', name: 'unix'},
      {op: 'load', offset: argLow(1)},
      {op: 'and', k: SOCK_TYPE_MASK},
      {op: 'jeq', k: SOCK_DGRAM, then: 'deny', else: 'allow'},
      {op: 'label', name: 'netlink'},
      {op: 'load', offset: argLow(2)},
      {op: 'jeq', k: NETLINK_ROUTE, then: 'allow', else: 'deny'},
      {op: 'label', name: 'socketpair'},
      {op: 'load', offset: argLow(0)},
      {op: 'jeq', k: AF_UNIX, then: 'allow', else: 'deny'},
    )
  }
  program.push(
    {op: 'label', name: 'allow'},
    {op: 'return', value: SECCOMP_RET_ALLOW},
    {op: 'label', name: 'no-such-call'},
    {op: 'return', value: SECCOMP_RET_ERRNO | ENOSYS},
    {op: 'label', name: 'deny'},
    {op: 'return', value: SECCOMP_RET_ERRNO | EPERM},
  )
  return program
}

/** Whether the filter knows `arch`'s system call numbers. */
export function isSeccompArch(arch: string): arch is SeccompArch {
  return (SECCOMP_ARCHES as readonly string[]).includes(arch)
}

/**
 * The sandbox's seccomp filter for `arch` (default: this machine's), compiled for bubblewrap's
 * `--seccomp FD`. Pure.
 * @throws Error for an architecture the filter does not know (check isSeccompArch first).
 */
export function seccompProgram(options: {network: boolean; arch?: string}): Buffer {
  const arch = options.arch ?? process.arch
  if (!isSeccompArch(arch)) throw new Error(`seccomp filter: no system call table for ${arch}`)
  return assemble(seccompInstructions(arch, options))
}
