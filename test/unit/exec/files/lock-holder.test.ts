import {expect} from 'chai'
import {spawnSync} from 'node:child_process'
import {readFileSync} from 'node:fs'

import {formatHolder, holderState, parseHolder, thisHolder} from '../../../../src/exec/files/lock-holder.js'

const BOOT = '0f1e2d3c-4b5a-6978-8796-a5b4c3d2e1f0'

describe('lock holders (replace lock)', () => {
  it('names this process by its pid and, on Linux, its boot id, PID namespace and start time, read back the same', function () {
    const holder = thisHolder()
    expect(holder.pid).to.equal(process.pid)
    if (process.platform !== 'linux') this.skip()
    expect(holder.namespace?.bootId).to.equal(readFileSync('/proc/sys/kernel/random/boot_id', 'utf8').trim())
    expect(parseHolder(formatHolder(holder))).to.deep.equal(holder)
    expect(holderState(holder)).to.equal('running')
  })

  it('reads a lock of ak before this format (a pid and random digits) as that pid alone', () => {
    expect(parseHolder(['123', '0123456789abcdef'])).to.deep.equal({pid: 123})
  })

  it('names no holder for a lock that is not a pid or has partial or malformed namespace fields', () => {
    for (const fields of [['abc'], ['0'], ['-1'], ['12x'], ['1', 'boot=x', 'pidns=1', 'start=1'], ['1', `boot=${BOOT}`, 'pidns=1'], ['1', `boot=${BOOT}`, 'pidns=1', 'start=a']]) {
      expect(parseHolder(fields), fields.join(' ')).to.equal(undefined)
    }
  })

  it('cannot tell a holder in another PID namespace or boot, whatever runs here under its pid', function () {
    const here = thisHolder()
    if (!here.namespace) this.skip()
    const {bootId, pidNamespace, startTicks} = here.namespace
    expect(holderState({pid: process.pid, namespace: {bootId, pidNamespace: String(Number(pidNamespace) + 1), startTicks}})).to.equal('unknown')
    expect(holderState({pid: process.pid, namespace: {bootId: BOOT, pidNamespace, startTicks}})).to.equal('unknown')
  })

  it('knows a holder of this namespace is gone when its pid ended or now belongs to a process started later', function () {
    const here = thisHolder()
    if (!here.namespace) this.skip()
    const ended = spawnSync('true').pid as number
    expect(holderState({pid: ended, namespace: here.namespace})).to.equal('gone')
    expect(holderState({pid: process.pid, namespace: {...here.namespace, startTicks: String(Number(here.namespace.startTicks) + 1)}})).to.equal('gone')
    expect(holderState({pid: process.ppid, namespace: here.namespace})).to.equal('gone')
  })
})
