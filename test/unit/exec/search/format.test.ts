import {expect} from 'chai'

import {SEARCH_MAX_RESULTS} from '../../../../src/exec/limits.js'
import {formatSearchAnswer} from '../../../../src/exec/search/format.js'
import type {SearchOutcome} from '../../../../src/exec/search/run-search.js'

const query = {query: 'foo', isRegex: false, isCaseSensitive: true}
const outcome = (overrides: Partial<SearchOutcome>): SearchOutcome => ({
  target: '.',
  isFile: false,
  matches: [],
  isCut: false,
  filesSearched: 3,
  binaryFiles: 0,
  tooLarge: [],
  ...overrides,
})

describe('formatSearchAnswer', () => {
  it('prints path:line:text lines and a summary', () => {
    const text = formatSearchAnswer(
      outcome({matches: [{path: 'src/a.ts', line: 3, text: 'foo()'}, {path: 'b.md', line: 1, text: 'foo'}]}),
      query,
      {hasGlobs: false},
    )
    expect(text.split('\n')).to.deep.equal(['src/a.ts:3:foo()', 'b.md:1:foo', '[2 matching lines in 2 files; 3 files searched.]'])
  })

  it('says explicitly that nothing matched, and where', () => {
    expect(formatSearchAnswer(outcome({target: 'src'}), {...query, isRegex: true, isCaseSensitive: false}, {hasGlobs: false}))
      .to.equal('No matches for "foo" (regex, ignoring case) in src/ (3 files searched).')
    expect(formatSearchAnswer(outcome({filesSearched: 0}), query, {hasGlobs: true})).to.contain('no file matched the glob filter')
    expect(formatSearchAnswer(outcome({target: 'x.bin', isFile: true, filesSearched: 0, binaryFiles: 1}), query, {hasGlobs: false}))
      .to.contain('binary file')
  })

  it('says when the cap cut the results and how to narrow them', () => {
    const text = formatSearchAnswer(outcome({matches: [{path: 'a', line: 1, text: 'foo'}], isCut: true}), query, {hasGlobs: false})
    expect(text).to.contain('[Stopped after 1 matching lines; more exist.')
    expect(text).to.contain(`at most ${SEARCH_MAX_RESULTS}`)
  })

  it('names files too large to search, up to five', () => {
    const tooLarge = ['a', 'b', 'c', 'd', 'e', 'f', 'g']
    const text = formatSearchAnswer(outcome({tooLarge}), query, {hasGlobs: false})
    expect(text).to.contain('larger than 16 MiB: a, b, c, d, e and 2 more')
  })
})
