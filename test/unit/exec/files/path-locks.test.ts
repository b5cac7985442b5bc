import {expect} from 'chai'

import {PathLocks} from '../../../../src/exec/files/path-locks.js'

const tick = () => new Promise((resolve) => setImmediate(resolve))

describe('PathLocks (per-path serialisation of edits)', () => {
  it('runs tasks on one key one at a time, in arrival order', async () => {
    const locks = new PathLocks()
    const events: string[] = []
    let inside = 0
    let most = 0
    const task = (name: string) => async () => {
      inside++
      most = Math.max(most, inside)
      events.push(`start ${name}`)
      await tick()
      await tick()
      events.push(`end ${name}`)
      inside--
      return name
    }
    const results = await Promise.all(['a', 'b', 'c'].map((name) => locks.hold('/f', task(name))))
    expect(results).to.deep.equal(['a', 'b', 'c'])
    expect(most).to.equal(1)
    expect(events).to.deep.equal(['start a', 'end a', 'start b', 'end b', 'start c', 'end c'])
  })

  it('lets tasks on different keys run at the same time', async () => {
    const locks = new PathLocks()
    let inside = 0
    let most = 0
    const task = async () => {
      inside++
      most = Math.max(most, inside)
      await tick()
      inside--
    }
    await Promise.all([locks.hold('/a', task), locks.hold('/b', task)])
    expect(most).to.equal(2)
  })

  it('releases the key when a task throws, and forgets keys nobody holds', async () => {
    const locks = new PathLocks()
    const failing = locks.hold('/f', async () => {
      throw new Error('boom')
    })
    const next = locks.hold('/f', async () => 'ran')
    expect(locks.size).to.equal(1)
    expect(await failing.then(() => 'resolved', (error: Error) => error.message)).to.equal('boom')
    expect(await next).to.equal('ran')
    expect(locks.size).to.equal(0)
  })
})
