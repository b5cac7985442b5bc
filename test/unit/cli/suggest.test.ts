import {expect} from 'chai'

import {closestWord, editDistance} from '../../../src/cli/suggest.js'

describe('closestWord', () => {
  const flags = ['--workspace', '--level', '--http', '--json', '--quiet', '--help']

  it('finds the flag a typo was meant to be', () => {
    expect(closestWord('--levle', flags)).to.equal('--level')
    expect(closestWord('--workspce', flags)).to.equal('--workspace')
    expect(closestWord('--jsn', flags)).to.equal('--json')
  })

  it('suggests nothing for a word unlike every candidate', () => {
    expect(closestWord('--frobnicate-everything', flags)).to.equal(undefined)
  })

  it('counts insertions, deletions and substitutions', () => {
    expect(editDistance('exce', 'exec')).to.equal(2)
    expect(editDistance('srve', 'serve')).to.equal(1)
    expect(editDistance('', 'abc')).to.equal(3)
  })
})
