import {expect} from 'chai'
import {applyPatch, createTwoFilesPatch} from 'diff'

import {
  DIFF_CONTEXT_LINES,
  DIFF_MAX_EDIT_LINES,
  DIFF_MAX_LIBRARY_CHARS,
  DIFF_MAX_LINE_CHARS,
  capText,
  clipLine,
  unifiedDiff,
} from '../../../src/exec/files/edit-diff.js'
import {isWellFormed} from '../../helpers/text.js'
import {EDIT_MAX_RECORDED_SPANS, applyTextEdit} from '../../../src/exec/files/text-edit.js'

/** The diff of an edit of `before`, as the edit tool shows it. */
function diffOf(before: string, oldText: string, newText: string, replaceAll = false, maxChars = 1_000_000) {
  const result = applyTextEdit(before, {oldText, newText, replaceAll})
  return {after: result.text, diff: unifiedDiff('f.txt', before, result.text, result.spans, maxChars)}
}

/** jsdiff's own diff of the whole texts, headers as the edit tool writes them. */
function wholeFileDiff(before: string, after: string): string {
  const lines = createTwoFilesPatch('a/f.txt', 'b/f.txt', before, after, undefined, undefined, {context: 3}).split('\n')
  return lines.slice(lines.findIndex((line) => line.startsWith('--- '))).join('\n').replace(/\n+$/, '')
}

const numbered = (count: number, word = 'line') => Array.from({length: count}, (_, i) => `${word} ${i + 1}`).join('\n') + '\n'

