import {expect} from 'chai'
import {mkdtemp, rm, symlink, writeFile} from 'node:fs/promises'
import {tmpdir} from 'node:os'
import path from 'node:path'

import {createScanner, type ScanQuery, type ScanRequest} from '../../../../src/exec/search/scanner.js'

const literal = (text: string): ScanQuery => ({kind: 'literal', text})
const regex = (source: string, flags = ''): ScanQuery => ({kind: 'regex', source, flags})

describe('createScanner', () => {
  let dir: string

  before(async () => {
    dir = await mkdtemp(path.join(tmpdir(), 'ak-scan-'))
  })

  after(async () => {
    await rm(dir, {recursive: true, force: true})
  })

  /** Writes `files` and scans them in that order with `query`. */
  async function scan(files: Record<string, string | Buffer>, query: ScanQuery, overrides: Partial<ScanRequest> = {}) {
    const paths: Buffer[] = []
    for (const [name, contents] of Object.entries(files)) {
      await writeFile(path.join(dir, name), contents)
      paths.push(Buffer.from(path.join(dir, name)))
    }
    return createScanner().scan({
      files: paths,
      query,
      maxMatches: 100,
      maxLineChars: 80,
      maxFileBytes: 1024 * 1024,
      binarySniffBytes: 8000,
      ...overrides,
    })
  }

  it('finds exact text with 1-based line numbers, one entry per matching line', async () => {
    const result = await scan({'a.txt': 'one\nfoo two foo\nthree\nfoo\n'}, literal('foo'))
    expect(result.matches).to.deep.equal([
      [0, 2, 'foo two foo'],
      [0, 4, 'foo'],
    ])
    expect(result.filesSearched).to.equal(1)
  })

  it('treats regex characters in exact text literally', async () => {
    const result = await scan({'a.txt': 'a.c\nabc\n(x+)\n'}, literal('a.c'))
    expect(result.matches).to.deep.equal([[0, 1, 'a.c']])
    expect((await scan({'b.txt': 'x+\n(x+)\n'}, literal('(x+)'))).matches).to.deep.equal([[0, 2, '(x+)']])
  })

  it('matches exact text case-sensitively', async () => {
    expect((await scan({'a.txt': 'Foo\nfoo\n'}, literal('foo'))).matches).to.deep.equal([[0, 2, 'foo']])
  })

  it('runs a regex with its flags and reports the matching lines', async () => {
    const result = await scan({'a.txt': 'let x = 1\nconst y = 2\nLET z\n'}, regex('^(let|const) \\w', 'i'))
    expect(result.matches.map((match) => match[1])).to.deep.equal([1, 2, 3])
  })

  it('keeps regex matches within one line', async () => {
    const text = 'foo\nbar\nfoo bar\n'
    expect((await scan({'a.txt': text}, regex('foo\\s+bar'))).matches).to.deep.equal([[0, 3, 'foo bar']])
    expect((await scan({'b.txt': text}, regex('foo$'))).matches).to.deep.equal([[0, 1, 'foo']])
    expect((await scan({'c.txt': text}, regex('foo(?=\\nbar)'))).matches).to.deep.equal([])
  })

  it('reports a line once when a regex can match empty text', async () => {
    expect((await scan({'a.txt': 'a\n\nb'}, regex('x*'))).matches.map((match) => match[1])).to.deep.equal([1, 2, 3])
  })

  it('finds a match on a last line without a newline, and counts lines after CRLF without showing the CR', async () => {
    const result = await scan({'a.txt': 'x\r\ny\r\nfoo'}, literal('foo'))
    expect(result.matches).to.deep.equal([[0, 3, 'foo']])
    expect((await scan({'b.txt': 'foo\r\nbar\r\n'}, regex('o'))).matches).to.deep.equal([[0, 1, 'foo']])
  })

  it('matches multibyte text and reports it whole', async () => {
    const result = await scan({'a.txt': 'naïve café\n日本語のテキスト\n'}, literal('本語'))
    expect(result.matches).to.deep.equal([[0, 2, '日本語のテキスト']])
  })

  it('skips files with a NUL byte in the first block as binary', async () => {
    const binary = Buffer.concat([Buffer.from('foo\0'), Buffer.from('foo\n')])
    const result = await scan({'bin.dat': binary, 'text.txt': 'foo\n'}, literal('foo'))
    expect(result.binaryFiles).to.equal(1)
    expect(result.matches).to.deep.equal([[1, 1, 'foo']])
  })

  it('searches a file whose first NUL comes after the first block', async () => {
    const late = Buffer.concat([Buffer.from('foo\n'), Buffer.alloc(100, 'x'), Buffer.from([0])])
    const result = await scan({'late.dat': late}, literal('foo'), {binarySniffBytes: 50})
    expect(result.binaryFiles).to.equal(0)
    expect(result.matches).to.have.length(1)
  })

  it('skips and names files over the size limit', async () => {
    const result = await scan({'small.txt': 'foo\n', 'big.txt': `foo\n${'x'.repeat(200)}`}, literal('foo'), {maxFileBytes: 100})
    expect(result.tooLarge).to.deep.equal([1])
    expect(result.matches).to.deep.equal([[0, 1, 'foo']])
  })

  it('stops at maxMatches and says it stopped early', async () => {
    const result = await scan({'a.txt': 'foo\nfoo\nfoo\n', 'b.txt': 'foo\n'}, literal('foo'), {maxMatches: 2})
    expect(result.matches).to.have.length(2)
    expect(result.stoppedEarly).to.equal(true)
  })

  it('clips a long line around the match with a marker', async () => {
    const line = `${'a'.repeat(500)}NEEDLE${'b'.repeat(500)}`
    for (const query of [literal('NEEDLE'), regex('NEE+DLE')]) {
      const [[, , text]] = (await scan({'long.txt': `${line}\n`}, query)).matches as [[number, number, string]]
      expect(text).to.contain('NEEDLE')
      expect(text).to.match(/^…a+NEEDLEb+… \[line clipped to 80 characters\]$/)
      expect(text.replace(/ \[.*\]$/, '').replaceAll('…', '')).to.have.length(80)
    }
  })

  it('clips a line of several megabytes from a window around the match', async () => {
    const line = `${'a'.repeat(3_000_000)}NEEDLE${'é'.repeat(1_000_000)}`
    const [[, , text]] = (await scan({'huge.txt': line}, literal('NEEDLE'), {maxFileBytes: 10_000_000})).matches as [[number, number, string]]
    expect(text).to.match(/^…a+NEEDLEé+… \[line clipped to 80 characters\]$/)
  })

  it('never splits a surrogate pair when clipping', async () => {
    const line = `${'😀'.repeat(100)}NEEDLE${'😀'.repeat(100)}`
    const [[, , text]] = (await scan({'emoji.txt': line}, literal('NEEDLE'))).matches as [[number, number, string]]
    expect(text).to.contain('NEEDLE')
    expect(text).not.to.match(/[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/)
  })

  it('does not read through a symlink or a file that vanished', async () => {
    await writeFile(path.join(dir, 'target.txt'), 'foo\n')
    await symlink(path.join(dir, 'target.txt'), path.join(dir, 'link.txt'))
    const result = await scan({}, literal('foo'), {files: [Buffer.from(path.join(dir, 'link.txt')), Buffer.from(path.join(dir, 'missing.txt'))]})
    expect(result.unreadable).to.deep.equal([[0, 'replaced by a symlink'], [1, 'removed meanwhile']])
    expect(result.matches).to.deep.equal([])
  })

  describe('sees lines as read shows them', () => {
    it('matches regex $ before a CRLF line break as before LF', async () => {
      const result = await scan({'crlf.txt': 'one\r\ntwo\r\n', 'lf.txt': 'one\ntwo\n'}, regex('^one$'))
      expect(result.matches).to.deep.equal([
        [0, 1, 'one'],
        [1, 1, 'one'],
      ])
    })

    it('matches $ before CRLF in a regex with a lookaround, which runs line by line', async () => {
      const result = await scan({'crlf.txt': 'one\r\ntwo\r\n'}, regex('(?<=^t)wo$'))
      expect(result.matches).to.deep.equal([[0, 2, 'two']])
      expect((await scan({'a.txt': 'ab\r\nab\n'}, regex('b(?![\\s\\S])'))).matches).to.deep.equal([
        [0, 1, 'ab'],
        [0, 2, 'ab'],
      ])
    })

    it('never matches exact text that runs into the line break', async () => {
      expect((await scan({'a.txt': 'one\r\n'}, literal('one\r'))).matches).to.deep.equal([])
      expect((await scan({'b.txt': 'x\ry\r\n'}, literal('x\r'))).matches).to.deep.equal([[0, 1, 'x\ry']])
    })

    it('does not count an empty line after the last line break', async () => {
      expect((await scan({'a.txt': 'a\n'}, regex('^$'))).matches).to.deep.equal([])
      expect((await scan({'b.txt': ''}, regex('^$'))).matches).to.deep.equal([])
      expect((await scan({'c.txt': 'a\n\nb'}, regex('^$'))).matches).to.deep.equal([[0, 2, '']])
    })

    it('sees line 1 without a UTF-8 BOM, for regex and exact text', async () => {
      const bom = Buffer.from('\ufeffhello\nworld\n', 'utf8')
      expect((await scan({'bom.txt': bom}, regex('^hello'))).matches).to.deep.equal([[0, 1, 'hello']])
      expect((await scan({'bom2.txt': bom}, literal('hello'))).matches).to.deep.equal([[0, 1, 'hello']])
    })

    it('clips long lines by characters (code points), not UTF-16 units', async () => {
      const emoji = '😀'.repeat(200)
      const [[, , short]] = (await scan({'short.txt': `${'😀'.repeat(80)}\n`}, literal('😀'))).matches as [[number, number, string]]
      expect(short).to.equal('😀'.repeat(80))
      for (const query of [literal('X'), regex('X')]) {
        const [[, , text]] = (await scan({'e.txt': `${emoji}X${emoji}\n`}, query)).matches as [[number, number, string]]
        const shown = text.replace(/ \[line clipped to 80 characters\]$/, '').replaceAll('…', '')
        expect([...shown]).to.have.length(80)
        expect(shown).to.contain('X')
      }
    })
  })

  it('never opens a file that a folder swapped for a link leads to, and reports it as one that vanished, whatever it holds', async function () {
    if (process.platform !== 'linux') this.skip()
    const outsideDir = await mkdtemp(path.join(tmpdir(), 'ak-scan-outside-'))
    try {
      await writeFile(path.join(outsideDir, 'secret.txt'), 'foo outside\n')
      await writeFile(path.join(outsideDir, 'binary.bin'), 'foo\0outside\n')
      await symlink(outsideDir, path.join(dir, 'swapped'))
      const files = ['secret.txt', 'binary.bin', 'absent.txt'].map((name) => Buffer.from(path.join(dir, 'swapped', name)))
      for (const query of [literal('foo'), literal('bar')]) {
        const result = await scan({}, query, {files})
        expect(result.unreadable).to.deep.equal([
          [0, 'removed meanwhile'],
          [1, 'removed meanwhile'],
          [2, 'removed meanwhile'],
        ])
        expect(result.matches).to.deep.equal([])
        expect([result.filesSearched, result.binaryFiles]).to.deep.equal([0, 0])
      }
    } finally {
      await rm(outsideDir, {recursive: true, force: true})
    }
  })
})
