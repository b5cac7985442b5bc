import {expect} from 'chai'

import {NO_OUTPUT, OutputBuffer, countLineBreaks, outputChars} from '../../../../src/exec/terminal/output-buffer.js'
import {isWellFormed} from '../../../helpers/text.js'

describe('OutputBuffer', () => {
  it('counts the bytes it holds: two per head character, a partial character, and the tail as bytes', () => {
    const buffer = new OutputBuffer(8)
    buffer.write(Buffer.alloc(0))
    expect(buffer.heldBytes).to.equal(0)
    buffer.write(Buffer.from('ab'))
    expect(buffer.heldBytes).to.equal(4)
    buffer.write(Buffer.from([0xe2, 0x82]))
    expect(buffer.heldBytes, 'the first two bytes of a euro sign wait').to.equal(6)
    buffer.write(Buffer.from([0xac]))
    expect(buffer.heldBytes).to.equal(6)
    buffer.write(Buffer.from('cdefg'))
    expect(buffer.heldBytes, 'a full head of 4 characters and 4 bytes of tail').to.equal(4 * 2 + 4)
    const output = buffer.take()
    expect(output.head).to.equal('ab\u20acc')
    expect(output.tail).to.equal('defg')
    expect(buffer.heldBytes, 'an answer takes what was held').to.equal(0)
  })

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

  it('takes NO_OUTPUT when nothing was appended, or only empty text', () => {
    const buffer = new OutputBuffer(10)
    expect(buffer.take()).to.deep.equal(NO_OUTPUT)
    expect(NO_OUTPUT).to.deep.equal({head: '', droppedChars: 0, droppedLines: 0, tail: ''})
    buffer.append('')
    expect(buffer.take()).to.deep.equal(NO_OUTPUT)
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

  for (const [large, small] of [[4096, 101], [1000, 6], [101, 100]] as const) {
    it(`shrunk from ${large} to ${small} characters at any point, answers what a buffer of ${small} would`, () => {
      for (const text of texts) {
        const bytes = Buffer.from(text)
        for (const size of [1, 5, 64, 1000]) {
          for (const shrinkAt of [0, 3, 7, 50, 150, 2000, 5000, bytes.length]) {
            const buffer = new OutputBuffer(large)
            let start = 0
            for (; start < Math.min(shrinkAt, bytes.length); start += size) buffer.write(bytes.subarray(start, start + size))
            buffer.setCapacity(small)
            for (; start < bytes.length; start += size) buffer.write(bytes.subarray(start, start + size))
            buffer.end()
            expect(buffer.take(), `chunks of ${size}, shrunk after ${shrinkAt} bytes`).to.deep.equal(expected(text, small))
          }
        }
      }
    })
  }

  it('grown after an answer, keeps as much as a buffer of the larger capacity', () => {
    const text = 'é€\u{1F600}漢\n'.repeat(700)
    const buffer = new OutputBuffer(10)
    buffer.write(Buffer.from('a lot of output dropped in the middle'))
    buffer.take()
    buffer.setCapacity(1000)
    buffer.write(Buffer.from(text))
    buffer.end()
    expect(buffer.take()).to.deep.equal(expected(text, 1000))
  })

  it('grown while its head is full, keeps its head and lets the tail grow at once', () => {
    const buffer = new OutputBuffer(4)
    buffer.write(Buffer.from('abcdefgh'))
    buffer.setCapacity(10)
    buffer.write(Buffer.from('ijklmn'))
    const output = buffer.take()
    expect(output.head).to.equal('ab')
    expect(output.tail).to.equal('jklmn')
    expect(output.droppedChars).to.equal(14 - 7)
  })

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

  it('keeps a character split at the end of a full buffer for the next answer', () => {
    const buffer = new OutputBuffer(4)
    const euro = Buffer.from('€')
    buffer.write(Buffer.concat([Buffer.from('abcdef'), euro.subarray(0, 2)]))
    expect(buffer.take()).to.deep.equal({head: 'ab', droppedChars: 2, droppedLines: 0, tail: 'ef'})
    buffer.write(euro.subarray(2))
    expect(buffer.take()).to.deep.equal({head: '€', droppedChars: 0, droppedLines: 0, tail: ''})
  })

  it('shows a character the output ended inside as U+FFFD at the end of a full buffer too', () => {
    const buffer = new OutputBuffer(4)
    buffer.write(Buffer.concat([Buffer.from('abcdef'), Buffer.from('€').subarray(0, 2)]))
    buffer.end()
    expect(buffer.take()).to.deep.equal({head: 'ab', droppedChars: 3, droppedLines: 0, tail: 'f\ufffd'})
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

  it('holds about its capacity again after each answer', () => {
    const buffer = new OutputBuffer(8)
    for (let answer = 0; answer < 3; answer++) {
      let most = 0
      for (let index = 0; index < 1000; index++) {
        buffer.write(Buffer.from('xy'))
        most = Math.max(most, buffer.heldBytes)
      }
      expect(most, `answer ${answer}`).to.be.at.most(8 * 2 + 2 * 2)
      expect(buffer.take()).to.deep.equal({head: 'xyxy', droppedChars: 1992, droppedLines: 0, tail: 'xyxy'})
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
    // The tail keeps its own half (5); the head, one short, stays so. The pair counts as one character.
    expect(output).to.deep.equal({head: 'abcd', droppedChars: 4, droppedLines: 1, tail: '\n3\n45'})
    expect(outputChars(output)).to.equal(4 + 1 + 8)
  })

  it('fills the head exactly when the pair fits in it', () => {
    const buffer = new OutputBuffer(10)
    buffer.append(`abc${emoji}`)
    buffer.append('de')
    expect(buffer.take()).to.deep.equal({head: `abc${emoji}`, droppedChars: 0, droppedLines: 0, tail: 'de'})
  })

  it('keeps a pair whole at the edge of the head for the first and the last code points past U+FFFF', () => {
    for (const pair of ['\u{10000}', '\u{10FFFF}', '\u{E0000}', '\u{FFFFF}']) {
      const buffer = new OutputBuffer(10)
      buffer.append(`abcd${pair}e`)
      expect(buffer.take(), JSON.stringify(pair)).to.deep.equal({head: 'abcd', droppedChars: 0, droppedLines: 0, tail: `${pair}e`})
    }
  })

  it('ends the head after a whole pair that fills it, and after a character above the surrogates', () => {
    for (const last of [emoji, '\u{10000}', '\u{10FFFF}']) {
      const buffer = new OutputBuffer(10)
      buffer.append(`abc${last}xy`)
      expect(buffer.take().head, JSON.stringify(last)).to.equal(`abc${last}`)
    }
    const buffer = new OutputBuffer(10)
    buffer.append('abcd\uFF21xy') // a full-width A: one code unit above the surrogates
    expect(buffer.take().head).to.equal('abcd\uFF21')
  })

  it('cuts the tail after a low surrogate only, never after another character', () => {
    for (const pair of [emoji, '\u{10000}', '\u{10FFFF}']) {
      const buffer = new OutputBuffer(6)
      buffer.append('abc')
      buffer.append(`x${pair}yz`) // the tail (3) would start inside the pair: it starts after it
      expect(buffer.take(), JSON.stringify(pair)).to.deep.equal({head: 'abc', droppedChars: 2, droppedLines: 0, tail: 'yz'})
    }
    const buffer = new OutputBuffer(6)
    buffer.append('abc')
    buffer.append('\uFF21\uFF22\uFF23\uFF24') // full-width letters, one code unit each
    expect(buffer.take()).to.deep.equal({head: 'abc', droppedChars: 1, droppedLines: 0, tail: '\uFF22\uFF23\uFF24'})
  })

  it('takes no part of a pair into an empty head of one character', () => {
    const buffer = new OutputBuffer(3)
    buffer.append(`${emoji}ab`)
    expect(buffer.take()).to.deep.equal({head: '', droppedChars: 1, droppedLines: 0, tail: 'ab'})
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
