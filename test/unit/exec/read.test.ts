import {expect} from 'chai'
import {mkdir, mkdtemp, rm, writeFile} from 'node:fs/promises'
import {tmpdir} from 'node:os'
import path from 'node:path'
import {z} from 'zod'

import {BadInputError} from '../../../src/errors.js'
import {
  LineWindow,
  type LineWindowOptions,
  type WindowResult,
  formatLine,
  formatLineLength,
} from '../../../src/exec/files/line-window.js'
import {READ_DEFAULT_LIMIT_LINES, READ_MAX_ANSWER_CHARS, READ_MAX_LIMIT_LINES, READ_MAX_LINE_CHARS} from '../../../src/exec/limits.js'
import {formatReadAnswer, readTool, structuredReadAnswer} from '../../../src/exec/tools/read.js'
import type {ToolContext} from '../../../src/exec/context.js'
import {runTool, toolContext} from '../../helpers/exec-context.js'

const DEFAULTS: LineWindowOptions = {
  offset: 1,
  limit: 2000,
  maxLineChars: 2000,
  maxAnswerChars: 100_000,
  maxClippedScanBytes: 1024 * 1024,
}

/** Runs a window over `text` cut into chunks of `chunkBytes`; also returns how many bytes it took. */
function windowOf(
  text: string | Buffer,
  options: Partial<LineWindowOptions> = {},
  chunkBytes = 64 * 1024,
): WindowResult & {bytesPushed: number} {
  const bytes = typeof text === 'string' ? Buffer.from(text) : text
  const window = new LineWindow({...DEFAULTS, ...options})
  let bytesPushed = 0
  for (let start = 0; start < bytes.length; start += chunkBytes) {
    const chunk = bytes.subarray(start, start + chunkBytes)
    bytesPushed += chunk.length
    if (!window.push(chunk)) break
  }
  return {...window.finish(), bytesPushed}
}

const texts = (result: WindowResult) => result.lines.map((line) => line.text)

