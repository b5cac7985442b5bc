import {expect} from 'chai'

import {codePointCount, offsetAfterCodePoints, offsetBeforeLastCodePoints} from '../../../src/exec/code-points.js'

describe('code points', () => {
  const text = 'a😀b𝒳'

  it('counts an astral character as one', () => {
    expect(codePointCount(text)).to.equal(4)
    expect(codePointCount(text, 1, 3)).to.equal(1)
    expect(codePointCount('')).to.equal(0)
  })

  it('finds the offsets of the first and last code points without splitting a pair', () => {
    expect([0, 1, 2, 3, 4, 5].map((count) => offsetAfterCodePoints(text, count))).to.deep.equal([0, 1, 3, 4, 6, 6])
    expect([0, 1, 2, 3, 4, 5].map((count) => offsetBeforeLastCodePoints(text, count))).to.deep.equal([6, 4, 3, 1, 0, 0])
  })

  it('steps over a lone surrogate as one character and never past either end', () => {
    expect([0, 1, 2, 3, 4].map((count) => offsetAfterCodePoints('\uDC00a\uD800', count))).to.deep.equal([0, 1, 2, 3, 3])
    expect([0, 1, 2, 3, 4].map((count) => offsetBeforeLastCodePoints('\uDC00a\uD800', count))).to.deep.equal([3, 2, 1, 0, 0])
    expect(offsetBeforeLastCodePoints('\uDC00', 1)).to.equal(0)
    expect(offsetAfterCodePoints('a\uDC00', 1)).to.equal(2)
    expect(offsetAfterCodePoints('😀', 1)).to.equal(2)
    expect(offsetBeforeLastCodePoints('😀', 1)).to.equal(0)
  })
})
