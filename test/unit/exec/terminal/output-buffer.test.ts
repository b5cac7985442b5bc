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

describe('countLineBreaks', () => {
  it('counts \\n in a range', () => {
    expect(countLineBreaks('a\nb\nc\n')).to.equal(3)
    expect(countLineBreaks('a\nb\nc\n', 2)).to.equal(2)
    expect(countLineBreaks('a\nb\nc\n', 0, 3)).to.equal(1)
    expect(countLineBreaks('')).to.equal(0)
  })
})
