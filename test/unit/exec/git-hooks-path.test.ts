import {expect} from 'chai'

import {parseHooksPath} from '../../../src/exec/git-hooks-path.js'

describe('core.hooksPath of a git config (parseHooksPath)', () => {
  it('reads the last value of [core], case-insensitive, unquoted, without comments', () => {
    expect(parseHooksPath('[core]\n\thooksPath = a\n\thookspath = b # later wins\n')).to.equal('b')
    expect(parseHooksPath('[CORE]\n  HooksPath="my hooks" ; note\n')).to.equal('my hooks')
    expect(parseHooksPath('[core] hooksPath = c\n')).to.equal('c')
    expect(parseHooksPath('[core]\n\thooksPath = "a\\"b"\n')).to.equal('a"b')
  })

  it('ignores other sections, subsections and an empty value', () => {
    expect(parseHooksPath('[user]\n\thooksPath = a\n[core "x"]\n\thooksPath = b\n')).to.equal(undefined)
    expect(parseHooksPath('[core]\n\thooksPath =\n')).to.equal(undefined)
    expect(parseHooksPath('')).to.equal(undefined)
  })
})
