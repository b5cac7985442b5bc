import {expect} from 'chai'

import {IgnoreRules, rebasePattern} from '../../../../src/exec/search/ignore-rules.js'

describe('rebasePattern', () => {
  it('keeps the patterns of the workspace root unchanged', () => {
    expect(rebasePattern('*.log', '')).to.equal('*.log')
    expect(rebasePattern('/build', '')).to.equal('/build')
  })

  it('drops blank lines and comments', () => {
    expect(rebasePattern('', 'sub')).to.equal(undefined)
    expect(rebasePattern('   ', 'sub')).to.equal(undefined)
    expect(rebasePattern('# note', 'sub')).to.equal(undefined)
  })

  it('lets a pattern without a slash match at any depth below its folder', () => {
    expect(rebasePattern('*.log', 'sub')).to.equal('sub/**/*.log')
    expect(rebasePattern('out/', 'sub')).to.equal('sub/**/out/')
  })

  it('anchors a pattern with a leading or middle slash to its folder', () => {
    expect(rebasePattern('/out', 'sub')).to.equal('sub/out')
    expect(rebasePattern('a/b', 'sub/deep')).to.equal('sub/deep/a/b')
    expect(rebasePattern('**/tmp', 'sub')).to.equal('sub/**/tmp')
  })

  it('keeps negation in front of the rewritten pattern', () => {
    expect(rebasePattern('!keep.log', 'sub')).to.equal('!sub/**/keep.log')
    expect(rebasePattern('!/keep', 'sub')).to.equal('!sub/keep')
  })

  it('drops a blank line at the workspace root too', () => {
    expect(rebasePattern('   ', '')).to.equal(undefined)
    expect(rebasePattern('\t', '')).to.equal(undefined)
  })

  it('ignores trailing spaces and one trailing slash when telling whether a pattern is anchored', () => {
    expect(rebasePattern('x/  ', 'sub')).to.equal('sub/**/x/  ')
    expect(rebasePattern('a b/  ', 'sub')).to.equal('sub/**/a b/  ')
    expect(rebasePattern('a\\ ', 'sub')).to.equal('sub/**/a\\ ')
  })

  it('drops a pattern that is only a slash, with or without spaces', () => {
    expect(rebasePattern('/', 'sub')).to.equal(undefined)
    expect(rebasePattern('/  ', 'sub')).to.equal(undefined)
    expect(rebasePattern('!/', 'sub')).to.equal(undefined)
  })

  it('escapes glob characters in the folder name', () => {
    expect(rebasePattern('x', 'a[1]/b*')).to.equal('a\\[1\\]/b\\*/**/x')
    expect(rebasePattern('x', '#hash')).to.equal('\\#hash/**/x')
    expect(rebasePattern('x', 'a#b!c')).to.equal('a#b!c/**/x')
  })
})

describe('IgnoreRules', () => {
  it('keeps the same rules for a file with only comments and blank lines', () => {
    const rules = IgnoreRules.none().withFile('', '*.log\n')
    expect(rules.withFile('sub', '# nothing\n\n   \n')).to.equal(rules)
  })

  it('ignores nothing without rules', () => {
    expect(IgnoreRules.none().isIgnored('anything', false)).to.equal(false)
  })

  it('applies a nested file only below its folder', () => {
    const rules = IgnoreRules.none().withFile('sub', '*.log\n')
    expect(rules.isIgnored('sub/a.log', false)).to.equal(true)
    expect(rules.isIgnored('sub/deep/a.log', false)).to.equal(true)
    expect(rules.isIgnored('a.log', false)).to.equal(false)
    expect(rules.isIgnored('other/a.log', false)).to.equal(false)
  })

  it('lets a deeper file re-include what a shallower one ignores', () => {
    const rules = IgnoreRules.none().withFile('', '*.log\n').withFile('sub', '!keep.log\n')
    expect(rules.isIgnored('sub/keep.log', false)).to.equal(false)
    expect(rules.isIgnored('keep.log', false)).to.equal(true)
    expect(rules.isIgnored('sub/other.log', false)).to.equal(true)
  })

  it('lets a deeper file re-include a folder a shallower one ignores', () => {
    const rules = IgnoreRules.none().withFile('', 'logs/\n').withFile('app', '!logs/\n')
    expect(rules.isIgnored('app/logs', true)).to.equal(false)
    expect(rules.isIgnored('app/logs/today.txt', false)).to.equal(false)
    expect(rules.isIgnored('logs', true)).to.equal(true)
  })

  it('applies directory-only patterns to folders only', () => {
    const rules = IgnoreRules.none().withFile('', 'build/\n')
    expect(rules.isIgnored('build', true)).to.equal(true)
    expect(rules.isIgnored('build', false)).to.equal(false)
  })

  it('reads CRLF ignore files', () => {
    const rules = IgnoreRules.none().withFile('', '*.tmp\r\n/out\r\n')
    expect(rules.isIgnored('x.tmp', false)).to.equal(true)
    expect(rules.isIgnored('out', true)).to.equal(true)
    expect(rules.isIgnored('keep.txt', false)).to.equal(false)
    expect(rules.isIgnored('x.tm', false)).to.equal(false)
  })

  it('matches letter case exactly on Linux, as git does by default', function () {
    if (process.platform !== 'linux') this.skip()
    const rules = IgnoreRules.none().withFile('', '*.LOG\n')
    expect(rules.isIgnored('a.log', false)).to.equal(false)
    expect(rules.isIgnored('a.LOG', false)).to.equal(true)
  })
})
