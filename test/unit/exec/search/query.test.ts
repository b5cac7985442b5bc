import {expect} from 'chai'

import {BadInputError} from '../../../../src/errors.js'
import {compileQuery, escapeRegex} from '../../../../src/exec/search/query.js'

describe('compileQuery', () => {
  it('keeps exact case-sensitive text as a literal', () => {
    expect(compileQuery({query: 'a.b(', isRegex: false, isCaseSensitive: true})).to.deep.equal({kind: 'literal', text: 'a.b('})
  })

  it('turns case-insensitive text into an escaped regex with the i flag', () => {
    const query = compileQuery({query: 'a.b(', isRegex: false, isCaseSensitive: false})
    expect(query).to.deep.equal({kind: 'regex', source: 'a\\.b\\(', flags: 'iu'})
    // The escapes are valid in Unicode mode too: a dash or slash in the text needs none.
    expect(compileQuery({query: 'a-b/c', isRegex: false, isCaseSensitive: false})).to.deep.equal({kind: 'regex', source: 'a-b\\/c', flags: 'iu'})
  })

  it('passes a valid regex through with the case flag, in Unicode mode when it is valid there', () => {
    expect(compileQuery({query: '\\w+', isRegex: true, isCaseSensitive: false})).to.deep.equal({kind: 'regex', source: '\\w+', flags: 'iu'})
    expect(compileQuery({query: '\\p{Lu}', isRegex: true, isCaseSensitive: true})).to.deep.equal({kind: 'regex', source: '\\p{Lu}', flags: 'u'})
    // Identity escapes that only the older syntax allows keep working, without Unicode mode.
    expect(compileQuery({query: 'a\\-b\\_c', isRegex: true, isCaseSensitive: true})).to.deep.equal({kind: 'regex', source: 'a\\-b\\_c', flags: ''})
  })

  it('refuses an invalid regex with the reason and what to do', () => {
    expect(() => compileQuery({query: 'foo(', isRegex: true, isCaseSensitive: true}))
      .to.throw(BadInputError, /Invalid regex "foo\(".*regex: false/)
  })

  it('refuses a query with a line break, since matches never span lines', () => {
    expect(() => compileQuery({query: 'foo\nbar', isRegex: false, isCaseSensitive: true})).to.throw(BadInputError, /line break/)
  })

  it('refuses an empty query', () => {
    expect(() => compileQuery({query: '', isRegex: false, isCaseSensitive: true})).to.throw(BadInputError, /empty/)
  })
})

describe('escapeRegex', () => {
  it('makes every syntax character match itself', () => {
    const text = String.raw`^$.*+?()[]{}|/\-x`
    expect(new RegExp(`^${escapeRegex(text)}$`).test(text)).to.equal(true)
  })
})
