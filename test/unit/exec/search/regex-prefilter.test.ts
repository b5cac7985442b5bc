import {expect} from 'chai'
import {mkdtemp, rm, writeFile} from 'node:fs/promises'
import {tmpdir} from 'node:os'
import path from 'node:path'

import {requiredLiterals, withPrefilter} from '../../../../src/exec/search/regex-prefilter.js'
import {createScanner, type ScanQuery} from '../../../../src/exec/search/scanner.js'

describe('requiredLiterals', () => {
  it('takes the longest run of plain characters a match must contain', () => {
    expect(requiredLiterals('Deprecat[a-z]+Warning', 'u')).to.deep.equal(['Deprecat'])
    expect(requiredLiterals('^export default class [A-Z]', 'u')).to.deep.equal(['export default class '])
    expect(requiredLiterals('x(abc)+y', 'u')).to.deep.equal(['abc'])
  })

  it('takes one literal of each alternative when every alternative has one', () => {
    expect(requiredLiterals('ECONNREFUSED|EADDRINUSE|ETIMEDOUT', 'u')).to.deep.equal(['ECONNREFUSED', 'EADDRINUSE', 'ETIMEDOUT'])
    expect(requiredLiterals('(?:foobar|barbaz)q', 'u')).to.deep.equal(['foobar', 'barbaz'])
    expect(requiredLiterals('abc|x+', 'u')).to.equal(undefined)
  })

  it('gives no prefilter where literals cannot tell: case folding, lookarounds, backreferences, properties, optional parts', () => {
    expect(requiredLiterals('abcdef', 'iu')).to.equal(undefined)
    expect(requiredLiterals('abcdef', 'i')).to.equal(undefined)
    expect(requiredLiterals('(?=abc)abcdef', 'u')).to.equal(undefined)
    expect(requiredLiterals('abcdef(?<!x)', 'u')).to.equal(undefined)
    expect(requiredLiterals('(abc)def\\1', 'u')).to.equal(undefined)
    expect(requiredLiterals('\\p{Lu}abcdef', 'u')).to.equal(undefined)
    expect(requiredLiterals('(abcdef)?', 'u')).to.equal(undefined)
    expect(requiredLiterals('(abcdef)*x', 'u')).to.equal(undefined)
    expect(requiredLiterals('ab', 'u')).to.equal(undefined)
  })

  it('never requires a character that decoding can make from other bytes', () => {
    expect(requiredLiterals('ab\uFFFDcd', 'u')).to.equal(undefined)
    // Without the u flag, an emoji is two lone surrogates to the parser.
    expect(requiredLiterals('😀😀😀', '')).to.equal(undefined)
    expect(requiredLiterals('😀😀😀', 'u')).to.deep.equal(['😀😀😀'])
  })

  it('gives no prefilter for a pattern the parser refuses', () => {
    expect(requiredLiterals('abc(', 'u')).to.equal(undefined)
  })

  it('leaves a literal query alone', () => {
    const query: ScanQuery = {kind: 'literal', text: 'abc'}
    expect(withPrefilter(query)).to.equal(query)
  })
})

