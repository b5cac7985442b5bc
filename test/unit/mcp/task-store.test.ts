import {expect} from 'chai'

import {TaskStore, type TaskWork, boundedStatusMessage} from '../../../src/mcp/tasks/task-store.js'
import {LastLine} from '../../../src/exec/terminal/last-line.js'

/** Work that settles when the test says so, and records whether it was cancelled. */
function controlledWork(): TaskWork & {finish(text: string): void; cancelled: boolean} {
  let resolve!: (result: Record<string, unknown>) => void
  const outcome = new Promise<Record<string, unknown>>((ok) => (resolve = ok))
  const work = {
    outcome,
    cancelled: false,
    finish: (text: string) => resolve({content: [{type: 'text', text}]}),
    cancel() {
      work.cancelled = true
      return Promise.resolve()
    },
  }
  return work
}

const settle = () => new Promise((resolve) => setImmediate(resolve))

describe('TaskStore', () => {
  it('shows a task only to the owner that started it, as not found (-32602) to any other', () => {
    const store = new TaskStore()
    const task = store.start('connection-a', controlledWork())
    expect(store.get(task.taskId, 'connection-a').status).to.equal('working')
    for (const owner of ['connection-b', undefined]) {
      expect(() => store.get(task.taskId, owner)).to.throw(/Task not found/).with.property('code', -32602)
    }
  })

  it('completes with the work’s result and gives the ended task a ttlMs from its creation', async () => {
    const store = new TaskStore({endedKeptMs: 60_000})
    const work = controlledWork()
    const task = store.start(undefined, work)
    expect(task.ttlMs).to.equal(null)
    work.finish('done')
    await settle()
    const ended = store.get(task.taskId, undefined)
    expect(ended.status).to.equal('completed')
    expect(ended.result).to.deep.equal({content: [{type: 'text', text: 'done'}]})
    expect(ended.ttlMs).to.be.at.least(60_000)
  })

  it('settles a cancelled task as cancelled after stopping its work, and leaves an ended one as it ended', async () => {
    const store = new TaskStore()
    const work = controlledWork()
    const task = store.start('a', work)
    await store.cancel(task.taskId, 'a')
    expect(work.cancelled).to.equal(true)
    expect(store.get(task.taskId, 'a').status).to.equal('cancelled')
    work.finish('too late')
    await settle()
    expect(store.get(task.taskId, 'a').status).to.equal('cancelled')
  })

  it('keeps at most maxEnded ended tasks, dropping the one that ended first', async () => {
    const store = new TaskStore({maxEnded: 2})
    const ids: string[] = []
    for (const text of ['one', 'two', 'three']) {
      const work = controlledWork()
      ids.push(store.start('a', work).taskId)
      work.finish(text)
      await settle()
    }
    expect(() => store.get(ids[0]!, 'a')).to.throw(/Task not found/)
    expect(store.get(ids[2]!, 'a').status).to.equal('completed')
    expect(store.size).to.equal(2)
  })

  it('keeps at most maxEndedBytes of answers, dropping the oldest first', async () => {
    const store = new TaskStore({maxEndedBytes: 3000})
    const ids: string[] = []
    for (let index = 0; index < 3; index++) {
      const work = controlledWork()
      ids.push(store.start('a', work).taskId)
      work.finish('x'.repeat(1200))
      await settle()
    }
    expect(() => store.get(ids[0]!, 'a')).to.throw(/Task not found/)
    expect(store.get(ids[2]!, 'a').status).to.equal('completed')
  })

  it('refuses new tasks past maxRunning (canStart), and counts a task as running until it ends', async () => {
    const store = new TaskStore({maxRunning: 1})
    const work = controlledWork()
    store.start('a', work)
    expect(store.canStart).to.equal(false)
    work.finish('done')
    await settle()
    expect(store.canStart).to.equal(true)
  })

  it('cancels the running tasks of an owner whose connection closed and forgets its tasks', async () => {
    const store = new TaskStore()
    const work = controlledWork()
    const task = store.start('a', work)
    const other = store.start('b', controlledWork())
    await store.closeOwner('a')
    expect(work.cancelled).to.equal(true)
    expect(() => store.get(task.taskId, 'a')).to.throw(/Task not found/)
    expect(store.get(other.taskId, 'b').status).to.equal('working')
  })

  it('cancels a running task nobody asked about for idleLimitMs', async () => {
    const store = new TaskStore({idleLimitMs: 50})
    const work = controlledWork()
    const task = store.start('a', work)
    await new Promise((resolve) => setTimeout(resolve, 150))
    expect(work.cancelled).to.equal(true)
    expect(store.get(task.taskId, 'a').status).to.equal('cancelled')
  })

  it('bounds a status message to one line of at most the limit, keeping its end', () => {
    expect(boundedStatusMessage('  building\tstep 3\n', 40)).to.equal('building step 3')
    expect(boundedStatusMessage('abcdefghij', 5)).to.equal('…ghij')
    expect(boundedStatusMessage(' \n ', 5)).to.equal(undefined)
  })
})

describe('LastLine', () => {
  it('gives the line being written, else the last non-blank complete line; \\r ends a line', () => {
    const line = new LastLine(100)
    line.push('first\nsecond\n')
    expect(line.value).to.equal('second')
    line.push('pro')
    line.push('gress 10%\rprogress 20%')
    expect(line.value).to.equal('progress 20%')
    line.push('\n\n')
    expect(line.value).to.equal('progress 20%')
  })

  it('reads only the end of a long chunk and never splits a character', () => {
    const line = new LastLine(100)
    line.pushBytes(Buffer.from(`${'é'.repeat(5000)}\nlast é line`, 'utf8'))
    expect(line.value).to.equal('last é line')
    const split = Buffer.from('ab€', 'utf8')
    line.pushBytes(split.subarray(0, 3))
    expect(line.value).to.equal('last é lineab')
  })
})
