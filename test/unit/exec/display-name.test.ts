import {expect} from 'chai'
import {randomBytes} from 'node:crypto'

import {BadInputError} from '../../../src/errors.js'
import {displayName, parseDisplayPath} from '../../../src/exec/display-name.js'
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
})
