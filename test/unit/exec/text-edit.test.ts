import {expect} from 'chai'

import {BadInputError} from '../../../src/errors.js'
import {EDIT_MAX_RECORDED_SPANS, applyTextEdit, describeLines, whitespaceNearMatches} from '../../../src/exec/files/text-edit.js'
import {EDIT_NEAR_MATCH_MAX_CHARS} from '../../../src/exec/limits.js'

const edit = (content: string, oldText: string, newText: string, replaceAll = false) =>
  applyTextEdit(content, {oldText, newText, replaceAll})

function editError(content: string, oldText: string, newText: string, replaceAll = false): string {
  try {
    edit(content, oldText, newText, replaceAll)
  } catch (error) {
    expect(error).to.be.instanceOf(BadInputError)
    return (error as Error).message
  }
  throw new Error('expected the edit to be refused')
}

describe('applyTextEdit (what an edit does to a text)', () => {
  describe('literal replacement', () => {
    const patterns = ['$&', '$$', '$1', "$'", '$`', '$<name>', '\\1', '\\n', '$0$&$$']
    for (const pattern of patterns) {
      it(`keeps ${pattern} in new_text as typed`, () => {
        expect(edit('let a = 1\n', 'a = 1', `a = "${pattern}"`).text).to.equal(`let a = "${pattern}"\n`)
      })
    }

    it('treats regex characters in old_text as plain text', () => {
      for (const special of ['a.b', '(x)', '[0-9]+', 'a|b', '^start', 'end$', 'x*?', '\\d', '{1,2}']) {
        expect(edit(`before ${special} after\n`, special, 'Z').text, special).to.equal('before Z after\n')
        expect(() => edit('before aXb after\n', special, 'Z'), special).to.throw(BadInputError)
      }
    })

    it('treats regex characters literally in a multi-line old_text too', () => {
      const content = 'f(a.b)\r\n[x]\r\nend\r\n'
      expect(edit(content, 'f(a.b)\n[x]', 'g()\ny').text).to.equal('g()\r\ny\r\nend\r\n')
    })

    it('can delete text with an empty new_text', () => {
      expect(edit('keep drop keep\n', ' drop', '').text).to.equal('keep keep\n')
    })
  })

  describe('counting occurrences', () => {
    it('replaces the one occurrence and reports its line', () => {
      expect(edit('a\nb\nc\n', 'b', 'B')).to.deep.include({text: 'a\nB\nc\n', count: 1, lines: [2]})
    })

    it('refuses old_text that is not there, saying how to copy it right', () => {
      expect(editError('a\nb\n', 'z', 'y')).to.equal(
        'old_text was not found in the file. Read the file again and copy the text exactly, including ' +
          'whitespace and indentation (without the line numbers read adds).',
      )
    })

    it('refuses several occurrences, saying how many and on which lines', () => {
      const message = editError('x\nfoo\nbar\nfoo\nfoo foo\n', 'foo', 'baz')
      expect(message).to.equal(
        'old_text occurs 4 times (lines 2, 4, 5 (2 times)). Add surrounding lines to old_text so that it occurs once, ' +
          'or set replace_all to replace every occurrence.',
      )
    })

    it('lists at most 20 lines of a long list of occurrences', () => {
      const message = editError('x\n'.repeat(30), 'x', 'y')
      const lines = Array.from({length: 20}, (_, index) => index + 1).join(', ')
      expect(message).to.contain(`occurs 30 times (lines ${lines}, and 10 more occurrences).`)
      expect(editError('x\n'.repeat(21), 'x', 'y')).to.contain(`(lines ${lines}, and 1 more occurrence).`)
      expect(editError('x\n'.repeat(20), 'x', 'y')).to.contain(`(lines ${lines}).`)
    })

    it('replaces every occurrence with replace_all and reports their lines', () => {
      expect(edit('foo\nbar foo\nfoo\n', 'foo', 'baz', true)).to.deep.include({
        text: 'baz\nbar baz\nbaz\n',
        count: 3,
        lines: [1, 2, 3],
      })
    })

    it('still refuses a missing old_text with replace_all', () => {
      expect(editError('abc', 'x', 'y', true)).to.contain('not found')
    })

    it('refuses a single replacement when a second occurrence overlaps the first, saying where', () => {
      expect(editError('aaaa\n', 'aaa', 'X')).to.equal(
        'old_text occurs 2 times, overlapping (line 1): one occurrence starts inside another, so which one to replace is unclear. ' +
          'Add surrounding text to old_text so that it occurs once, or set replace_all to replace from the left, without overlaps.',
      )
      expect(editError('x\nababa', 'aba', 'X')).to.contain('occurs 2 times, overlapping (line 2)')
      expect(editError('a\nb\na\nb\na', 'a\nb\na', 'X')).to.contain('overlapping (lines 1, 3)')
      expect(edit('abab', 'aba', 'X')).to.deep.include({text: 'Xb', count: 1})
      expect(editError('xaaaa', 'aaa', 'X'), 'a first occurrence at character 1').to.contain('occurs 2 times, overlapping (line 1)')
      expect(editError('\uFEFFa\nb\na\nb\na', 'a\nb\na', 'X'), 'after a BOM').to.contain('overlapping (lines 1, 3)')
      expect(editError('\nx\nx\n', '\nx\n', 'Y'), 'an overlap starting with a line break').to.contain('overlapping (lines 1, 2)')
    })

    it('counts an overlap among several occurrences as several occurrences', () => {
      expect(editError('aaaa\naaa', 'aaa', 'X')).to.contain('old_text occurs 2 times (lines 1, 2).')
    })

    it('replaces non-overlapping occurrences from the left with replace_all', () => {
      expect(edit('aaa', 'aa', 'b', true)).to.deep.include({text: 'ba', count: 1, lines: [1]})
      expect(edit('aaaa', 'aa', 'b', true).text).to.equal('bb')
    })

    it('does not re-match inside the inserted text', () => {
      expect(edit('a a', 'a', 'aa', true).text).to.equal('aa aa')
    })

    it('refuses an empty old_text and a no-op edit', () => {
      expect(editError('abc', '', 'x')).to.equal(
        'old_text is empty. An empty old_text creates a new file; to change a file, pass the exact text to replace.',
      )
      expect(editError('abc', 'b', 'b')).to.equal('old_text and new_text are the same, so the edit would change nothing.')
    })

    it('matches whitespace and indentation exactly', () => {
      expect(editError('  indented\n', 'indented\n  ', 'x')).to.contain('not found')
      expect(editError('\tx\n', '    x', 'y')).to.contain('not found')
    })
  })

  describe('line endings', () => {
    it('keeps CRLF line endings when old_text uses \\n', () => {
      const content = 'one\r\ntwo\r\nthree\r\n'
      expect(edit(content, 'one\ntwo\n', 'uno\ndos\n').text).to.equal('uno\r\ndos\r\nthree\r\n')
    })

    it('writes new lines with CRLF in a CRLF file even when old_text has no line break', () => {
      expect(edit('a\r\nb\r\n', 'b', 'b\nc').text).to.equal('a\r\nb\r\nc\r\n')
      expect(edit('a\r\nlast', 'last', 'x\ny').text).to.equal('a\r\nx\r\ny')
    })

    it('accepts old_text given with CRLF on a CRLF file', () => {
      expect(edit('a\r\nb\r\n', 'a\r\nb', 'c\r\nd').text).to.equal('c\r\nd\r\n')
    })

    it('keeps LF line endings when old_text or new_text come with CRLF', () => {
      expect(edit('a\nb\nc\n', 'a\r\nb', 'x\r\ny').text).to.equal('x\ny\nc\n')
    })

    it('keeps each part of a mixed file in its own line ending', () => {
      const content = 'lf1\nlf2\ncr1\r\ncr2\r\n'
      expect(edit(content, 'lf2', 'lf2\nnew').text).to.equal('lf1\nlf2\nnew\ncr1\r\ncr2\r\n')
      expect(edit(content, 'cr1', 'cr1\nnew').text).to.equal('lf1\nlf2\ncr1\r\nnew\r\ncr2\r\n')
      // A match spanning both kinds takes the kind of its first line break.
      expect(edit(content, 'lf2\ncr1\ncr2', 'A\nB').text).to.equal('lf1\nA\nB\r\n')
    })

    it('counts a text that appears with both line endings in a mixed file as several occurrences', () => {
      const message = editError('a\nb\r\na\r\nb\n', 'a\nb', 'x')
      expect(message).to.contain('occurs 2 times (lines 1, 3)')
    })

    it('matches a leading line break together with its \\r', () => {
      expect(edit('a\r\nb\r\n', '\nb', '\nc').text).to.equal('a\r\nc\r\n')
    })

    it('leaves a lone \\r in new_text alone', () => {
      expect(edit('a\nb\n', 'a', 'x\ry').text).to.equal('x\ry\nb\n')
    })

    it('keeps the own ending of each line when replace_all changes lines of both kinds', () => {
      expect(edit('x\r\nx\n', 'x', 'y\nz', true).text).to.equal('y\r\nz\r\ny\nz\n')
      expect(edit('x\nx\r\n', 'x', 'y\nz', true).text).to.equal('y\nz\ny\r\nz\r\n')
      expect(edit('x x\r\nx\nx', 'x', 'y\r\nz', true).text).to.equal('y\r\nz y\r\nz\r\ny\nz\ny\nz')
      expect(edit('a\nx\r\nb\nx', 'x', 'y\nz', true).text).to.equal('a\ny\r\nz\r\nb\ny\nz')
    })

    it('gives an occurrence on a last line without a break the ending of the line before it', () => {
      expect(edit('a\r\nb\nx', 'x', 'y\nz').text).to.equal('a\r\nb\ny\nz')
      expect(edit('a\nb\r\nx', 'x', 'y\nz').text).to.equal('a\nb\r\ny\r\nz')
    })

    it('takes the ending of the line break inside the match over that of the line it ends on', () => {
      expect(edit('a\r\nb\n', 'a\nb', 'c\nd').text).to.equal('c\r\nd\n')
      expect(edit('a\nb\r\n', 'a\nb', 'c\nd').text).to.equal('c\nd\r\n')
    })

    it('uses \\n for new lines in a text without any line break', () => {
      expect(edit('single', 'single', 'two\r\nlines').text).to.equal('two\nlines')
    })
  })

  describe('BOM', () => {
    it('keeps a UTF-8 BOM and never counts it in a match', () => {
      expect(edit('\uFEFFfirst\nsecond\n', 'first', '1st').text).to.equal('\uFEFF1st\nsecond\n')
      expect(edit('\uFEFFa\r\nb\r\n', 'a\nb', 'c\nd').text).to.equal('\uFEFFc\r\nd\r\n')
    })

    it('never matches the BOM itself, even when old_text starts with one', () => {
      expect(editError('\uFEFFa\n', '\uFEFFa', 'b')).to.match(/^old_text was not found in the file/)
    })

    it('treats a U+FEFF that is not at the start as ordinary text', () => {
      expect(edit('a\uFEFF', 'a', 'b').text).to.equal('b\uFEFF')
      expect(edit('a\uFEFFb', '\uFEFF', '').text).to.equal('ab')
    })

    it('leaves a file without a BOM without one', () => {
      expect(edit('x', 'x', 'y').text).to.equal('y')
    })
  })

  describe('unicode', () => {
    const cases: Array<[string, string, string, string]> = [
      ['naïve café\n', 'café', 'bar', 'naïve bar\n'],
      ['emoji 😀 here\n', '😀', '🎉🎉', 'emoji 🎉🎉 here\n'],
      ['日本語のテキスト\n', '語の', 'GO', '日本GOテキスト\n'],
      ['e\u0301 and é\n', 'é', 'E', 'e\u0301 and E\n'], // no normalisation: only the precomposed é matches
      ['שלום עולם\n', 'עולם', 'world', 'שלום world\n'],
      ['zero\u200Bwidth\n', '\u200B', '-', 'zero-width\n'],
    ]
    for (const [content, oldText, newText, expected] of cases) {
      it(`replaces ${JSON.stringify(oldText)} in ${JSON.stringify(content)} exactly`, () => {
        expect(edit(content, oldText, newText).text).to.equal(expected)
      })
    }

    it('reports the line an occurrence starts on when it starts with a line break', () => {
      expect(edit('a\nb\n', '\nb', 'X').lines).to.deep.equal([1])
      expect(edit('a\r\nb\r\nc', '\nc', '\nC', true).lines).to.deep.equal([2])
    })

    it('reports lines correctly after multibyte characters', () => {
      expect(edit('😀😀\n日本\nmark\n', 'mark', 'x').lines).to.deep.equal([3])
    })
  })

  describe('against a straightforward reference on many generated inputs', () => {
    // Deterministic pseudo-random texts over a small alphabet, so occurrences are frequent.
    let seed = 42
    const random = () => {
      seed = (seed * 1_103_515_245 + 12_345) % 2 ** 31
      return seed / 2 ** 31
    }
    const alphabet = ['a', 'b', '$', '&', 'é', '😀', ' ']
    const word = (length: number) => Array.from({length}, () => alphabet[Math.floor(random() * alphabet.length)]).join('')

    it('matches split/join for single-line texts, with and without replace_all', () => {
      for (let round = 0; round < 400; round++) {
        const content = Array.from({length: 1 + Math.floor(random() * 4)}, () => word(Math.floor(random() * 12))).join('\n')
        const oldText = word(1 + Math.floor(random() * 3))
        const newText = word(Math.floor(random() * 4))
        if (oldText === newText) continue
        const count = content.split(oldText).length - 1
        const label = JSON.stringify({content, oldText, newText})
        if (count === 0) {
          expect(() => edit(content, oldText, newText), label).to.throw(BadInputError, 'not found')
          continue
        }
        const all = edit(content, oldText, newText, true)
        expect(all.text, label).to.equal(content.split(oldText).join(newText))
        expect(all.count, label).to.equal(count)
        if (count === 1) expect(edit(content, oldText, newText).text, label).to.equal(all.text)
        else expect(() => edit(content, oldText, newText), label).to.throw(BadInputError, `occurs ${count} times`)
      }
    })

    it('gives the same result on the CRLF form of a text as on its LF form, converted', () => {
      for (let round = 0; round < 300; round++) {
        const lines = Array.from({length: 2 + Math.floor(random() * 5)}, () => word(1 + Math.floor(random() * 5)))
        const content = lines.join('\n') + '\n'
        const start = Math.floor(random() * (lines.length - 1))
        const oldText = lines.slice(start, start + 2).join('\n')
        const newText = `${word(2)}\n${word(2)}`
        if (oldText === newText) continue
        let lfResult
        try {
          lfResult = edit(content, oldText, newText, true)
        } catch {
          continue
        }
        const crlf = edit(content.replaceAll('\n', '\r\n'), oldText, newText, true)
        expect(crlf.text).to.equal(lfResult.text.replaceAll('\n', '\r\n'))
        expect(crlf.lines).to.deep.equal(lfResult.lines)
      }
    })
  })
})