describe('LineWindow (the line reader behind read)', () => {
  it('splits on \\n, counts a last line without a line break, and drops the \\r of CRLF', () => {
    const result = windowOf('one\r\ntwo\n\nfour')
    expect(texts(result)).to.deep.equal(['one', 'two', '', 'four'])
    expect(result.lines.map((line) => line.number)).to.deep.equal([1, 2, 3, 4])
    expect(result).to.include({end: 'eof', totalLines: 4})
  })

  it('does not count a final line break as a line of its own', () => {
    expect(windowOf('a\nb\n').totalLines).to.equal(2)
    expect(windowOf('').totalLines).to.equal(0)
    expect(windowOf('\n').totalLines).to.equal(1)
  })

  it('keeps only the lines from offset, at most limit of them', () => {
    const text = Array.from({length: 10}, (_, i) => `line ${i + 1}`).join('\n') + '\n'
    const result = windowOf(text, {offset: 4, limit: 3})
    expect(texts(result)).to.deep.equal(['line 4', 'line 5', 'line 6'])
    expect(result.end).to.equal('limit')
  })

  it('ends at eof, not limit, when the window reaches exactly the last line', () => {
    expect(windowOf('a\nb\nc\n', {offset: 2, limit: 2}).end).to.equal('eof')
    expect(windowOf('a\nb\nc', {offset: 2, limit: 2}).end).to.equal('eof')
    expect(windowOf('a\nb\nc\nd', {offset: 2, limit: 2}).end).to.equal('limit')
  })

  it('stops taking bytes once the window is complete', () => {
    const text = 'head\n'.repeat(10) + 'x'.repeat(1_000_000)
    const result = windowOf(text, {limit: 5}, 16)
    expect(result.end).to.equal('limit')
    expect(result.bytesPushed).to.be.below(64)
  })

  it('clips a long line and says how many characters were cut', () => {
    const [line] = windowOf(`${'a'.repeat(25)}\n`, {maxLineChars: 10}).lines
    expect(line).to.deep.include({text: 'a'.repeat(10), cutChars: 15, cutIsLowerBound: false})
  })

  it('counts cut characters, not bytes, and never splits a multibyte character, whatever the chunking', () => {
    const line = `${'€'.repeat(7)}😀${'ü'.repeat(5)}\r\nnext\n`
    for (const chunkBytes of [1, 2, 3, 5, 7, 1024]) {
      const result = windowOf(line, {maxLineChars: 8}, chunkBytes)
      expect(result.lines[0], `chunks of ${chunkBytes}`).to.deep.include({text: `${'€'.repeat(7)}😀`, cutChars: 5})
      expect(result.lines[1]?.text).to.equal('next')
    }
    for (const maxLineChars of [1, 2, 3, 6, 7, 9, 12, 13, 14]) {
      const characters = [...`${'€'.repeat(7)}😀${'ü'.repeat(5)}`]
      const [first] = windowOf(line, {maxLineChars}, 3).lines
      expect(first?.text, `max ${maxLineChars}`).to.equal(characters.slice(0, maxLineChars).join(''))
      expect(first?.cutChars).to.equal(Math.max(0, characters.length - maxLineChars))
      expect(first?.text).not.to.contain('\uFFFD')
    }
  })

  it('decodes characters split across chunks', () => {
    for (const chunkBytes of [1, 2, 3]) {
      expect(texts(windowOf('añ€😀\nß', {}, chunkBytes))).to.deep.equal(['añ€😀', 'ß'])
    }
  })

  it('counts the cut of a line far longer than the kept part', () => {
    const [line] = windowOf(`${'é'.repeat(50_000)}\nnext`, {maxLineChars: 100}, 4096).lines
    expect(line).to.deep.include({cutChars: 49_900, cutIsLowerBound: false})
  })

  it('stops scanning a giant last line after the scan budget and says the cut is a lower bound', () => {
    const result = windowOf(`short\n${'z'.repeat(200_000)}`, {limit: 2, maxLineChars: 10, maxClippedScanBytes: 1000}, 256)
    expect(result.lines[1]).to.deep.include({text: 'z'.repeat(10), cutIsLowerBound: true})
    expect(result.lines[1]?.cutChars).to.be.at.least(1000)
    expect(result.bytesPushed).to.be.below(2000)
  })

  it('stops before the line that would pass the answer cap, at a whole line', () => {
    const text = Array.from({length: 100}, () => 'x'.repeat(50)).join('\n')
    const result = windowOf(text, {maxAnswerChars: 600})
    expect(result.end).to.equal('chars')
    expect(result.lines).to.have.length(10) // each formatted line: 6 + 1 + 50 + 1 = 58 characters
  })

  it('counts the answer length of a line in characters (code points) exactly as the line is formatted', () => {
    const lines = [
      {number: 1, text: 'short', cutChars: 0, cutIsLowerBound: false},
      {number: 12_345_678, text: 'a line number wider than its column', cutChars: 0, cutIsLowerBound: false},
      {number: 7, text: 'clipped', cutChars: 42, cutIsLowerBound: false},
      {number: 8, text: 'giant', cutChars: 9, cutIsLowerBound: true},
      {number: 9, text: 'émoji 😀 text', cutChars: 0, cutIsLowerBound: false},
    ]
    for (const line of lines) expect(formatLineLength(line), line.text).to.equal([...formatLine(line)].length + 1)
  })

  it('keeps a line of maxLineChars characters whole even when it has more UTF-16 units than that', () => {
    const result = windowOf('😀😀😀\n😀😀😀😀\n', {maxLineChars: 3})
    expect(result.lines.map((line) => [line.text, line.cutChars])).to.deep.equal([
      ['😀😀😀', 0],
      ['😀😀😀', 1],
    ])
  })

  it('skips lines before offset without keeping them', () => {
    const text = 'skip\n'.repeat(100_000) + 'wanted\n'
    const result = windowOf(text, {offset: 100_001, limit: 1})
    expect(result.lines).to.deep.equal([{number: 100_001, text: 'wanted', cutChars: 0, cutIsLowerBound: false}])
  })
})

