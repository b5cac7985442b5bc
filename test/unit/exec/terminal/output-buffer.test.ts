import {expect} from 'chai'

import {OutputBuffer, countLineBreaks, outputChars} from '../../../../src/exec/terminal/output-buffer.js'
import {isWellFormed} from '../../../helpers/text.js'

describe('OutputBuffer', () => {
  it('keeps everything while it fits, in order', () => {
    const buffer = new OutputBuffer(100)
    buffer.append('hello ')
    buffer.append('world\n')
    const output = buffer.take()
    expect(output.head + output.tail).to.equal('hello world\n')
    expect(output.droppedChars).to.equal(0)
  })

  it('keeps the first and last half of its capacity and counts what it dropped', () => {
    const buffer = new OutputBuffer(10)
    for (const chunk of ['abc', 'def\n', 'ghi\n', 'jkl', 'mno', 'pqr']) buffer.append(chunk)
    const output = buffer.take()
    expect(output.head).to.equal('abcde')
    expect(output.tail).to.equal('nopqr')
    expect(output.droppedChars).to.equal(20 - 10)
    expect(output.droppedLines).to.equal(2)
    expect(outputChars(output)).to.equal(20)
  })

  it('holds at most its capacity however much is appended', () => {
    const buffer = new OutputBuffer(1000)
    const chunk = 'x'.repeat(999) + '\n'
    for (let index = 0; index < 10_000; index++) buffer.append(chunk)
    const output = buffer.take()
    expect(output.head.length + output.tail.length).to.equal(1000)
    expect(outputChars(output)).to.equal(10_000_000)
    expect(output.droppedLines).to.equal(9_999)
  })

  it('empties on take', () => {
    const buffer = new OutputBuffer(10)
    buffer.append('x'.repeat(50))
    buffer.take()
    buffer.append('new')
    expect(buffer.take()).to.deep.equal({head: 'new', droppedChars: 0, droppedLines: 0, tail: ''})
  })

  it('never splits a surrogate pair at the edge of the head or of the tail', () => {
    const emoji = '\u{1F600}' // two UTF-16 code units
    for (let capacity = 4; capacity <= 12; capacity++) {
      const buffer = new OutputBuffer(capacity)
      for (let index = 0; index < 20; index++) buffer.append(index % 3 === 0 ? `a${emoji}` : emoji)
      const output = buffer.take()
      for (const part of [output.head, output.tail]) {
        expect(isWellFormed(part), `capacity ${capacity}: ${JSON.stringify(part)}`).to.equal(true)
      }
    }
  })
})

/** What the buffer must answer for `text` (cut into any chunks): head and tail, and the middle counted in code points. */
function expected(text: string, capacity: number) {
  const headSize = Math.floor(capacity / 2)
  let headEnd = Math.min(headSize, text.length)
  if (headEnd < text.length && headEnd > 0 && /[\ud800-\udbff]/.test(text[headEnd - 1]!)) headEnd--
  const rest = text.slice(headEnd)
  let cut = Math.max(0, rest.length - (capacity - headSize))
  if (cut > 0 && /[\udc00-\udfff]/.test(rest[cut] ?? '')) cut++
  const dropped = rest.slice(0, cut)
  return {head: text.slice(0, headEnd), droppedChars: [...dropped].length, droppedLines: dropped.split('\n').length - 1, tail: rest.slice(cut)}
}

describe('OutputBuffer fed bytes', () => {
  const texts = ['y\n'.repeat(3000), 'é€\u{1F600}漢\n'.repeat(700), `${'x'.repeat(63)}\n`.repeat(80) + 'ünïcödé\n'.repeat(90)]

  for (const capacity of [6, 101, 1000, 4096]) {
    it(`answers as if it had decoded everything, whatever the chunks (capacity ${capacity})`, () => {
      for (const text of texts) {
        const bytes = Buffer.from(text)
        for (const size of [1, 2, 3, 5, 64, 1000, 65_536]) {
          const buffer = new OutputBuffer(capacity)
          for (let start = 0; start < bytes.length; start += size) buffer.write(bytes.subarray(start, start + size))
          buffer.end()
          expect(buffer.take(), `chunks of ${size}`).to.deep.equal(expected(text, capacity))
        }
      }
    })
  }

  it('keeps a character split across chunks whole, and one split at the end of the output for the next answer', () => {
    const buffer = new OutputBuffer(100)
    const euro = Buffer.from('€')
    buffer.write(Buffer.concat([Buffer.from('price: '), euro.subarray(0, 1)]))
    expect(buffer.take().head).to.equal('price: ')
    buffer.write(euro.subarray(1))
    expect(buffer.take().head).to.equal('€')
  })

  it('shows a character the output ended inside as U+FFFD', () => {
    const buffer = new OutputBuffer(100)
    buffer.write(Buffer.from('€').subarray(0, 2))
    buffer.end()
    expect(buffer.take().head).to.equal('\ufffd')
  })

  it('holds about its capacity in bytes however much output flows through', () => {
    const buffer = new OutputBuffer(1024)
    const chunk = Buffer.from('y\n'.repeat(32_768))
    let most = 0
    for (let index = 0; index < 200; index++) {
      buffer.write(chunk)
      most = Math.max(most, buffer.heldBytes)
    }
    expect(most).to.be.at.most(1024 * 4 + 2 * chunk.length)
    const output = buffer.take()
    expect(outputChars(output)).to.equal(200 * chunk.length)
    expect(output.droppedLines).to.equal(200 * 32_768 - (output.head + output.tail).split('\n').length + 1)
  })
})

describe('countLineBreaks', () => {
  it('counts \\n in a range', () => {
    expect(countLineBreaks('a\nb\nc\n')).to.equal(3)
    expect(countLineBreaks('a\nb\nc\n', 2)).to.equal(2)
    expect(countLineBreaks('a\nb\nc\n', 0, 3)).to.equal(1)
    expect(countLineBreaks('')).to.equal(0)
  })
})