describe('unifiedDiff (the diff an edit answers with)', () => {
  it('shows the change with three lines of context, like git diff', () => {
    const before = 'l1\nl2\nl3\nl4\nl5\nl6\nl7\n'
    expect(diffOf(before, 'l4', 'L4').diff).to.equal(
      ['--- a/f.txt', '+++ b/f.txt', '@@ -1,7 +1,7 @@', ' l1', ' l2', ' l3', '-l4', '+L4', ' l5', ' l6', ' l7'].join('\n'),
    )
  })

  it('names the file in its display form, as every answer does, not in octal quoting', () => {
    for (const shown of ['caf\u00e9.txt', 'bad\\xff.txt', 'a\\nb.txt', 'with space.txt', 'back\\\\slash']) {
      const before = 'x\n'
      const result = applyTextEdit(before, {oldText: 'x', newText: 'y', replaceAll: false})
      const lines = unifiedDiff(shown, before, result.text, result.spans, 1_000_000).split('\n')
      expect(lines.slice(0, 2), shown).to.deep.equal([`--- a/${shown}`, `+++ b/${shown}`])
    }
    expect(unifiedDiff('new.txt', undefined, 'x\n', [], 1_000_000).split('\n').slice(0, 2)).to.deep.equal(['--- /dev/null', '+++ b/new.txt'])
  })

  it('shows exactly DIFF_CONTEXT_LINES unchanged lines on each side of a change', () => {
    const {diff} = diffOf(numbered(20), 'line 10\n', 'ten\n')
    const context = (from: number) => Array.from({length: DIFF_CONTEXT_LINES}, (_, i) => ` line ${from + i}`)
    expect(diff.split('\n')).to.deep.equal(['--- a/f.txt', '+++ b/f.txt', '@@ -7,7 +7,7 @@', ...context(7), '-line 10', '+ten', ...context(11)])
  })

  it('gives the same diff as a whole-file diff for changes near, far and at the ends', () => {
    const before = numbered(100)
    const cases: Array<[string, string, boolean]> = [
      ['line 1\n', 'first\nline\n', false],
      ['line 100\n', 'last', false],
      ['line 50\nline 51\n', 'middle\n', false],
      ['line 7\n', 'seven\n', true],
      ['0\n', '0 (tens)\n', true], // lines 10, 20, … 100: far apart, one hunk each
      ['line 4\n', 'LINE 4\n', false],
    ]
    for (const [oldText, newText, replaceAll] of cases) {
      const {after, diff} = diffOf(before, oldText, newText, replaceAll)
      expect(diff, JSON.stringify(oldText)).to.equal(wholeFileDiff(before, after))
    }
  })

  it('merges changes up to six lines apart into one hunk, as jsdiff does', () => {
    const before = numbered(40, 'x').replace('x 10\n', 'hit\n').replace('x 17\n', 'hit\n').replace('x 30\n', 'hit\n')
    const {after, diff} = diffOf(before, 'hit', 'HIT', true)
    expect(diff.match(/^@@/gm)).to.have.length(2)
    expect(diff).to.equal(wholeFileDiff(before, after))
  })

  it('keeps the end of a file without a final line break visible', () => {
    const {diff} = diffOf('a\nb\nc', 'c', 'C')
    expect(diff).to.contain('\\ No newline at end of file')
  })

  it('leaves the BOM out and still counts lines right', () => {
    const {diff} = diffOf('\uFEFFa\nb\n', 'b', 'B')
    expect(diff).to.equal(['--- a/f.txt', '+++ b/f.txt', '@@ -1,2 +1,2 @@', ' a', '-b', '+B'].join('\n'))
  })

  it('applies back to the new text, for many generated edits', () => {
    let seed = 7
    const random = (n: number) => {
      seed = (seed * 1_103_515_245 + 12_345) % 2 ** 31
      return Math.floor((seed / 2 ** 31) * n)
    }
    const words = ['a', 'b', 'c', 'a b', '', 'é😀', 'x\r']
    for (let round = 0; round < 300; round++) {
      const before = Array.from({length: 1 + random(40)}, () => words[random(words.length)]).join('\n') + (random(2) ? '\n' : '')
      const oldText = ['a', 'b', 'a\nb', 'c\n', '\nc'][random(5)] as string
      const newText = ['', 'Z', 'Y\nY', 'a'][random(4)] as string
      let edited
      try {
        edited = diffOf(before, oldText, newText, true)
      } catch {
        continue // not found, or nothing to change
      }
      const label = JSON.stringify({before, oldText, newText})
      expect(applyPatch(before, edited.diff), label).to.equal(edited.after)
    }
  })

  it('lists old then new lines when a cluster has too many changed lines for a line diff', () => {
    for (const ending of ['\n', '']) {
      const before = numbered(1500).slice(0, ending ? undefined : -1)
      const {after, diff} = diffOf(before, 'line', 'row', true)
      expect(diff.match(/^@@/gm)).to.have.length(1)
      expect(applyPatch(before, diff)).to.equal(after)
    }
  })

  describe('the plain listing that replaces a line diff too costly for jsdiff', () => {
    /** `count` changed lines, each followed by an unchanged one, so a line diff interleaves them. */
    const alternating = (count: number) => Array.from({length: count}, (_, i) => `hit ${i}\nkeep ${i}`).join('\n') + '\n'
    const signs = (diff: string) => diff.split('\n').slice(3).map((line) => line[0]).join('')

    it('uses a line diff while the changed lines need fewer than DIFF_MAX_EDIT_LINES line edits', () => {
      const before = alternating(DIFF_MAX_EDIT_LINES / 2 - 10)
      const {after, diff} = diffOf(before, 'hit', 'HIT', true)
      expect(diff).to.equal(wholeFileDiff(before, after))
      expect(signs(diff).startsWith('-+ -+ ')).to.equal(true)
    })

    it('lists every old line then every new line past DIFF_MAX_EDIT_LINES line edits', () => {
      const count = DIFF_MAX_EDIT_LINES / 2 + 10
      const before = alternating(count)
      const {after, diff} = diffOf(before, 'hit', 'HIT', true)
      // The last unchanged line is shared by both sides, so it is context.
      expect(signs(diff)).to.equal(`${'-'.repeat(2 * count - 1)}${'+'.repeat(2 * count - 1)} `)
      expect(diff).to.contain(`@@ -1,${2 * count} +1,${2 * count} @@`)
      expect(applyPatch(before, diff)).to.equal(after)
    })

    it('uses a line diff for a region of exactly DIFF_MAX_LIBRARY_CHARS characters, old and new', () => {
      // Old and new region: "x\n" + long line + "\nx\n", each (DIFF_MAX_LIBRARY_CHARS) / 2 long.
      const before = `x\n${'a'.repeat((DIFF_MAX_LIBRARY_CHARS - 10) / 2)}\nx\n`
      const {diff} = diffOf(before, 'x', 'y', true)
      expect(signs(diff)).to.equal('-+ -+')
    })

    it('lists old then new lines for a larger region, however few lines changed', () => {
      const before = `x\n${'a'.repeat((DIFF_MAX_LIBRARY_CHARS - 10) / 2 + 1)}\nx\n`
      const {diff} = diffOf(before, 'x', 'y', true)
      expect(signs(diff)).to.equal('---+++')
      expect(diff).to.contain('@@ -1,3 +1,3 @@')
      expect(diff).to.contain('characters clipped]')
    })
  })

  it('shows the unchanged lines around such a cluster as context', () => {
    const before = `keep 1\nkeep 2\n${numbered(1500)}keep 3\nkeep 4`
    const {after, diff} = diffOf(before, 'line', 'row', true)
    expect(diff).to.contain('\n keep 2\n')
    expect(diff).to.contain('\n keep 4\n\\ No newline at end of file')
    expect(applyPatch(before, diff)).to.equal(after)
  })

  it('shows a new file against /dev/null, leaving out a BOM', () => {
    expect(unifiedDiff('n.txt', undefined, '\uFEFFhi\nthere\n', [], 1000)).to.equal(
      ['--- /dev/null', '+++ b/n.txt', '@@ -0,0 +1,2 @@', '+hi', '+there'].join('\n'),
    )
    expect(unifiedDiff('n.txt', undefined, 'no break', [], 1000)).to.contain('+no break\n\\ No newline at end of file')
  })

  it('stops at the character budget with a note, even for a replace_all over a large file', () => {
    const before = numbered(200_000)
    const {diff} = diffOf(before, 'line', 'row', true, 2000)
    expect(diff.length).to.be.below(2200)
    expect(diff).to.match(/\[Diff cut after \d+ characters: the rest is not shown\. Read the file to see the result\.\]$/)
    const created = unifiedDiff('big.txt', undefined, before, [], 2000)
    expect(created).to.contain('@@ -0,0 +1,200000 @@')
    expect(created).to.match(/\[Diff cut after \d+ characters/)
  })
})

describe('unifiedDiff of very long lines', () => {
  it('shows the changed characters of a 1 MB line, clipped around them with notes of what was left out', () => {
    const before = `${'a'.repeat(600_000)}OLD${'b'.repeat(400_000)}\nnext\n`
    const {diff} = diffOf(before, 'OLD', 'NEW')
    expect(diff).to.contain('@@ -1,2 +1,2 @@')
    const removed = diff.split('\n').find((line) => line.startsWith('-a') || line.startsWith('-['))
    const added = diff.split('\n').find((line) => line.startsWith('+a') || line.startsWith('+['))
    expect(removed).to.contain('OLD')
    expect(added).to.contain('NEW')
    expect(added).to.match(/\d+ characters clipped/)
    expect(diff).to.contain('\n next')
    expect(diff).to.not.contain('-next')
    expect(diff.length).to.be.below(5000)
  })

  it('shows the change of a long line even when it is far into the line and the budget is small', () => {
    const before = `${'a'.repeat(5_000_000)}OLD${'b'.repeat(10)}\n`
    const {diff} = diffOf(before, 'OLD', 'NEW', false, 2000)
    expect(diff).to.contain('NEW')
    expect(diff).to.contain('OLD')
  })

  it('shows the first changes of a line with more replacements than are recorded', () => {
    const before = `${'x'.repeat(3_000_000)}\n`
    const {diff} = diffOf(before, 'x', 'y', true)
    expect(diff).to.contain('+yyyyyyyyyy')
    expect(diff).to.contain('-xxxxxxxxxx')
    expect(diff.length).to.be.below(21_000)
  })
})

describe('capText', () => {
  it('leaves a short text alone and cuts a long one at a line with a note', () => {
    expect(capText('abc', 10)).to.equal('abc')
    expect(capText('line1\nline2\nline3\n', 8)).to.match(/^line1\n\[Diff cut after 5 characters/)
    expect(capText('short', 100, true)).to.match(/^short\n\[Diff cut/)
  })
})

describe('diff clipping counts characters as code points', () => {
  it('keeps a line of astral characters whole up to the limit in code points', () => {
    const line = '😀'.repeat(DIFF_MAX_LINE_CHARS)
    expect(clipLine(line, 0)).to.equal(line)
  })

  it('clips a long astral line by code points, naming how many it left out, never splitting a pair', () => {
    const line = '😀'.repeat(1000) + 'X' + '😀'.repeat(1000)
    const clipped = clipLine(line, line.indexOf('X'))
    const match = /^\[(\d+) characters clipped\]…(.*)…\[(\d+) characters clipped\]$/u.exec(clipped)
    expect(match, clipped.slice(0, 80)).to.not.equal(null)
    const [, before, kept, after] = match as unknown as [string, string, string, string]
    expect([...kept]).to.have.length(DIFF_MAX_LINE_CHARS)
    expect(kept).to.contain('X')
    expect(Number(before) + [...kept].length + Number(after)).to.equal(2001)
    expect(isWellFormed(clipped)).to.equal(true)
  })

  it('cuts a diff after maxChars code points and says how many it kept', () => {
    const text = `${'😀'.repeat(6)}\n${'😀'.repeat(6)}\n`
    expect(capText(text, 13)).to.equal(`${text.slice(0, -1)}\n[Diff cut after 13 characters: the rest is not shown. Read the file to see the result.]`)
    expect(capText(text, 14)).to.equal(text)
    expect(capText(text, 10)).to.match(/^(😀){6}\n\[Diff cut after 6 characters/u)
  })
})

describe('unifiedDiff, exact shapes of its plain listings and cuts', () => {
  const diffOfAll = (before: string, oldText: string, newText: string, maxChars = 1_000_000) => {
    const result = applyTextEdit(before, {oldText, newText, replaceAll: true})
    return unifiedDiff('f.txt', before, result.text, result.spans, maxChars, {isComplete: result.spans.length === result.count})
  }
  /** A line long enough that a region holding it is listed plainly instead of diffed by jsdiff. */
  const long = 'a'.repeat(DIFF_MAX_LIBRARY_CHARS / 2)
  const body = (diff: string) => diff.split('\n').slice(3).map((line) => (line.length > 60 ? `${line[0]}<long>` : line))

  it('shows the lines both sides share at the start and the end of a plain listing as context', () => {
    expect(body(diffOfAll(`c1\nc2\nx\n${long}\nx\nc3\nc4\n`, 'x', 'y'))).to.deep.equal([' c1', ' c2', '-x', '-<long>', '-x', '+y', '+<long>', '+y', ' c3', ' c4'])
  })

  it('keeps the note of a missing final line break after shared last lines', () => {
    expect(body(diffOfAll(`c1\nx\n${long}\nx\nc2`, 'x', 'y'))).to.deep.equal([' c1', '-x', '-<long>', '-x', '+y', '+<long>', '+y', ' c2', '\\ No newline at end of file'])
  })

  it('leaves the note of a missing final line break with each side when the last line changed', () => {
    expect(body(diffOfAll(`x\n${long}\nx`, 'x', 'y'))).to.deep.equal([
      '-x',
      '-<long>',
      '-x',
      '\\ No newline at end of file',
      '+y',
      '+<long>',
      '+y',
      '\\ No newline at end of file',
    ])
  })

  it('marks a line shown only up to the replacements that were recorded', () => {
    const lines = diffOfAll(`${'x'.repeat(EDIT_MAX_RECORDED_SPANS * 2)}\nend\n`, 'x', 'y').split('\n')
    const note = ' …[the rest of this line is not shown]'
    expect(lines.slice(0, 3)).to.deep.equal(['--- a/f.txt', '+++ b/f.txt', '@@ -1,1 +1,1 @@'])
    expect(lines[3]?.startsWith('-xxx') && lines[3].endsWith(note)).to.equal(true)
    expect(lines[4]?.startsWith('+yyy') && lines[4].endsWith(note)).to.equal(true)
    expect(lines.at(-1)).to.match(/^\[Diff cut after \d+ characters: the rest is not shown\. Read the file to see the result\.\]$/)
  })

  it('shows an empty new file as headers alone, a BOM alone included', () => {
    for (const text of ['', '\uFEFF']) expect(unifiedDiff('n.txt', undefined, text, [], 1000)).to.equal('--- /dev/null\n+++ b/n.txt')
  })

  it('lists a new file only as far as the budget, with the note and no end-of-file note', () => {
    const text = Array.from({length: 100}, (_, index) => `line ${index}`).join('\n')
    const diff = unifiedDiff('n.txt', undefined, text, [], 60)
    const lines = diff.split('\n')
    expect(lines.slice(0, 4)).to.deep.equal(['--- /dev/null', '+++ b/n.txt', '@@ -0,0 +1,100 @@', '+line 0'])
    expect(diff).not.to.contain('No newline')
    expect(lines.at(-1)).to.match(/^\[Diff cut after \d+ characters/)
  })
})

describe('unifiedDiff within a character budget', () => {
  // Changes every 15 lines: a hunk each, far more than small budgets hold.
  // Built inside each test, not when the file loads, so that what they run counts for the tests.
  const before = Array.from({length: 400}, (_, i) => (i % 15 === 7 ? `hit ${i}` : `line ${i}`)).join('\n') + '\n'
  const edited = () => {
    const result = applyTextEdit(before, {oldText: 'hit', newText: 'HIT', replaceAll: true})
    return {result, full: unifiedDiff('f.txt', before, result.text, result.spans, 1_000_000)}
  }

  it('fills the budget with the hunks of the whole diff, in order, and says where it cut', () => {
    const {result, full} = edited()
    for (const maxChars of [200, 333, 500, 777, 1000, 1500]) {
      const lines = unifiedDiff('f.txt', before, result.text, result.spans, maxChars).split('\n')
      const note = lines.pop() as string
      const kept = lines.join('\n')
      expect(note, String(maxChars)).to.equal(`[Diff cut after ${kept.length} characters: the rest is not shown. Read the file to see the result.]`)
      expect(kept.length, String(maxChars)).to.be.at.most(maxChars)
      expect(kept.length, String(maxChars)).to.be.above(maxChars - 20) // lines here are shorter than 20 characters
      // Every hunk before the last shown one is exactly the whole diff's.
      const lastHunk = lines.findLastIndex((line) => line.startsWith('@@'))
      expect(lines.slice(0, lastHunk), String(maxChars)).to.deep.equal(full.split('\n').slice(0, lastHunk))
    }
  })

  it('fills the budget as well when the replacements remove text or add more than they remove', () => {
    const lines = `${'x'.repeat(100)}\n`.repeat(200)
    for (const newText of ['', 'y'.repeat(100), 'y'.repeat(300)]) {
      const edited = applyTextEdit(lines, {oldText: 'x'.repeat(100), newText, replaceAll: true})
      const shown = unifiedDiff('f.txt', lines, edited.text, edited.spans, 2000).split('\n')
      expect(shown.pop(), String(newText.length)).to.match(/^\[Diff cut after \d+ characters/)
      const kept = shown.join('\n').length
      // Each change shows a removed and an added line; the next one may not fit whole.
      expect(kept, String(newText.length)).to.be.at.most(2000)
      expect(kept, String(newText.length)).to.be.above(2000 - 2 * (Math.max(100, newText.length) + 2))
    }
  })

  it('shows everything without a note when the diff fits', () => {
    const {result, full} = edited()
    expect(unifiedDiff('f.txt', before, result.text, result.spans, full.length)).to.equal(full)
    expect(full).not.to.contain('[Diff cut')
    expect(full.match(/^@@/gm)).to.have.length(27)
  })
})

describe('unifiedDiff, where lines and hunks begin and end', () => {
  it('counts lines right in a file that starts with an empty line', () => {
    for (const before of ['\nx\ny\n', '\n\nx\ny\nz\n']) {
      const {after, diff} = diffOf(before, 'y', 'Y')
      expect(diff, JSON.stringify(before)).to.equal(wholeFileDiff(before, after))
    }
  })

  it('merges a change spanning several lines with one that starts six lines after its end', () => {
    const block = 'a\nb\nc\nd\ne\n'
    const before = `${block}${numbered(6, 'gap')}${block}${numbered(5, 'tail')}`
    const {after, diff} = diffOf(before, block, 'X\n', true)
    expect(diff.match(/^@@/gm)).to.have.length(1)
    expect(diff).to.equal(wholeFileDiff(before, after))
  })

  it('shows a change far into a file in whole when the budget holds it', () => {
    const before = `${'z\n'.repeat(5000)}hit\nhit\nend\n`
    const {after, diff} = diffOf(before, 'hit', 'HIT', true, 1000)
    expect(diff).to.equal(wholeFileDiff(before, after))
  })

  it('removes the last line of a file with the lines before it as context', () => {
    expect(diffOf('a\nb\nc\n', 'c\n', '').diff).to.equal(['--- a/f.txt', '+++ b/f.txt', '@@ -1,3 +1,2 @@', ' a', ' b', '-c'].join('\n'))
  })

  it('shows headers alone when there is no replacement', () => {
    expect(unifiedDiff('f.txt', 'a\n', 'a\n', [], 1000)).to.equal('--- a/f.txt\n+++ b/f.txt')
  })

  it('keeps the BOM of the new text when only the new text starts with one', () => {
    const {after, diff} = diffOf('a\nb\n', 'a', '\uFEFFa')
    expect(after).to.equal('\uFEFFa\nb\n')
    expect(diff).to.equal(['--- a/f.txt', '+++ b/f.txt', '@@ -1,2 +1,2 @@', '-a', '+\uFEFFa', ' b'].join('\n'))
  })

  it('fills the budget of a new file of astral characters counted as code points, with the note', () => {
    const text = `${'😀'.repeat(10)}\n`.repeat(200)
    const diff = unifiedDiff('n.txt', undefined, text, [], 1000)
    const lines = diff.split('\n')
    expect(lines.at(-1)).to.match(/^\[Diff cut after \d+ characters: the rest is not shown\. Read the file to see the result\.\]$/)
    const kept = [...lines.slice(0, -1).join('\n')].length
    expect(kept).to.be.at.most(1000)
    expect(kept).to.be.above(1000 - 12)
    expect(diff).not.to.contain('No newline')
  })
})

describe('unifiedDiff, long lines beside a change', () => {
  const long = 'x'.repeat(1000)

  it('clips a long unchanged line shown as context, from its start', () => {
    const {diff} = diffOf(`${long}\nold\n`, 'old', 'new')
    expect(diff.split('\n').slice(2)).to.deep.equal(['@@ -1,2 +1,2 @@', ` ${'x'.repeat(400)}…[600 characters clipped]`, '-old', '+new'])
  })

  it('clips a long added line that pairs with no removed line, from its start', () => {
    const {diff} = diffOf('a\nold\nb\n', 'old', `new\n${long}`)
    expect(diff.split('\n').slice(2)).to.deep.equal([
      '@@ -1,3 +1,4 @@',
      ' a',
      '-old',
      '+new',
      `+${'x'.repeat(400)}…[600 characters clipped]`,
      ' b',
    ])
  })

  it('clips a changed long line after context around its change, on both sides', () => {
    const before = `ctx\n${'a'.repeat(600_000)}OLD${'b'.repeat(400_000)}\n`
    const lines = diffOf(before, 'OLD', 'NEW').diff.split('\n')
    const window = (word: string) => `-[599900 characters clipped]…${'a'.repeat(100)}${word}${'b'.repeat(297)}…[399703 characters clipped]`
    expect(lines.slice(2)).to.deep.equal(['@@ -1,2 +1,2 @@', ' ctx', window('OLD'), `+${window('NEW').slice(1)}`])
  })
})

describe('clipLine', () => {
  it('shows the last DIFF_MAX_LINE_CHARS characters of a line changed near its end, with no note after', () => {
    const line = `${'a'.repeat(990)}0123456789`
    expect(clipLine(line, 995)).to.equal(`[600 characters clipped]…${line.slice(600)}`)
  })

  it('shows a quarter of the window before the change and the rest after it', () => {
    const line = `${'a'.repeat(500)}X${'b'.repeat(999)}`
    expect(clipLine(line, 500)).to.equal(`[400 characters clipped]…${'a'.repeat(100)}X${'b'.repeat(299)}…[700 characters clipped]`)
  })
})

describe('unifiedDiff, plain listings of regions too large for a line diff', () => {
  /** A line long enough that a region holding it is listed plainly instead of diffed by jsdiff. */
  const long = 'a'.repeat(DIFF_MAX_LIBRARY_CHARS / 2)
  const clipped = `${'a'.repeat(DIFF_MAX_LINE_CHARS)}…[${long.length - DIFF_MAX_LINE_CHARS} characters clipped]`
  /** The same line paired with itself: clipped around its end, where the two first differ. */
  const clippedEnd = `[${long.length - DIFF_MAX_LINE_CHARS} characters clipped]…${'a'.repeat(DIFF_MAX_LINE_CHARS)}`
  const bodyOf = (diff: string) => diff.split('\n').slice(2)

  it('shows an emptied file as every old line removed and no line added', () => {
    const longer = 'a'.repeat(DIFF_MAX_LIBRARY_CHARS + 1)
    const shown = `${'a'.repeat(DIFF_MAX_LINE_CHARS)}…[${longer.length - DIFF_MAX_LINE_CHARS} characters clipped]`
    for (const [before, end] of [[`${longer}\n`, []], [longer, ['\\ No newline at end of file']]] as const) {
      const {diff} = diffOf(before, before, '')
      expect(bodyOf(diff), `${before.length}`).to.deep.equal(['@@ -1,1 +0,0 @@', `-${shown}`, ...end])
    }
  })

  it('keeps a changed line on the old side when the new side only adds lines after it', () => {
    const {diff} = diffOf(`k\n${long}\nx\n`, 'x\n', 'x\ny\n')
    expect(bodyOf(diff)).to.deep.equal(['@@ -1,3 +1,4 @@', ' k', ` ${clipped}`, '-x', '+x', '+y'])
  })

  it('keeps a changed line on the new side when the old side only has lines more at the start', () => {
    const {diff} = diffOf(`x\ny\n${long}\nk\n`, 'x\ny\n', 'y\n')
    expect(bodyOf(diff)).to.deep.equal(['@@ -1,4 +1,3 @@', '-x', '-y', '+y', ` ${clipped}`, ' k'])
  })

  it('keeps a changed line on the new side when the new side only lacks lines at the end', () => {
    const {diff} = diffOf(`k\n${long}\nx\ny\n`, 'y\n', '')
    expect(bodyOf(diff)).to.deep.equal(['@@ -1,4 +1,3 @@', ' k', ` ${clipped}`, '-x', '-y', '+x'])
  })

  it('lists a change seven lines after one that ends a line in a hunk of its own', () => {
    const before = `x\n${long}\nc2\nc3\nc4\nc5\nc6\nc7\nx\nd1\n`
    const {diff} = diffOf(before, 'x\n', 'y\n', true)
    expect(diff.split('\n').filter((line) => line.startsWith('@@'))).to.deep.equal(['@@ -1,4 +1,4 @@', '@@ -6,5 +6,5 @@'])
  })

  it('shows at most three unchanged lines after the change as context', () => {
    const {diff} = diffOf(`c1\nc2\nc3\nc4\nx\n${long}\nx\nc5\nc6\nc7\nc8\n`, 'x\n', 'y\n', true)
    expect(bodyOf(diff)).to.deep.equal([
      '@@ -2,9 +2,9 @@',
      ' c2',
      ' c3',
      ' c4',
      '-x',
      `-${clippedEnd}`,
      '-x',
      '+y',
      `+${clippedEnd}`,
      '+y',
      ' c5',
      ' c6',
      ' c7',
    ])
  })

  it('fills the budget of a plain listing of astral characters, counted as code points, and says where it cut', () => {
    const rows = (character: string) => `${character.repeat(20)}\n`.repeat(30)
    const before = `${rows('😀')}${long}\n`
    const {diff} = diffOf(before, rows('😀'), rows('😁'), false, 1000)
    const lines = diff.split('\n')
    expect(lines.slice(0, 4)).to.deep.equal(['--- a/f.txt', '+++ b/f.txt', '@@ -1,31 +1,31 @@', `-${'😀'.repeat(20)}`])
    expect(lines.at(-1)).to.match(/^\[Diff cut after \d+ characters: the rest is not shown\. Read the file to see the result\.\]$/)
    const kept = [...lines.slice(0, -1).join('\n')].length
    expect(kept).to.be.at.most(1000)
    expect(kept).to.be.above(1000 - 22)
  })
})

describe('unifiedDiff, where a cut budget or a partial record stops it', () => {
  /** The diff of a replace_all of `hit` lines (100 characters each) in `layout` ('h': a hit line, '.': another). */
  const cutDiff = (layout: string, maxChars: number) => {
    const before = [...layout].map((kind, index) => (kind === 'h' ? 'x'.repeat(100) : `line ${index}`)).join('\n') + '\n'
    const edited = applyTextEdit(before, {oldText: 'x'.repeat(100), newText: 'y'.repeat(100), replaceAll: true})
    const lines = unifiedDiff('f.txt', before, edited.text, edited.spans, maxChars).split('\n')
    const note = lines.pop() as string
    return {lines, note, kept: lines.join('\n').length}
  }
  const count = (lines: string[], sign: string) => lines.filter((line) => line.startsWith(sign) && !line.startsWith(sign.repeat(3))).length

  it('shows whole changes only, a removed line with its added one, when the budget runs out inside a run of changes', () => {
    for (const layout of ['h'.repeat(200), `h${'.'.repeat(20)}${'h'.repeat(200)}`]) {
      const {lines, note, kept} = cutDiff(layout, 2000)
      expect(note, layout.slice(0, 30)).to.match(/^\[Diff cut after \d+ characters: the rest is not shown/)
      expect(count(lines, '-'), layout.slice(0, 30)).to.equal(count(lines, '+'))
      expect(kept, layout.slice(0, 30)).to.be.at.most(2000)
      expect(kept, layout.slice(0, 30)).to.be.above(2000 - 2 * 102 - 40)
    }
  })

  it('shows nothing after a run of changes the budget cut, even a small change further on', () => {
    const {lines} = cutDiff(`${'h'.repeat(200)}${'.'.repeat(20)}h`, 2000)
    expect(lines.filter((line) => line.startsWith('@@'))).to.deep.equal(['@@ -1,9 +1,9 @@'])
    expect(lines.at(-1)).to.equal(`+${'y'.repeat(100)}`)
    // The same when the run is cut by what earlier changes left of the budget.
    const after = cutDiff(`h${'.'.repeat(20)}hhhh${'.'.repeat(20)}h`, 1000).lines
    expect(after.filter((line) => line.startsWith('@@'))).to.deep.equal(['@@ -1,4 +1,4 @@', '@@ -19,6 +19,6 @@'])
    expect(after.at(-1)).to.equal(`+${'y'.repeat(100)}`)
  })

  it('stops before the first replacement it may not show, on the line before it', () => {
    const spans = [
      {oldStart: 0, oldEnd: 1, newStart: 0, newEnd: 1},
      {oldStart: 3, oldEnd: 4, newStart: 3, newEnd: 4},
    ]
    expect(unifiedDiff('f.txt', 'ab\ncd\nef\n', 'Ab\nCd\nef\n', spans, 1000, {isComplete: false})).to.equal(
      ['--- a/f.txt', '+++ b/f.txt', '@@ -1,1 +1,1 @@', '-ab', '+Ab', '[Diff cut after 47 characters: the rest is not shown. Read the file to see the result.]'].join('\n'),
    )
  })

  it('counts the lines of a file with a BOM right when lines follow the change', () => {
    const before = '\uFEFFa\nb\nc\nd\ne\nf\ng\nh\n'
    const {after, diff} = diffOf(before, 'b', 'BB')
    expect(diff).to.equal(wholeFileDiff(before.slice(1), after.slice(1)))
  })
})

describe('capText at its edges', () => {
  it('cuts a text without a line break inside the budget at the budget itself', () => {
    expect(capText('x'.repeat(20), 10)).to.equal(`${'x'.repeat(10)}\n[Diff cut after 10 characters: the rest is not shown. Read the file to see the result.]`)
    expect(capText(`\n${'x'.repeat(20)}`, 10)).to.equal(`\n${'x'.repeat(9)}\n[Diff cut after 10 characters: the rest is not shown. Read the file to see the result.]`)
  })
})
