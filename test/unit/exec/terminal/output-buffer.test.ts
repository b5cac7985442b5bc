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

describe('OutputBuffer after the head stops short of a surrogate pair', () => {
  const emoji = '\u{1F600}' // two UTF-16 code units

  it('keeps the order: what follows goes to the tail, after the pair', () => {
    const buffer = new OutputBuffer(10)
    buffer.append(`abcd${emoji}`) // the head (5) would end inside the pair, so it stops at 4
    buffer.append('x')
    buffer.append('y')
    expect(buffer.take()).to.deep.equal({head: 'abcd', droppedChars: 0, droppedLines: 0, tail: `${emoji}xy`})
  })

  it('never refills the head, and keeps at most its capacity', () => {
    const buffer = new OutputBuffer(10)
    buffer.append(`abcd${emoji}`)
    for (const chunk of ['1\n', '2\n', '3\n', '45']) buffer.append(chunk)
    const output = buffer.take()
    // The tail keeps its own half (5); the head, one short, stays so.
    expect(output).to.deep.equal({head: 'abcd', droppedChars: 5, droppedLines: 1, tail: '\n3\n45'})
    expect(outputChars(output)).to.equal(4 + 2 + 8)
  })

  it('fills the head exactly when the pair fits in it', () => {
    const buffer = new OutputBuffer(10)
    buffer.append(`abc${emoji}`)
    buffer.append('de')
    expect(buffer.take()).to.deep.equal({head: `abc${emoji}`, droppedChars: 0, droppedLines: 0, tail: 'de'})
  })

  it('takes no part of a pair into an empty head of one character', () => {
    const buffer = new OutputBuffer(3)
    buffer.append(`${emoji}ab`)
    expect(buffer.take()).to.deep.equal({head: '', droppedChars: 2, droppedLines: 0, tail: 'ab'})
  })
})

describe('OutputBuffer against a straightforward reference', () => {
  // Deterministic pseudo-random chunks of ASCII text with line breaks.
  let seed = 11
  const random = (n: number) => {
    seed = (seed * 1_103_515_245 + 12_345) % 2 ** 31
    return Math.floor((seed / 2 ** 31) * n)
  }
  const chunk = () => Array.from({length: random(9)}, () => 'ab\nc'[random(4)]).join('')

  it('keeps the first and the last half of everything appended and counts the rest', () => {
    for (let round = 0; round < 300; round++) {
      const capacity = 1 + random(16)
      const buffer = new OutputBuffer(capacity)
      const chunks = Array.from({length: random(8)}, chunk)
      for (const text of chunks) buffer.append(text)
      const all = chunks.join('')
      const headChars = Math.floor(capacity / 2)
      const tailChars = capacity - headChars
      const head = all.slice(0, headChars)
      const tail = all.length > capacity ? all.slice(all.length - tailChars) : all.slice(headChars)
      const dropped = all.slice(head.length, all.length - tail.length)
      const label = `capacity ${capacity}: ${JSON.stringify(chunks)}`
      expect(buffer.take(), label).to.deep.equal({head, droppedChars: dropped.length, droppedLines: countLineBreaks(dropped), tail})
    }
  })
})

describe('countLineBreaks', () => {
  it('counts \\n in a range', () => {
    expect(countLineBreaks('a\nb\nc\n')).to.equal(3)
    expect(countLineBreaks('a\nb\nc\n', 2)).to.equal(2)
    expect(countLineBreaks('a\nb\nc\n', 0, 3)).to.equal(1)
    expect(countLineBreaks('')).to.equal(0)
    expect(countLineBreaks('\n\n\n', 1, 2)).to.equal(1)
    expect(countLineBreaks('a\n', 0, 1)).to.equal(0)
    expect(countLineBreaks('\n\n', 0, 0)).to.equal(0)
  })
})
