import {expect} from 'chai'

import {normalisePunctuation, seekLines} from '../../../../src/exec/files/seek-lines.js'

describe('seekLines (where a patch hunk lies, as Codex finds it)', () => {
  it('finds lines exactly, the first place from start', () => {
    expect(seekLines(['a', 'b', 'c', 'b', 'c'], ['b', 'c'], 0, false)).to.equal(1)
    expect(seekLines(['a', 'b', 'c', 'b', 'c'], ['b', 'c'], 2, false)).to.equal(3)
  })

  it('ignores whitespace at the end of lines when the exact lines are nowhere', () => {
    expect(seekLines(['foo   ', 'bar\t\t'], ['foo', 'bar'], 0, false)).to.equal(0)
  })

  it('ignores whitespace at both ends when that is still not enough', () => {
    expect(seekLines(['    foo   ', '   bar\t'], ['foo', 'bar'], 0, false)).to.equal(0)
  })

  it('prefers an exact match later in the file to a lenient one earlier', () => {
    expect(seekLines(['  x', 'x'], ['x'], 0, false)).to.equal(1)
  })

  it('reads typographic dashes, quotes and odd spaces as ASCII in the last pass', () => {
    const lines = ['const s = \u201Chello\u201D \u2014 it\u2019s\u00A0here']
    expect(seekLines(lines, ['const s = "hello" - it\'s here'], 0, false)).to.equal(0)
    expect(normalisePunctuation('  \u2010\u2011\u2012\u2013\u2014\u2015\u2212 ')).to.equal('-------')
  })

  it('matches an empty pattern at start and a pattern longer than the file nowhere', () => {
    expect(seekLines(['a'], [], 0, false)).to.equal(0)
    expect(seekLines(['just one line'], ['too', 'many', 'lines'], 0, false)).to.equal(undefined)
  })

  it('tries only the place that ends the file for an End of File hunk', () => {
    expect(seekLines(['x', 'y', 'x'], ['x'], 0, true)).to.equal(2)
    expect(seekLines(['x', 'y'], ['x'], 0, true)).to.equal(undefined)
  })

  it('finds nothing when no pass matches', () => {
    expect(seekLines(['alpha', 'beta'], ['gamma'], 0, false)).to.equal(undefined)
  })
})
