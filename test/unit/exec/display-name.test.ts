import {expect} from 'chai'
import {randomBytes} from 'node:crypto'

import {BadInputError} from '../../../src/errors.js'
import {displayName, displayText, parseDisplayPath} from '../../../src/exec/display-name.js'
import {escapeControls} from '../../../src/text-escape.js'

describe('the display form of file names', () => {
  it('shows valid UTF-8 as it is, and bytes that are not UTF-8 as \\xHH', () => {
    expect(displayName(Buffer.from('café/日本.txt'))).to.equal('café/日本.txt')
    expect(displayName(Buffer.from([0x62, 0x61, 0x64, 0x2d, 0xff]))).to.equal('bad-\\xff')
    expect(displayName(Buffer.from([0x63, 0x61, 0x66, 0xe9, 0x2e, 0x74]))).to.equal('caf\\xe9.t')
    // Overlong, surrogate, beyond U+10FFFF and truncated sequences are not UTF-8.
    expect(displayName(Buffer.from([0xc0, 0xaf]))).to.equal('\\xc0\\xaf')
    expect(displayName(Buffer.from([0xed, 0xa0, 0x80]))).to.equal('\\xed\\xa0\\x80')
    expect(displayName(Buffer.from([0xf4, 0x90, 0x80, 0x80]))).to.equal('\\xf4\\x90\\x80\\x80')
    expect(displayName(Buffer.from([0x61, 0xe2, 0x82]))).to.equal('a\\xe2\\x82')
    expect(displayName(Buffer.from([0xff, 0xf0, 0x9f, 0x98, 0x80]))).to.equal('\\xff😀')
  })

  it('escapes line breaks, tabs, other controls, line separators, bidi controls and the backslash', () => {
    expect(displayName(Buffer.from('evil\nfake.txt  99 bytes'))).to.equal('evil\\nfake.txt  99 bytes')
    expect(displayName(Buffer.from('a\rb\tc\u001bd\u007f'))).to.equal('a\\rb\\tc\\x1bd\\x7f')
    expect(displayName(Buffer.from('x\u0085y\u2028z\u2029\u202e'))).to.equal('x\\u0085y\\u2028z\\u2029\\u202e')
    expect(displayName(Buffer.from('back\\slash'))).to.equal('back\\\\slash')
    // Format characters hide or reorder text: U+061C, zero-width, soft hyphen, BOM, a tag character.
    expect(displayName(Buffer.from('a\u061cb\u200bc\u00add\ufeffe\u{e0041}f'))).to.equal('a\\u061cb\\u200bc\\u00add\\ufeffe\\xf3\\xa0\\x81\\x81f')
    expect(parseDisplayPath('\\xf3\\xa0\\x81\\x81').equals(Buffer.from('\u{e0041}'))).to.equal(true)
    expect(displayName(Buffer.from([0x5c, 0xff]))).to.equal('\\\\\\xff')
  })

  it('takes every shown form back to the same bytes, for a thousand random names', () => {
    for (let round = 0; round < 1000; round++) {
      const bytes = randomBytes(1 + (round % 24))
      const shown = displayName(bytes)
      expect(shown, bytes.toString('hex')).to.not.match(/[\n\r\u2028\u2029\u0085]/)
      expect(parseDisplayPath(shown).equals(bytes), `${bytes.toString('hex')} shown as ${shown}`).to.equal(true)
    }
  })

  it('shows a name given as decoded text exactly as it shows its bytes', () => {
    const samples = ['plain.txt', 'a\\b', 'tab\there', 'caf\u00e9', '\u202eevil', 'zero\u200bwidth', '\u{1F600}', '\u0085next', 'x\u2028y', '\u{E0041}tag', 'del\u007f', '~']
    for (let code = 0; code < 0x3000; code += 7) samples.push(`n${String.fromCodePoint(code)}`)
    for (let round = 0; round < 300; round++) samples.push(randomBytes(12).toString('utf8').replaceAll('\uFFFD', ''))
    for (const text of samples) expect(displayText(text), JSON.stringify(text)).to.equal(displayName(Buffer.from(text)))
  })

  it('reads plain paths as UTF-8 and accepts raw control characters as themselves', () => {
    expect(parseDisplayPath('src/日本.ts').equals(Buffer.from('src/日本.ts'))).to.equal(true)
    expect(parseDisplayPath('a\nb').equals(Buffer.from('a\nb'))).to.equal(true)
    expect(parseDisplayPath('\\u00e9\\x41').equals(Buffer.from('éA'))).to.equal(true)
  })

  it('refuses a backslash that starts no escape, saying what the escapes are', () => {
    for (const [path, detail] of [
      ['src\\index.ts', '"\\i", which is not an escape'],
      ['a\\', 'a backslash at its end'],
      ['a\\xZ1', 'needs 2 hex digits'],
      ['a\\u12', 'needs 4 hex digits'],
      ['a\\ud800', 'a surrogate'],
    ] as const) {
      let error: unknown
      try {
        parseDisplayPath(path)
      } catch (caught) {
        error = caught
      }
      expect(error, path).to.be.instanceOf(BadInputError)
      expect((error as Error).message, path).to.contain(detail)
      expect((error as Error).message).to.contain('\\\\ for a backslash itself')
    }
  })

  it('escapes controls in text a client sent, but leaves its backslashes as typed', () => {
    expect(escapeControls('bad-\\xff\nnext')).to.equal('bad-\\xff\\nnext')
  })

  it('writes DEL as a byte, the first C1 control as a character, and a tag character as its UTF-8 bytes', () => {
    expect(escapeControls('\u007f\u0080\ufeff\u{e0041}')).to.equal('\\x7f\\u0080\\ufeff\\xf3\\xa0\\x81\\x81')
    expect(escapeControls('plain é')).to.equal('plain é')
  })

  it('shows a name of printable ASCII as it is, and escapes the bytes just outside that range', () => {
    expect(displayName(Buffer.from(' plain ~name'))).to.equal(' plain ~name')
    expect(displayName(Buffer.from([0x61, 0x1f]))).to.equal('a\\x1f')
    expect(displayName(Buffer.from([0x61, 0x7f]))).to.equal('a\\x7f')
    expect(displayName(Buffer.from('a\\b'))).to.equal('a\\\\b')
    expect(displayName(Buffer.from('é\\'))).to.equal('é\\\\')
    expect(displayName(Buffer.from([0xff, 0x5c, 0xc3, 0xa9, 0x5c]))).to.equal('\\xff\\\\é\\\\')
    for (const code of [0x1f, 0x20, 0x5b, 0x5c, 0x5d, 0x7e, 0x7f]) {
      const text = `n${String.fromCharCode(code)}x`
      expect(displayText(text), JSON.stringify(text)).to.equal(displayName(Buffer.from(text)))
    }
  })

  it('shows only the bytes of a view into a larger buffer', () => {
    const whole = Buffer.from([0x0a, 0x61, 0x62, 0xc3, 0xa9, 0xff, 0x0a])
    expect(displayName(whole.subarray(1, 3))).to.equal('ab')
    expect(displayName(whole.subarray(1, 5))).to.equal('abé')
    expect(displayName(whole.subarray(1, 6))).to.equal('abé\\xff')
  })

  it('tells well-formed UTF-8 sequences from others at every boundary of RFC 3629, as a strict decoder does', () => {
    const decoder = new TextDecoder('utf-8', {fatal: true})
    /** The display form built from a strict decoder: the longest well-formed sequence at each byte, else \xHH. */
    const expected = (bytes: number[]) => {
      let shown = ''
      for (let index = 0; index < bytes.length; ) {
        let length = 0
        for (let size = 4; size >= 1 && length === 0; size--) {
          try {
            const text = decoder.decode(Uint8Array.from(bytes.slice(index, index + size)))
            if ([...text].length === 1 && index + size <= bytes.length) length = size
          } catch {
            // not a whole character
          }
        }
        shown += length === 0 ? `\\x${(bytes[index] as number).toString(16).padStart(2, '0')}` : escapeControls(decoder.decode(Uint8Array.from(bytes.slice(index, index + length))))
        index += Math.max(length, 1)
      }
      return shown
    }
    const firsts = [0x7f, 0x80, 0xbf, 0xc0, 0xc1, 0xc2, 0xdf, 0xe0, 0xe1, 0xec, 0xed, 0xee, 0xef, 0xf0, 0xf1, 0xf3, 0xf4, 0xf5, 0xff]
    const continuations = [0x7f, 0x80, 0x8f, 0x90, 0x9f, 0xa0, 0xbf, 0xc0]
    for (const first of firsts) {
      for (const second of continuations) {
        for (const third of [0x80, 0xbf, 0xc0]) {
          for (const fourth of [0x80, 0xbf, 0x7f]) {
            // The leading 0xff keeps the name from being valid UTF-8 as a whole; the last lengths cut it short.
            for (const bytes of [[0xff, first, second, third, fourth], [0xff, first, second, third], [0xff, first, second]]) {
              expect(displayName(Buffer.from(bytes)), Buffer.from(bytes).toString('hex')).to.equal(expected(bytes))
            }
          }
        }
      }
    }
  })

  it('reads each escape, in either case of hex digit, between plain text', () => {
    expect(parseDisplayPath('a\\\\b\\nc\\rd\\te').equals(Buffer.from('a\\b\nc\rd\te'))).to.equal(true)
    expect(parseDisplayPath('x\\xFFy\\xa0z').equals(Buffer.from([0x78, 0xff, 0x79, 0xa0, 0x7a]))).to.equal(true)
    expect(parseDisplayPath('\\u00E9\\u00e9!').equals(Buffer.from('éé!'))).to.equal(true)
    expect(parseDisplayPath('\\ud7ff\\ue000').equals(Buffer.from('\ud7ff\ue000'))).to.equal(true)
  })

  it('refuses the escape of any surrogate, naming it, and says how to write a path', () => {
    for (const escape of ['\\ud800', '\\udbff', '\\udc00', '\\udfff']) expect(() => parseDisplayPath(`a${escape}`), escape).to.throw(BadInputError)
    expect(() => parseDisplayPath('dir/\\uD800x')).to.throw(
      BadInputError,
      'The path "dir/\\uD800x" has "\\uD800", a surrogate, which is not a character. In paths a backslash starts an escape, as tools show names: ' +
        '\\xHH for one byte, \\uHHHH for a character, \\n, \\r, \\t, and \\\\ for a backslash itself. Separate folders with "/".',
    )
    expect(() => parseDisplayPath('a\\x4')).to.throw(BadInputError, 'The path "a\\x4" has "\\x4", which needs 2 hex digits.')
    expect(() => parseDisplayPath('a\\x4g')).to.throw(BadInputError, 'The path "a\\x4g" has "\\x4g", which needs 2 hex digits.')
    expect(() => parseDisplayPath('\\q\n')).to.throw(BadInputError, 'The path "\\q\\n" has "\\q", which is not an escape.')
  })
})
