import {expect} from 'chai'

import {IGNORE_FILE_MAX_BYTES, IGNORE_FILE_MAX_LINE_BYTES} from '../../../../src/exec/limits.js'
import {IgnoreFileNotes, usableRules} from '../../../../src/exec/search/ignore-file.js'
import {IgnoreRules} from '../../../../src/exec/search/ignore-rules.js'

describe('reading an ignore file within limits', () => {
  it('keeps every line of an ordinary file and notes nothing', () => {
    const read = usableRules(Buffer.from('# build output\ndist/\n\n!keep.log\n*.log\n'), false)
    const {patterns, ...rest} = read
    expect(rest).to.deep.equal({text: '# build output\ndist/\n\n!keep.log\n*.log'})
    expect(patterns.map((pattern) => [pattern.isNegated, pattern.isFolderOnly])).to.deep.equal([
      [false, true],
      [true, false],
      [false, false],
    ])
    const rules = IgnoreRules.none().withPatterns('', patterns)
    // `*.log` comes after `!keep.log`, so it ignores keep.log again; `dist/` matches a folder only.
    expect([rules.isIgnored('dist', true), rules.isIgnored('a.log', false), rules.isIgnored('keep.log', false), rules.isIgnored('dist', false)]).to.deep.equal([
      true,
      true,
      true,
      false,
    ])
  })

  it('leaves out a line one byte over the limit, keeps one at it, and the rules after it still hold', () => {
    const atLimit = `${'b'.repeat(IGNORE_FILE_MAX_LINE_BYTES - 1)}*`
    const over = 'a'.repeat(IGNORE_FILE_MAX_LINE_BYTES + 1)
    const read = usableRules(Buffer.from(`${over}\n${atLimit}\nafter.txt\n`), false)
    expect(read.skipped).to.equal(`1 line longer than ${IGNORE_FILE_MAX_LINE_BYTES} bytes`)
    const rules = IgnoreRules.none().withFile('', read.text)
    expect(rules.isIgnored('after.txt', false)).to.equal(true)
    expect(rules.isIgnored(`${'b'.repeat(IGNORE_FILE_MAX_LINE_BYTES - 1)}x`, false)).to.equal(true)
    expect(rules.isIgnored(over, false)).to.equal(false)
  })

  it('counts several skipped lines and says the file went on past its size limit', () => {
    const over = 'a'.repeat(IGNORE_FILE_MAX_LINE_BYTES + 1)
    const read = usableRules(Buffer.from(`${over}\n${over}\nx\n`), true)
    expect(read.skipped).to.equal(`2 lines longer than ${IGNORE_FILE_MAX_LINE_BYTES} bytes, everything past its first ${IGNORE_FILE_MAX_BYTES / 1024} KiB`)
  })

  it('names at most three files in its one note and counts the rest, each file once', () => {
    const notes = new IgnoreFileNotes()
    expect(notes.note()).to.equal(undefined)
    for (const name of ['a', 'b', 'c', 'd', 'e', 'a']) notes.add(`${name}/.gitignore`, '1 line longer than 4096 bytes')
    expect(notes.note()).to.equal(
      '[Ignore rules skipped: a/.gitignore (1 line longer than 4096 bytes), b/.gitignore (1 line longer than 4096 bytes), ' +
        'c/.gitignore (1 line longer than 4096 bytes) and 2 more files; files those rules would ignore may be searched.]',
    )
  })
})