describe('read tool', () => {
  let dir: string
  let context: ToolContext

  before(async () => {
    dir = await mkdtemp(path.join(tmpdir(), 'ak-read-'))
    await mkdir(path.join(dir, 'folder'))
    await writeFile(path.join(dir, 'five.txt'), 'one\ntwo\nthree\nfour\nfive\n')
    await writeFile(path.join(dir, 'empty.txt'), '')
    await writeFile(path.join(dir, 'binary.bin'), Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x00, 0x01, 0x0a]))
    await writeFile(path.join(dir, 'long.txt'), `${'é'.repeat(READ_MAX_LINE_CHARS + 123)}\n`)
    await writeFile(path.join(dir, 'wide.txt'), `${'w'.repeat(1000)}\n`.repeat(300))
    context = await toolContext(dir)
  })

  after(async () => {
    await rm(dir, {recursive: true, force: true})
  })

  const read = (args: Record<string, unknown>) => runTool(readTool, context, args)

  it('answers numbered lines, cat -n style', async () => {
    expect(await read({path: 'five.txt'})).to.equal(
      ['     1\tone', '     2\ttwo', '     3\tthree', '     4\tfour', '     5\tfive'].join('\n'),
    )
  })

  it('shows offset/limit windows and says which offset continues', async () => {
    const answer = await read({path: 'five.txt', offset: 2, limit: 2})
    expect(answer).to.equal('     2\ttwo\n     3\tthree\n[More lines follow. Shown: lines 2 to 3. Continue with offset=4.]')
    expect(await read({path: 'five.txt', offset: 4, limit: 2})).to.equal('     4\tfour\n     5\tfive')
  })

  it('says when an offset is past the end and how many lines there are', async () => {
    try {
      await read({path: 'five.txt', offset: 6})
      expect.fail('expected an error')
    } catch (error) {
      expect(error).to.be.instanceOf(BadInputError)
      expect((error as Error).message).to.contain('has 5 lines')
    }
  })

  it('marks a clipped long line with the number of characters cut', async () => {
    const answer = await read({path: 'long.txt'})
    expect(answer).to.contain('[line clipped: 123 more characters]')
    expect(answer).to.contain('é'.repeat(READ_MAX_LINE_CHARS))
  })

  it('says it stopped inside a giant last line instead of promising more lines', () => {
    const result = {
      lines: [{number: 7, text: 'x', cutChars: 2_000_000, cutIsLowerBound: true}],
      end: 'limit' as const,
      totalLines: undefined,
    }
    expect(formatReadAnswer('f.txt', 7, result)).to.match(/\[Stopped inside line 7, which is very long\. Lines after it, if any, start at offset=8\.\]$/)
  })

  it('gives the same window as fields: an empty file, a giant last line, an answer cut by size, lines numbered from the end', () => {
    expect(structuredReadAnswer('e.txt', {lines: [], end: 'eof', totalLines: 0})).to.deep.equal({
      path: 'e.txt',
      kind: 'text',
      lines: [],
      clipped_lines: [],
      first_line: null,
      last_line: null,
      total_lines: 0,
      next_offset: null,
      stopped_by: 'end_of_file',
      numbered_from_end: false,
    })
    const giant = {
      lines: [
        {number: 6, text: 'w', cutChars: 0, cutIsLowerBound: false},
        {number: 7, text: 'x', cutChars: 2_000_000, cutIsLowerBound: true},
      ],
      end: 'limit' as const,
      totalLines: undefined,
    }
    expect(structuredReadAnswer('f.txt', giant)).to.deep.include({
      lines: ['w', 'x'],
      clipped_lines: [{number: 7, clipped_chars: 2_000_000}],
      first_line: 6,
      last_line: 7,
      total_lines: null,
      next_offset: 8,
      stopped_by: 'limit',
    })
    const capped = {lines: [{number: 3, text: 'a', cutChars: 0, cutIsLowerBound: false}], end: 'chars' as const, totalLines: undefined}
    expect(structuredReadAnswer('f.txt', capped)).to.include({next_offset: 4, stopped_by: 'answer_size'})
    const fromEnd = {
      lines: [
        {number: -2, text: 'y', cutChars: 0, cutIsLowerBound: false},
        {number: -1, text: 'z', cutChars: 0, cutIsLowerBound: false},
      ],
      end: 'eof' as const,
      totalLines: 2,
    }
    expect(structuredReadAnswer('f.txt', fromEnd, true)).to.deep.include({
      lines: ['y', 'z'],
      first_line: -2,
      last_line: -1,
      total_lines: null,
      next_offset: null,
      numbered_from_end: true,
    })
  })

  it('caps the answer in characters and says where to continue', async () => {
    const answer = await read({path: 'wide.txt'})
    expect(answer.length).to.be.at.most(READ_MAX_ANSWER_CHARS + 200)
    expect(answer).to.match(/\[Answer capped at 100000 characters\. Shown: lines 1 to (\d+)\. Continue with offset=(\d+)\.\]$/)
  })

  it('answers an empty file clearly', async () => {
    expect(await read({path: 'empty.txt'})).to.equal('(empty file: "empty.txt" has 0 lines)')
  })

  it('refuses a folder and points to list', async () => {
    const error = await read({path: 'folder'}).catch((caught: Error) => caught)
    expect(error).to.be.instanceOf(BadInputError)
    expect((error as Error).message).to.contain('list tool')
  })

  it('refuses a binary file', async () => {
    const error = await read({path: 'binary.bin'}).catch((caught: Error) => caught)
    expect(error).to.be.instanceOf(BadInputError)
    expect((error as Error).message).to.contain('binary')
  })

  describe('input schema', () => {
    const messageOf = (args: Record<string, unknown>) => {
      const parsed = readTool.inputSchema.safeParse(args)
      expect(parsed.success, JSON.stringify(args)).to.equal(false)
      return parsed.error?.issues.map((issue) => issue.message).join('; ') ?? ''
    }

    it('leaves offset and limit unset when not given (an image read must know), and states their defaults and bounds in the JSON Schema', () => {
      expect(readTool.inputSchema.parse({path: 'a'})).to.deep.equal({path: 'a'})
      const properties = (z.toJSONSchema(readTool.inputSchema, {io: 'input'}) as {properties: Record<string, Record<string, unknown>>}).properties
      expect(properties.offset).to.include({default: 1, minimum: -Number.MAX_SAFE_INTEGER, maximum: Number.MAX_SAFE_INTEGER})
      expect(properties.offset?.not, 'the schema refuses 0 as the tool does').to.deep.equal({const: 0})
      expect(properties.limit).to.include({default: READ_DEFAULT_LIMIT_LINES, minimum: 1, maximum: READ_MAX_LIMIT_LINES})
    })

    it('rejects a zero offset, a fraction, a wrong type, a missing path, and takes a negative offset', () => {
      expect(messageOf({path: 'a', offset: 0})).to.contain('offset must not be 0')
      expect(readTool.inputSchema.parse({path: 'a', offset: -5})).to.include({offset: -5})
      expect(messageOf({path: 'a', offset: 1.5})).to.contain('offset must be a whole number')
      expect(messageOf({path: 'a', offset: -1.5})).to.contain('offset must be a whole number')
      expect(messageOf({path: 'a', offset: '3'})).to.contain('offset must be a number')
      expect(messageOf({})).to.contain('path must be a string')
    })

    it('rejects a limit over the documented maximum, saying the maximum', () => {
      expect(messageOf({path: 'a', limit: READ_MAX_LIMIT_LINES + 1})).to.contain(`at most ${READ_MAX_LIMIT_LINES}`)
      expect(messageOf({path: 'a', limit: 0})).to.contain('limit must be 1 or more')
    })
  })
})
