import {expect} from 'chai'
import {Writable} from 'node:stream'
import {setTimeout as delay} from 'node:timers/promises'

import {utf8Piece, writeWithinBound} from '../../../../src/exec/terminal/stdin-writer.js'

/** A stdin whose reader takes nothing until `release()`, then everything. */
function stalledStdin(): {stdin: Writable; received: Buffer[]; release(): void} {
  const received: Buffer[] = []
  const waiting: Array<() => void> = []
  let isReleased = false
  const stdin = new Writable({
    write(chunk: Buffer, _encoding, done) {
      received.push(chunk)
      if (isReleased) done()
      else waiting.push(done)
    },
  })
  return {
    stdin,
    received,
    release() {
      isReleased = true
      for (const done of waiting.splice(0)) done()
    },
  }
}

describe('stdin-writer', () => {
  describe('utf8Piece', () => {
    it('takes the longest prefix whose UTF-8 fits, never splitting a character', () => {
      const text = 'aé€😀b'
      expect(utf8Piece(text, 0, 100)).to.deep.include({end: text.length})
      expect(utf8Piece(text, 0, 100).bytes.toString('utf8')).to.equal(text)
      // a(1) é(2) €(3) = 6 bytes; the emoji needs 4 more.
      for (const maxBytes of [6, 7, 8, 9]) {
        const piece = utf8Piece(text, 0, maxBytes)
        expect(piece.bytes.toString('utf8'), `max ${maxBytes}`).to.equal('aé€')
        expect(piece.end).to.equal(3)
      }
      expect(utf8Piece(text, 0, 10).bytes.toString('utf8')).to.equal('aé€😀')
      expect(utf8Piece(text, 3, 4)).to.deep.include({end: 5})
      expect(utf8Piece(text, 3, 3).end).to.equal(3)
      expect(utf8Piece(text, 1, 1).end).to.equal(1)
    })

    it('stops before a surrogate pair the unit count would cut', () => {
      const text = 'ab😀'
      const piece = utf8Piece(text, 0, 3)
      expect(piece.end).to.equal(2)
      expect(piece.bytes.toString('utf8')).to.equal('ab')
    })
  })

  describe('writeWithinBound', () => {
    it('holds at most the bound unread and answers how many characters it handed over', async () => {
      const {stdin, received} = stalledStdin()
      const text = '€'.repeat(10_000)
      const written = await writeWithinBound(stdin, text, {maxPendingBytes: 20_000, until: delay(100)})
      expect(stdin.writableLength).to.be.at.most(20_000)
      expect(written).to.equal(Buffer.concat(received).toString('utf8').length)
      expect(written).to.be.within(6_000, 6_666)
      expect(stdin.listenerCount('drain')).to.equal(0)
    })

    it('writes everything, in order and whole, once the reader takes it', async () => {
      const {stdin, received, release} = stalledStdin()
      const text = 'aé€😀'.repeat(20_000)
      setTimeout(release, 50)
      const written = await writeWithinBound(stdin, text, {maxPendingBytes: 70_000, until: delay(5000)})
      expect(written).to.equal(80_000)
      expect(Buffer.concat(received).toString('utf8')).to.equal(text)
    })

    it('writes nothing to a closed stdin', async () => {
      const {stdin} = stalledStdin()
      stdin.destroy()
      expect(await writeWithinBound(stdin, 'abc', {maxPendingBytes: 1024, until: delay(50)})).to.equal(0)
    })
  })
})
