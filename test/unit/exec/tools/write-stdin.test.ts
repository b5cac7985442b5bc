import {expect} from 'chai'

import {stdinSteps} from '../../../../src/exec/tools/write-stdin.js'

describe('write_stdin chars', () => {
  it('splits text and control characters into steps, in order', () => {
    expect(stdinSteps('abc\u0003def\u0004')).to.deep.equal([
      {kind: 'text', text: 'abc'},
      {kind: 'interrupt'},
      {kind: 'text', text: 'def'},
      {kind: 'end-of-input'},
    ])
  })

  it('has no steps for an empty poll', () => {
    expect(stdinSteps('')).to.deep.equal([])
  })

  it('keeps repeated control characters', () => {
    expect(stdinSteps('\u0003\u0003')).to.deep.equal([{kind: 'interrupt'}, {kind: 'interrupt'}])
  })
})
