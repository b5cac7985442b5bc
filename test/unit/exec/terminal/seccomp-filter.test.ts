import {expect} from 'chai'

import {
  ALWAYS_DENIED,
  CLONE_NAMESPACE_FLAGS,
  type SeccompArch,
  assemble,
  seccompProgram,
} from '../../../../src/exec/terminal/seccomp-filter.js'

const AUDIT_ARCH = {x64: 0xc0_00_00_3e, arm64: 0xc0_00_00_b7, i386: 0x40_00_00_03}
const ALLOW = 0x7f_ff_00_00
const EPERM = 0x00_05_00_01
const ENOSYS = 0x00_05_00_26

/** System call numbers the tests use, from the same headers as the filter (checked by hand, not imported). */
const NR = {
  x64: {chmod: 90, fchmod: 91, fchmodat: 268, fchmodat2: 452, openat2: 437, mknodat: 259, read: 0, write: 1, openat: 257, clone: 56, clone3: 435, socket: 41, socketpair: 53, connect: 42, sendto: 44, sendmsg: 46, ptrace: 101, keyctl: 250, io_uring_setup: 425, unshare: 272, setns: 308, mount: 165, bind: 49},
  arm64: {chmod: -1, fchmod: 52, fchmodat: 53, fchmodat2: 452, openat2: 437, mknodat: 33, read: 63, write: 64, openat: 56, clone: 220, clone3: 435, socket: 198, socketpair: 199, connect: 203, sendto: 206, sendmsg: 211, ptrace: 117, keyctl: 219, io_uring_setup: 425, unshare: 97, setns: 268, mount: 40, bind: 200},
} as const

/**
 * Runs a classic-BPF seccomp program on one system call, as the kernel would: only the
 * instructions the filter may use (load word, jeq/jge/jset, and, ret), with forward jumps.
 */
function run(program: Buffer, call: {arch: number; nr: number; args?: number[]}): number {
  const data = Buffer.alloc(64)
  data.writeUInt32LE(call.nr >>> 0, 0)
  data.writeUInt32LE(call.arch >>> 0, 4)
  for (const [index, value] of (call.args ?? []).entries()) data.writeBigInt64LE(BigInt(value), 16 + 8 * index)
  let accumulator = 0
  for (let pc = 0; pc * 8 < program.length; pc++) {
    const code = program.readUInt16LE(pc * 8)
    const jt = program.readUInt8(pc * 8 + 2)
    const jf = program.readUInt8(pc * 8 + 3)
    const k = program.readUInt32LE(pc * 8 + 4)
    switch (code) {
      case 0x20: {
        accumulator = data.readUInt32LE(k)
        break
      }
      case 0x54: {
        accumulator = (accumulator & k) >>> 0
        break
      }
      case 0x15: {
        pc += accumulator === k ? jt : jf
        break
      }
      case 0x35: {
        pc += accumulator >= k ? jt : jf
        break
      }
      case 0x45: {
        pc += (accumulator & k) === 0 ? jf : jt
        break
      }
      case 0x06: {
        return k
      }
      default: {
        throw new Error(`unexpected instruction ${code.toString(16)} at ${pc}`)
      }
    }
  }
  throw new Error('the program ran off its end')
}

