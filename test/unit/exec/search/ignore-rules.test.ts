import {expect} from 'chai'

import {IgnoreRules} from '../../../../src/exec/search/ignore-rules.js'

describe('IgnoreRules, patterns by the folder of their file', () => {
  const root = (text: string) => IgnoreRules.none().withFile('', text)

  it('matches a root pattern without a slash at any depth, and one with a leading slash at the root only', () => {
    expect(root('*.log\n').isIgnored('a.log', false)).to.equal(true)
    expect(root('*.log\n').isIgnored('x/y/a.log', false)).to.equal(true)
    expect(root('/build\n').isIgnored('build', true)).to.equal(true)
    expect(root('/build\n').isIgnored('x/build', true)).to.equal(false)
  })

  it('drops blank lines, white-space-only lines and comments', () => {
    const rules = root('*.log\n')
    expect(rules.withFile('sub', '\n   \n\t\n# note\n')).to.equal(rules)
    expect(IgnoreRules.none().withFile('', '   \n\t\n').isEmpty).to.equal(true)
  })

  it('lets a pattern without a slash match at any depth below its folder', () => {
    const rules = IgnoreRules.none().withFile('sub', '*.log\nout/\n')
    expect(rules.isIgnored('sub/a.log', false)).to.equal(true)
    expect(rules.isIgnored('sub/d/e/a.log', false)).to.equal(true)
    expect(rules.isIgnored('sub/x/out', true)).to.equal(true)
    expect(rules.isIgnored('sub/x/out', false)).to.equal(false)
    expect(rules.isIgnored('subx/a.log', false)).to.equal(false)
  })

  it('anchors a pattern with a leading or middle slash to its folder', () => {
    const sub = IgnoreRules.none().withFile('sub', '/out\n**/tmp\n')
    expect(sub.isIgnored('sub/out', true)).to.equal(true)
    expect(sub.isIgnored('sub/x/out', true)).to.equal(false)
    expect(sub.isIgnored('sub/tmp', false)).to.equal(true)
    expect(sub.isIgnored('sub/x/tmp', false)).to.equal(true)
    expect(sub.isIgnored('tmp', false)).to.equal(false)
    const deep = IgnoreRules.none().withFile('sub/deep', 'a/b\n')
    expect(deep.isIgnored('sub/deep/a/b', false)).to.equal(true)
    expect(deep.isIgnored('sub/deep/x/a/b', false)).to.equal(false)
  })

  it('keeps negation with the anchoring of the negated pattern', () => {
    const rules = root('keep\n').withFile('sub', '!/keep\n')
    expect(rules.isIgnored('sub/keep', false)).to.equal(false)
    expect(rules.isIgnored('sub/x/keep', false)).to.equal(true)
  })

  it('ignores trailing spaces and one trailing slash when telling whether a pattern is anchored', () => {
    const rules = IgnoreRules.none().withFile('sub', 'x/  \na b/  \nc\\ \n')
    expect(rules.isIgnored('sub/d/x', true)).to.equal(true)
    expect(rules.isIgnored('sub/d/a b', true)).to.equal(true)
    expect(rules.isIgnored('sub/d/c ', false)).to.equal(true)
    expect(rules.isIgnored('sub/d/c', false)).to.equal(false)
  })

  it('drops a pattern that is only a slash, with or without spaces', () => {
    expect(IgnoreRules.none().withFile('sub', '/\n/  \n!/\n').isEmpty).to.equal(true)
  })

  it('takes glob characters in the folder name literally', () => {
    expect(IgnoreRules.none().withFile('a[1]/b*', 'x\n').isIgnored('a[1]/b*/x', false)).to.equal(true)
    expect(IgnoreRules.none().withFile('a[1]/b*', 'x\n').isIgnored('a1/bc/x', false)).to.equal(false)
    expect(IgnoreRules.none().withFile('#hash', 'x\n').isIgnored('#hash/x', false)).to.equal(true)
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