describe('applyTextEdit spans', () => {
  it('says where each replacement sits in the old and the new text, BOM included', () => {
    const result = applyTextEdit('\uFEFFab ab\n', {oldText: 'ab', newText: 'xyz', replaceAll: true})
    expect(result.spans).to.deep.equal([
      {oldStart: 1, oldEnd: 3, newStart: 1, newEnd: 4},
      {oldStart: 4, oldEnd: 6, newStart: 5, newEnd: 8},
    ])
  })

  describe('many occurrences', () => {
    it('replaces them all but records the place of only the first ones', () => {
      const count = EDIT_MAX_RECORDED_SPANS * 3
      const result = edit('ab\r\n'.repeat(count), 'b\n', 'c\nd\n', true)
      expect(result.count).to.equal(count)
      expect(result.text).to.equal('ac\r\nd\r\n'.repeat(count))
      expect(result.spans).to.have.length(EDIT_MAX_RECORDED_SPANS)
      expect(result.lines).to.have.length(EDIT_MAX_RECORDED_SPANS)
      expect(result.lines.at(-1)).to.equal(EDIT_MAX_RECORDED_SPANS)
    })

    it('still says how often old_text occurs when it is ambiguous', () => {
      const message = editError('x\n'.repeat(EDIT_MAX_RECORDED_SPANS * 2), 'x', 'y')
      expect(message).to.contain(`occurs ${EDIT_MAX_RECORDED_SPANS * 2} times (lines 1, 2, 3,`)
      expect(message).to.contain(`and ${EDIT_MAX_RECORDED_SPANS * 2 - 20} more`)
    })
  })

  describe('messages name each line once', () => {
    it('gives a line holding several occurrences once, with its count', () => {
      expect(editError('x x\ny\nx\n', 'x', 'z')).to.contain('occurs 3 times (lines 1 (2 times), 3).')
      expect(editError('aa aa aa\n', 'aa', 'b')).to.contain('occurs 3 times (line 1 (3 times)).')
    })

    it('describes lines for the replace_all summary the same way', () => {
      expect(describeLines([4])).to.equal('line 4')
      expect(describeLines([1, 1, 3, 4, 4, 4])).to.equal('lines 1 (2 times), 3, 4 (3 times)')
      const many = Array.from({length: 25}, (_, index) => index + 1)
      expect(describeLines([...many, 25], 30)).to.match(/^lines 1, 2, .*, 20, and 10 more occurrences$/)
      expect(describeLines([1, 1], 5), 'the unrecorded occurrences may lie on other lines').to.equal('lines 1 (2 times), and 3 more occurrences')
    })
  })

  describe('near matches when only whitespace differs', () => {
    const file = 'a\nb\n  function f() {\n\treturn 1;  \n  }\nz\n'

    it('says where old_text would match if whitespace were ignored, and changes nothing', () => {
      const missingIndent = editError(file, 'function f() {\n  return 1;\n}', 'x')
      expect(missingIndent).to.match(/^old_text was not found in the file, but it matches lines 3-5 if whitespace is ignored/)
      expect(missingIndent).to.contain('Nothing was changed.')
      expect(editError(file, 'return   1;', 'x')).to.match(/matches line 4 if whitespace is ignored/)
      expect(editError('\tif (a) {\n\tif (a) {\n', '    if (a) {', 'x')).to.equal(
        editError('\tif (a) {\n\tif (a) {\n', '  if (a) {', 'x'),
      )
      expect(editError('\tif (a) {\n\tif (a) {\n', '    if (a) {', 'x')).to.match(/matches lines 1, 2 if whitespace/)
    })

    it('finds trailing spaces, tabs for spaces and CRLF files', () => {
      expect(whitespaceNearMatches('one  \r\ntwo\r\n', 'one\ntwo')).to.deep.equal([{first: 1, last: 2}])
      expect(whitespaceNearMatches('x\n\t\tdeep();\n', '        deep();')).to.deep.equal([{first: 2, last: 2}])
    })

    it('looks for a near match in files up to EDIT_NEAR_MATCH_MAX_CHARS only, in linear time', () => {
      const large = `${'x'.repeat(99)}\n`.repeat(Math.ceil(EDIT_NEAR_MATCH_MAX_CHARS / 100) + 1)
      expect(whitespaceNearMatches(large, 'x x')).to.deep.equal([])
      const fits = large.slice(0, EDIT_NEAR_MATCH_MAX_CHARS - 100)
      expect(whitespaceNearMatches(fits, `${'x'.repeat(3000)}Q`)).to.deep.equal([])
      expect(whitespaceNearMatches(`${fits}y\n  z\n`, 'y z')).to.have.length(1)
      const exactly = `${'q'.repeat(EDIT_NEAR_MATCH_MAX_CHARS - 5)}y\n  z`
      expect(exactly.length).to.equal(EDIT_NEAR_MATCH_MAX_CHARS)
      expect(whitespaceNearMatches(exactly, 'y z'), 'a file of exactly the limit is looked through').to.have.length(1)
    })

    it('names at most five near matches', () => {
      const text = 'a  b\n'.repeat(7)
      expect(whitespaceNearMatches(text, 'a b')).to.have.length(5)
      expect(editError(text, 'a b', 'x')).to.contain('matches lines 1, 2, 3, 4, 5 if whitespace is ignored')
    })

    it('says plain "not found" when no near match exists, or old_text is only whitespace', () => {
      expect(editError(file, 'function g()', 'x')).to.match(/^old_text was not found in the file\. Read the file again/)
      expect(editError(file, '   \t', 'x')).to.match(/^old_text was not found in the file\. Read the file again/)
      expect(whitespaceNearMatches(file, 'a.b')).to.deep.equal([])
      expect(whitespaceNearMatches('(x)[y]{z}$^|\\/', '(x) [y] {z} $^|\\/')).to.deep.equal([{first: 1, last: 1}])
    })
  })
})