for (const arch of ['x64', 'arm64'] as const satisfies readonly SeccompArch[]) {
  const nr = NR[arch]
  const off = seccompProgram({network: false, arch})
  const on = seccompProgram({network: true, arch})
  const call = (program: Buffer, name: keyof typeof nr, args: number[] = []) => run(program, {arch: AUDIT_ARCH[arch], nr: nr[name], args})

  describe(`the sandbox's seccomp filter on ${arch}`, () => {
    it('is small enough for classic BPF and every jump lands inside it', () => {
      expect(off.length % 8).to.equal(0)
      expect(off.length / 8).to.be.below(100)
      for (let pc = 0; pc * 8 < off.length; pc++) {
        const code = off.readUInt16LE(pc * 8)
        if (code === 0x06 || code === 0x20 || code === 0x54) continue
        expect(pc + 1 + Math.max(off.readUInt8(pc * 8 + 2), off.readUInt8(pc * 8 + 3))).to.be.below(off.length / 8)
      }
    })

    it('lets ordinary calls through, with the network on or off', () => {
      for (const program of [off, on]) {
        for (const name of ['read', 'write', 'openat', 'bind', 'sendmsg'] as const) expect(call(program, name), name).to.equal(ALLOW)
        expect(call(program, 'clone', [0x01_20_00_11])).to.equal(ALLOW) // fork(): CLONE_CHILD_SETTID|CLONE_CHILD_CLEARTID|SIGCHLD
        expect(call(program, 'clone', [0x00_3d_0f_00])).to.equal(ALLOW) // a thread
        expect(call(program, 'socketpair', [1, 1, 0])).to.equal(ALLOW)
      }
    })

    it('refuses ptrace, keyrings, io_uring, mounts and namespaces with EPERM, with the network on or off', () => {
      for (const program of [off, on]) {
        for (const name of ['ptrace', 'keyctl', 'io_uring_setup', 'unshare', 'setns', 'mount'] as const) expect(call(program, name), name).to.equal(EPERM)
        for (let bit = 0; bit < 32; bit++) {
          const flag = 2 ** bit
          if (CLONE_NAMESPACE_FLAGS & flag) expect(call(program, 'clone', [flag | 0x11]), flag.toString(16)).to.equal(EPERM)
        }
      }
      expect(ALWAYS_DENIED).to.include.members(['ptrace', 'process_vm_readv', 'io_uring_enter', 'add_key', 'request_key', 'umount2', 'pivot_root', 'bpf'])
    })

    it('refuses a mode with set-user-ID or set-group-ID, and lets every other mode through', () => {
      for (const program of [off, on]) {
        const modeCalls = [['fchmod', 1], ['fchmodat', 2], ['fchmodat2', 2], ['openat', 3], ['mknodat', 2]] as const
        for (const [name, index] of modeCalls) {
          const args = (mode: number) => Array.from({length: index + 1}, (_, at) => (at === index ? mode : 3))
          for (const mode of [0o4755, 0o2755, 0o6777, 0o104_755]) expect(call(program, name, args(mode)), `${name} ${mode.toString(8)}`).to.equal(EPERM)
          for (const mode of [0o755, 0o644, 0o1777, 0o100_644, 0]) expect(call(program, name, args(mode)), `${name} ${mode.toString(8)}`).to.equal(ALLOW)
        }
        if (arch === 'x64') {
          expect(call(program, 'chmod', [0, 0o4755])).to.equal(EPERM)
          expect(call(program, 'chmod', [0, 0o755])).to.equal(ALLOW)
        }
      }
    })

    it('answers clone3 and openat2 with ENOSYS, so that callers fall back to clone and openat, whose arguments it can check', () => {
      expect(call(off, 'clone3')).to.equal(ENOSYS)
      expect(call(on, 'clone3')).to.equal(ENOSYS)
      expect(call(on, 'openat2')).to.equal(ENOSYS)
    })

    it('without network, allows Unix stream sockets and route netlink only, and no connect', () => {
      expect(call(off, 'socket', [1, 1, 0])).to.equal(ALLOW) // AF_UNIX, SOCK_STREAM
      expect(call(off, 'socket', [1, 1 | 0x80_000 | 0x800, 0])).to.equal(ALLOW) // with SOCK_CLOEXEC|SOCK_NONBLOCK
      expect(call(off, 'socket', [1, 2, 0])).to.equal(EPERM) // AF_UNIX, SOCK_DGRAM: sends to a path unconnected
      expect(call(off, 'socket', [1, 2 | 0x80_000, 0])).to.equal(EPERM)
      expect(call(off, 'socket', [16, 3, 0])).to.equal(ALLOW) // AF_NETLINK, NETLINK_ROUTE (getifaddrs)
      expect(call(off, 'socket', [16, 3, 9])).to.equal(EPERM) // NETLINK_AUDIT
      for (const family of [2, 10, 17, 40]) expect(call(off, 'socket', [family, 1, 0]), String(family)).to.equal(EPERM) // inet, inet6, packet, vsock
      expect(call(off, 'socketpair', [40, 1, 0])).to.equal(EPERM)
      expect(call(off, 'connect', [3, 0, 110])).to.equal(EPERM)
      expect(call(off, 'sendto', [3, 0, 1, 0, 0, 0])).to.equal(ALLOW)
    })

    it('with network, leaves sockets alone but for vsock, which reaches the hypervisor', () => {
      for (const family of [1, 2, 10, 16, 17]) expect(call(on, 'socket', [family, 2, 0]), String(family)).to.equal(ALLOW)
      expect(call(on, 'connect', [3, 0, 16])).to.equal(ALLOW)
      expect(call(on, 'socket', [40, 1, 0])).to.equal(EPERM)
      expect(call(on, 'socketpair', [40, 1, 0])).to.equal(EPERM)
    })

    it('refuses every call made under another architecture, so none is reached by another number', () => {
      const other = arch === 'x64' ? AUDIT_ARCH.arm64 : AUDIT_ARCH.x64
      for (const program of [off, on]) {
        expect(run(program, {arch: AUDIT_ARCH.i386, nr: 0})).to.equal(EPERM)
        expect(run(program, {arch: other, nr: 0})).to.equal(EPERM)
      }
    })
  })
}

describe('the seccomp filter\'s assembler', () => {
  it('refuses the x32 numbers on x86_64', () => {
    const program = seccompProgram({network: true, arch: 'x64'})
    expect(run(program, {arch: AUDIT_ARCH.x64, nr: 0x40_00_00_00})).to.equal(EPERM)
    expect(run(program, {arch: AUDIT_ARCH.x64, nr: 0x40_00_00_00 + NR.x64.read})).to.equal(EPERM)
  })

  it('knows x64 and arm64 only', () => {
    expect(() => seccompProgram({network: true, arch: 'riscv64'})).to.throw('no system call table for riscv64')
  })

  it('refuses an unknown label and a backward jump', () => {
    expect(() => assemble([{op: 'jeq', k: 1, then: 'nowhere'}])).to.throw('unknown label nowhere')
    expect(() => assemble([{op: 'label', name: 'top'}, {op: 'jeq', k: 1, then: 'top'}])).to.throw('out of range')
  })
})