describe('the regex prefilter against unfiltered scans', () => {
  let dir: string

  before(async () => {
    dir = await mkdtemp(path.join(tmpdir(), 'ak-prefilter-'))
  })

  after(async () => {
    await rm(dir, {recursive: true, force: true})
  })

  /** A small deterministic generator (mulberry32), so a failure names a reproducible seed. */
  function generator(seed: number): () => number {
    let state = seed
    return () => {
      state = (state + 0x6d2b79f5) | 0
      let t = Math.imul(state ^ (state >>> 15), 1 | state)
      t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t
      return ((t ^ (t >>> 14)) >>> 0) / 4294967296
    }
  }

  const LITERAL_ATOMS = ['abc', 'bca', 'cab', 'xab', 'aé😀', 'ab', 'ca']
  const ATOMS = [...LITERAL_ATOMS, ...LITERAL_ATOMS, 'a', 'b', 'c', 'x', 'é', '😀', '-', ' ', '.', '\\d', '\\w', '\\s', '[a-c]', '[^a]', '[😀é]', '\\b', '^', '$', '\\u00e9', '\\x61', '\\-', '\\p{L}', '\\1', '(?=a)', '(?<!b)', '\uFFFD', '\\uD83D']
  const QUANTIFIERS = ['', '', '', '*', '+', '?', '{2}', '{0,1}', '{1,3}', '+?']

  function randomRegex(random: () => number, depth = 0): string {
    const pick = <T>(list: readonly T[]): T => list[Math.floor(random() * list.length)] as T
    const parts: string[] = []
    const length = 1 + Math.floor(random() * 5)
    for (let index = 0; index < length; index++) {
      const roll = random()
      let atom: string
      if (roll < 0.15 && depth < 2) {
        const inner = Array.from({length: 1 + Math.floor(random() * 3)}, () => randomRegex(random, depth + 1)).join('|')
        atom = `${pick(['(', '(?:'])}${inner})`
      } else atom = pick(ATOMS)
      parts.push(`${atom}${pick(QUANTIFIERS)}`)
    }
    const sequence = parts.join('')
    return random() < 0.2 ? `${sequence}|${randomRegex(random, depth + 1)}` : sequence
  }

  const FRAGMENTS = ['a', 'b', 'c', 'abc', 'bca', 'ab', 'x', 'é', '😀', '-', ' ', '1', '\n', '\r\n', 'abcabc', 'xabcx']

  function randomText(random: () => number): Buffer {
    const pick = <T>(list: readonly T[]): T => list[Math.floor(random() * list.length)] as T
    const pieces: Buffer[] = []
    if (random() < 0.1) pieces.push(Buffer.from([0xef, 0xbb, 0xbf]))
    const length = Math.floor(random() * 30)
    for (let index = 0; index < length; index++) {
      // Malformed UTF-8 now and then: it decodes to U+FFFD.
      pieces.push(random() < 0.03 ? Buffer.from([0xff]) : random() < 0.02 ? Buffer.from([0xed, 0xa0, 0xbd]) : Buffer.from(pick(FRAGMENTS)))
    }
    return Buffer.concat(pieces)
  }

  it('finds the same lines with and without the prefilter for thousands of generated regexes', async function () {
    this.timeout(120_000)
    const random = generator(2718)
    const files: Buffer[] = []
    const contents: Buffer[] = []
    for (let index = 0; index < 60; index++) {
      const file = path.join(dir, `t${index}.txt`)
      contents.push(randomText(random))
      await writeFile(file, contents.at(-1) as Buffer)
      files.push(Buffer.from(file))
    }
    const scanner = createScanner()
    const scan = (query: ScanQuery) =>
      scanner.scan({files, query, maxMatches: 10_000, maxLineChars: 200, maxFileBytes: 1024 * 1024, binarySniffBytes: 8000})
    let filtered = 0
    let skippedFiles = 0
    let matchingLines = 0
    for (let round = 0; round < 5000; round++) {
      const source = randomRegex(random)
      const flags = ['', 'u', 'u', 'u', 'iu'][Math.floor(random() * 5)] as string
      try {
        new RegExp(source, flags)
      } catch {
        continue
      }
      const plain: ScanQuery = {kind: 'regex', source, flags}
      const prefiltered = withPrefilter(plain)
      if (prefiltered === plain) continue
      filtered++
      const required = (prefiltered as {required: string[]}).required
      skippedFiles += contents.filter((bytes) => !required.some((literal) => bytes.includes(Buffer.from(literal)))).length
      const expected = scan(plain)
      matchingLines += expected.matches.length
      expect(scan(prefiltered), `/${source}/${flags} requiring ${JSON.stringify(required)}`).to.deep.equal(expected)
    }
    // The property means something only if many regexes were prefiltered and many files skipped.
    expect(filtered).to.be.greaterThan(300)
    expect(skippedFiles).to.be.greaterThan(3000)
    expect(matchingLines).to.be.greaterThan(1000)
  })
})
