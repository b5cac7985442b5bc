import {expect} from 'chai'

import {completeUtf8Length, countLineBreakBytes, countUtf8, leadingContinuationBytes} from '../../../../src/exec/terminal/utf8-bytes.js'

/** A deterministic pseudo-random generator (mulberry32), so a failure can be replayed. */
function random(seed: number): () => number {
  return () => {
    seed = (seed + 0x6d2b79f5) | 0
    let t = Math.imul(seed ^ (seed >>> 15), 1 | seed)
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296
  }
}

const SAMPLES = ['a', '\n', 'é', '€', '\u{1F600}', 'ß\n', 'xyz', '\r\n', '漢字']

function randomText(next: () => number, length: number): string {
  let text = ''
  while (text.length < length) text += SAMPLES[Math.floor(next() * SAMPLES.length)]
  return text
}

describe('counting UTF-8 output on its bytes', () => {
  it('counts line breaks as decoding would, sparse or dense, at any alignment', () => {
    const next = random(7)
    for (const text of ['', 'no break', 'y\n'.repeat(5000), `${'x'.repeat(63)}\n`.repeat(300), randomText(next, 20_000)]) {
      const bytes = Buffer.from(text)
      for (let offset = 0; offset < 5; offset++) {
        const slice = bytes.subarray(offset)
        expect(countLineBreakBytes(slice), `offset ${offset}`).to.equal(slice.toString('latin1').split('\n').length - 1)
      }
    }
  })

  it('counts UTF-16 code units and code points as decoding would for well-formed text', () => {
    const next = random(11)
    for (let round = 0; round < 50; round++) {
      const text = randomText(next, Math.floor(next() * 3000))
      expect(countUtf8(Buffer.from(text))).to.deep.equal({units: text.length, codePoints: [...text].length})
    }
  })

  it('finds where a character split at the end begins, for every split of every width', () => {
    for (const char of ['a', 'é', '€', '\u{1F600}']) {
      const bytes = Buffer.from(`ab${char}`)
      for (let cut = 3; cut <= bytes.length; cut++) {
        const part = bytes.subarray(0, cut)
        expect(completeUtf8Length(part), `${char} cut at ${cut}`).to.equal(cut === bytes.length ? cut : 2)
      }
    }
    expect(completeUtf8Length(Buffer.alloc(0))).to.equal(0)
  })

  it('counts the continuation bytes a chunk starts with, at most 3', () => {
    const emoji = Buffer.from('\u{1F600}')
    expect(leadingContinuationBytes(emoji.subarray(1))).to.equal(3)
    expect(leadingContinuationBytes(emoji.subarray(3))).to.equal(1)
    expect(leadingContinuationBytes(Buffer.from('abc'))).to.equal(0)
  })
})
