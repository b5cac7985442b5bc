import {expect} from 'chai'
import {Writable} from 'node:stream'

import {FrameWriter} from '../../../src/mcp/frame-writer.js'

/** A stream with a small high-water mark whose writes complete only when `release()` is called. */
function slowStream(): {stream: Writable; received: string[]; release(): void; fail(error: Error): void} {
  const received: string[] = []
  const pending: Array<(error?: Error) => void> = []
  const stream = new Writable({
    highWaterMark: 16,
    write(chunk: Buffer, _encoding, done) {
      received.push(chunk.toString())
      pending.push(done)
    },
  })
  return {
    stream,
    received,
    release: () => {
      while (pending.length > 0) pending.shift()!()
    },
    fail: (error) => pending.shift()?.(error),
  }
}

describe('FrameWriter', () => {
  it('keeps one drain and one error listener however many writes wait, and resolves them in order', async () => {
    const {stream, received, release} = slowStream()
    const writer = new FrameWriter(stream)
    const settled: number[] = []
    // Each frame is over the high-water mark, so each write waits for a drain.
    const frame = (index: number) => `{"id":${index},"text":"answer text"}\n`
    const writes = Array.from({length: 64}, (_, index) => writer.write(frame(index)).then(() => settled.push(index)))
    expect(writer.waitingCount).to.equal(64)
    expect(stream.listenerCount('drain')).to.equal(1)
    expect(stream.listenerCount('error')).to.equal(1)
    for (let round = 0; round < 64 && settled.length < 64; round++) {
      release()
      await new Promise((resolve) => setImmediate(resolve))
    }
    await Promise.all(writes)
    expect(settled).to.deep.equal(Array.from({length: 64}, (_, index) => index))
    expect(received.join('')).to.equal(Array.from({length: 64}, (_, index) => frame(index)).join(''))
    expect(stream.listenerCount('drain')).to.equal(1)
  })

  it('resolves at once a write the stream takes below its high-water mark', async () => {
    const {stream} = slowStream()
    const writer = new FrameWriter(stream)
    await writer.write('x')
    expect(writer.waitingCount).to.equal(0)
  })

  it('rejects the waiting writes and every later one once the stream fails', async () => {
    const {stream, fail} = slowStream()
    const writer = new FrameWriter(stream)
    const waiting = [writer.write('a long frame over the mark\n'), writer.write('another\n')]
    fail(Object.assign(new Error('write EPIPE'), {code: 'EPIPE'}))
    for (const write of waiting) {
      const error = await write.then(() => undefined, (caught: Error) => caught)
      expect(error?.message).to.equal('write EPIPE')
    }
    const later = await writer.write('more\n').then(() => undefined, (caught: Error) => caught)
    expect(later?.message).to.equal('write EPIPE')
  })
})
