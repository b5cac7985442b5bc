import {expect} from 'chai'

import {findTable, lineEnding, parseHeader, removeTable, spliceTable, splitLines} from '../../../src/codex/toml-table-edit.js'

describe('toml-table-edit', () => {
  describe('parseHeader', () => {
    it('reads table and array-of-tables headers, with spaces, quoted keys and a trailing comment', () => {
      expect(parseHeader('[a.b]\n')).to.deep.equal({kind: 'table', key: ['a', 'b']})
      expect(parseHeader('[[a.b]]\r\n')).to.deep.equal({kind: 'array', key: ['a', 'b']})
      expect(parseHeader('  [ a . "b.c" . \'d\' ]  # note\n')).to.deep.equal({kind: 'table', key: ['a', 'b.c', 'd']})
      expect(parseHeader('["\\u0061"]')).to.deep.equal({kind: 'table', key: ['a']})
    })

    it('reads a header on the last line, without a line break', () => {
      expect(parseHeader('[a]')).to.deep.equal({kind: 'table', key: ['a']})
      expect(parseHeader('[a]#c')).to.deep.equal({kind: 'table', key: ['a']})
    })

    it('reads no header from other lines', () => {
      for (const line of ['a = 1\n', '[[a]\n', '[a]]\n', '[a b]\n', '[a..b]\n', '[]\n', '[a]x\n', '  [1, 2],\n', '  ["x"],\n', '# [a]\n']) {
        expect(parseHeader(line), line).to.equal(undefined)
      }
    })
  })

  describe('findTable', () => {
    const lines = (text: string) => splitLines(text)

    it('spans the header through the last content line, subtables included', () => {
      const text = 'x = 1\n[a.b]\nk = 1\n[a.b.c]\nm = 2\n\n# next\n[z]\n'
      expect(findTable(lines(text), ['a', 'b'])).to.deep.equal({start: 1, end: 5})
      expect(findTable(lines('[a.b]\n[[a.b.list]]\nk = 1\n[z]\n'), ['a', 'b'])).to.deep.equal({start: 0, end: 3})
    })

    it('ends the table at a header that is not below it, even a longer one', () => {
      for (const next of ['[a.bc]', '[a]', '[x.a.b]', '[a.x.b]']) {
        expect(findTable(lines(`[a.b]\nk = 1\n${next}\n`), ['a', 'b']), next).to.deep.equal({start: 0, end: 2})
      }
    })

    it('finds only a table header, not an array-of-tables header with the same key', () => {
      expect(findTable(lines('[[a.b]]\nk = 1\n'), ['a', 'b'])).to.equal(undefined)
    })

    it('keeps a table that has only its header', () => {
      expect(findTable(lines('[a]\n# about z\n[z]\n'), ['a'])).to.deep.equal({start: 0, end: 1})
      expect(findTable(lines('[a]'), ['a'])).to.deep.equal({start: 0, end: 1})
    })
  })

  describe('spliceTable', () => {
    it('appends after a blank line, ending an unterminated last line first', () => {
      expect(spliceTable(splitLines('x = 1'), undefined, ['[t]\n'], '\n')).to.equal('x = 1\n\n[t]\n')
      expect(spliceTable(splitLines('x = 1\r\n'), undefined, ['[t]\r\n'], '\r\n')).to.equal('x = 1\r\n\r\n[t]\r\n')
      expect(spliceTable(splitLines('x = 1\n\n'), undefined, ['[t]\n'], '\n')).to.equal('x = 1\n\n[t]\n')
      expect(spliceTable([], undefined, ['[t]\n'], '\n')).to.equal('[t]\n')
    })

    it('replaces the lines of a range', () => {
      expect(spliceTable(splitLines('a\n[t]\nk = 1\nz\n'), {start: 1, end: 3}, ['[t]\n', 'k = 2\n'], '\n')).to.equal('a\n[t]\nk = 2\nz\n')
    })
  })

  describe('removeTable', () => {
    it('takes the blank line before the table along when nothing but a blank line or the end follows', () => {
      expect(removeTable(splitLines('a = 1\n\n[t]\nk = 1\n'), {start: 2, end: 4})).to.equal('a = 1\n')
      expect(removeTable(splitLines('a = 1\n\n[t]\nk = 1\n\n[z]\n'), {start: 2, end: 4})).to.equal('a = 1\n\n[z]\n')
    })

    it('keeps the blank line before the table when a line follows it directly', () => {
      expect(removeTable(splitLines('a = 1\n\n[t]\nk = 1\n[z]\n'), {start: 2, end: 4})).to.equal('a = 1\n\n[z]\n')
      expect(removeTable(splitLines('a = 1\n\n[t]\nk = 1\n# about z\n[z]\n'), {start: 2, end: 4})).to.equal('a = 1\n\n# about z\n[z]\n')
    })

    it('removes a table at the start of the document', () => {
      expect(removeTable(splitLines('[t]\nk = 1\n\n[z]\n'), {start: 0, end: 2})).to.equal('\n[z]\n')
    })
  })

  describe('lineEnding', () => {
    it("takes the document's line terminator from its first line", () => {
      expect(lineEnding('a\r\nb\n')).to.equal('\r\n')
      expect(lineEnding('a\nb\r\n')).to.equal('\n')
      expect(lineEnding('\na\r\n')).to.equal('\n')
      expect(lineEnding('a')).to.equal('\n')
      expect(lineEnding('')).to.equal('\n')
    })
  })
})
