import {expect} from 'chai'

import {BadInputError} from '../../../../src/errors.js'
import {createFolderFilter, createGlobFilter, globSyntaxError} from '../../../../src/exec/search/glob-filter.js'

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

describe('globSyntaxError and malformed globs', () => {
  const malformed: Array<[string, RegExp]> = [
    ['[', /"\[" at character 1 starts a character class that has no closing "\]"/],
    ['src/[a-', /"\[" at character 5 .* no closing "\]"/],
    ['*.{ts', /"\{" at character 3 .* no closing "\}"/],
    ['*.(ts', /"\(" at character 3 .* no closing "\)"/],
    ['x\\', /escapes nothing/],
  ]
  for (const [pattern, reason] of malformed) {
    it(`refuses ${JSON.stringify(pattern)}, naming the glob and what is wrong`, () => {
      expect(globSyntaxError(pattern)).to.match(reason)
      expect(() => createGlobFilter([pattern])).to.throw(BadInputError, `Glob pattern ${JSON.stringify(pattern)} is malformed: `)
      expect(() => createGlobFilter([`!${pattern}`])).to.throw(BadInputError, 'is malformed')
    })
  }

  it('accepts well-formed classes, groups and escapes', () => {
    for (const pattern of ['[]]', '[!a]*', '\\[x', '+(a|b)', '[[:alpha:]]*', '{a,{b,c}}', '[a-z]*.{js,ts}', 'a}b', 'a)b']) {
      expect(globSyntaxError(pattern), pattern).to.equal(undefined)
    }
    expect(createGlobFilter(['\\[x'])('[x')).to.equal(true)
  })
})

describe('createFolderFilter', () => {
  it('walks only the folders that lead to or lie below the fixed folders of path patterns', () => {
    const mayContain = createFolderFilter(['src/lib/**/*.ts', './docs/', '!src/lib/vendor/**']) as (folder: string) => boolean
    expect(mayContain('src')).to.equal(true)
    expect(mayContain('src/lib')).to.equal(true)
    expect(mayContain('src/lib/deep')).to.equal(true)
    expect(mayContain('docs')).to.equal(true)
    expect(mayContain('src/other')).to.equal(false)
    expect(mayContain('srcx')).to.equal(false)
    expect(mayContain('test')).to.equal(false)
  })

  it('walks everything when a pattern could match in any folder', () => {
    expect(createFolderFilter([])).to.equal(undefined)
    expect(createFolderFilter(['!*.md'])).to.equal(undefined)
    expect(createFolderFilter(['src/**', '*.ts'])).to.equal(undefined)
    expect(createFolderFilter(['**/x/*.ts'])).to.equal(undefined)
    expect(createFolderFilter(['{src,test}/**'])).to.equal(undefined)
    expect(createFolderFilter(['a\\*b/*.ts'])).to.equal(undefined)
  })
})
