import {expect} from 'chai'

import {BadInputError} from '../../../../src/errors.js'
import {createGlobFilter} from '../../../../src/exec/search/glob-filter.js'

describe('createGlobFilter', () => {
  it('passes every file without patterns', () => {
    expect(createGlobFilter([])('any/file.bin')).to.equal(true)
  })

  it('matches a pattern without a slash against the file name at any depth', () => {
    const isIncluded = createGlobFilter(['*.ts'])
    expect(isIncluded('a.ts')).to.equal(true)
    expect(isIncluded('src/deep/b.ts')).to.equal(true)
    expect(isIncluded('src/.hidden.ts')).to.equal(true)
    expect(isIncluded('src/b.js')).to.equal(false)
  })

  it('matches a pattern with a slash against the workspace-relative path', () => {
    const isIncluded = createGlobFilter(['src/**'])
    expect(isIncluded('src/a/b.js')).to.equal(true)
    expect(isIncluded('test/src/b.js')).to.equal(false)
    expect(createGlobFilter(['./src/*.ts'])('src/a.ts')).to.equal(true)
  })

  it('passes a file matching any include and no exclude', () => {
    const isIncluded = createGlobFilter(['*.{ts,js}', '!*.min.js', '!vendor/**'])
    expect(isIncluded('a.ts')).to.equal(true)
    expect(isIncluded('a.js')).to.equal(true)
    expect(isIncluded('a.min.js')).to.equal(false)
    expect(isIncluded('vendor/x.js')).to.equal(false)
    expect(isIncluded('a.md')).to.equal(false)
    expect(createGlobFilter(['!*.md'])('a.txt')).to.equal(true)
  })

  it('refuses an empty pattern', () => {
    expect(() => createGlobFilter(['  '])).to.throw(BadInputError, /empty/)
    expect(() => createGlobFilter(['!'])).to.throw(BadInputError, /empty/)
  })
})
