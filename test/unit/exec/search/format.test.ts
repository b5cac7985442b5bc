import {expect} from 'chai'

import {SEARCH_MAX_ANSWER_CHARS, SEARCH_MAX_RESULTS} from '../../../../src/exec/limits.js'
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
  unreadable: [],
  ...overrides,
})

describe('formatSearchAnswer', () => {
  it('prints path:line:text lines and a summary', () => {
    const text = formatSearchAnswer(
      outcome({matches: [{path: 'src/a.ts', line: 3, text: 'foo()'}, {path: 'b.md', line: 1, text: 'foo'}]}),
      query,
      {hasGlobs: false, maxResults: 200},
    )
    expect(text.split('\n')).to.deep.equal(['src/a.ts:3:foo()', 'b.md:1:foo', '[2 matching lines in 2 files; 3 files searched.]'])
  })

  it('says explicitly that nothing matched, and where', () => {
    expect(formatSearchAnswer(outcome({target: 'src'}), {...query, isRegex: true, isCaseSensitive: false}, {hasGlobs: false, maxResults: 200}))
      .to.equal('No matches for "foo" (regex, ignoring case) in src/ (3 files searched).')
    expect(formatSearchAnswer(outcome({filesSearched: 0}), query, {hasGlobs: true, maxResults: 200})).to.contain('no file matched the glob filter')
    expect(formatSearchAnswer(outcome({target: 'x.bin', isFile: true, filesSearched: 0, binaryFiles: 1}), query, {hasGlobs: false, maxResults: 200}))
      .to.contain('binary file')
  })

  it('says when the cap cut the results and how to narrow them', () => {
    const cut = outcome({matches: [{path: 'a', line: 1, text: 'foo'}], isCut: true, cutBy: 'max_results'})
    const text = formatSearchAnswer(cut, query, {hasGlobs: false, maxResults: 1})
    expect(text).to.contain('[Stopped after 1 matching line; more exist.')
    expect(text).to.contain(`raise max_results (at most ${SEARCH_MAX_RESULTS})`)
  })

  it('does not suggest raising max_results that is already at its most', () => {
    const cut = outcome({matches: [{path: 'a', line: 1, text: 'foo'}, {path: 'a', line: 2, text: 'foo'}], isCut: true, cutBy: 'max_results'})
    const text = formatSearchAnswer(cut, query, {hasGlobs: false, maxResults: SEARCH_MAX_RESULTS})
    expect(text.split('\n').at(-1)).to.equal(
      '[Stopped after 2 matching lines; more exist. Narrow the search (a subfolder as path, a glob such as "*.ts", a more specific query).]',
    )
  })

  it('says when the answer reached its size limit', () => {
    const cut = outcome({matches: [{path: 'a', line: 1, text: 'foo'}], isCut: true, cutBy: 'answer_size'})
    const text = formatSearchAnswer(cut, query, {hasGlobs: false, maxResults: 200})
    expect(text.split('\n').at(-1)).to.equal(
      `[Stopped after 1 matching line: an answer holds at most ${SEARCH_MAX_ANSWER_CHARS} characters, and more lines match. ` +
        'Narrow the search (a subfolder as path, a glob such as "*.ts", a more specific query).]',
    )
  })

  it('says that a single file named as path was too large to search, not that nothing matched', () => {
    const text = formatSearchAnswer(outcome({target: 'big.log', isFile: true, filesSearched: 0, tooLarge: ['big.log']}), query, {hasGlobs: false, maxResults: 200})
    expect(text).to.equal('"big.log" was not searched: it is larger than 16 MiB. Use the read tool with offset/limit to look inside it.')
  })

  it('names files it could not read, up to five, each with why', () => {
    const unreadable = ['a', 'b', 'c', 'd', 'e', 'f'].map((path) => ({path, why: path === 'a' ? 'no permission' : 'removed meanwhile'}))
    const text = formatSearchAnswer(outcome({matches: [{path: 'x', line: 1, text: 'foo'}], unreadable}), query, {hasGlobs: false, maxResults: 200})
    expect(text.split('\n').at(-1)).to.equal(
      '[Not searched, could not be read: a (no permission), b (removed meanwhile), c (removed meanwhile), d (removed meanwhile), e (removed meanwhile) and 1 more.]',
    )
  })

  it('names files too large to search, up to five', () => {
    const tooLarge = ['a', 'b', 'c', 'd', 'e', 'f', 'g']
    const text = formatSearchAnswer(outcome({tooLarge}), query, {hasGlobs: false, maxResults: 200})
    expect(text).to.contain('larger than 16 MiB: a, b, c, d, e and 2 more')
  })
})
