import {expect} from 'chai'

import {ByteBudget, PathLocks} from '../../../../src/exec/files/path-locks.js'

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

describe('ByteBudget (bytes of files edited at once)', () => {
  it('runs tasks together while their bytes fit and makes the others wait in order', async () => {
    const budget = new ByteBudget(100)
    const events: string[] = []
    let inUseMost = 0
    const task = (name: string) => async () => {
      inUseMost = Math.max(inUseMost, budget.bytesInUse)
      events.push(`start ${name}`)
      await tick()
      await tick()
      events.push(`end ${name}`)
    }
    await Promise.all([budget.hold(60, task('a')), budget.hold(60, task('b')), budget.hold(30, task('c'))])
    expect(inUseMost).to.be.at.most(100)
    // c would fit beside a but waits behind b, so that b is not passed over.
    expect(events.slice(0, 2)).to.deep.equal(['start a', 'end a'])
    expect(events.indexOf('start c')).to.be.greaterThan(events.indexOf('start b'))
    expect(budget.bytesInUse).to.equal(0)
  })

  it('runs a task larger than the whole budget alone, and releases bytes when a task throws', async () => {
    const budget = new ByteBudget(10)
    let failed = false
    await budget.hold(50, async () => {
      expect(budget.bytesInUse).to.equal(50)
      throw new Error('boom')
    }).catch(() => {
      failed = true
    })
    expect(failed).to.equal(true)
    expect(budget.bytesInUse).to.equal(0)
    expect(await budget.hold(5, async () => 'ran')).to.equal('ran')
  })
})
