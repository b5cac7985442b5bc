import {expect} from 'chai'

import {applyHunks} from '../../../../src/exec/files/patch-apply.js'
import {parsePatch} from '../../../../src/exec/files/patch-parser.js'

/** The text `content` becomes under the hunks of a one-file update patch body. */
function patched(content: string, hunks: string): string {
  const [update] = parsePatch(`*** Begin Patch\n*** Update File: f\n${hunks}\n*** End Patch`)
  if (update?.kind !== 'update') throw new Error('not an update')
  return applyHunks(content, update.hunks, 'f').text
}

describe('applyHunks (an Update File applied to a text)', () => {
  it('replaces two hunks in order and reports where each applied', () => {
    const [update] = parsePatch('*** Begin Patch\n*** Update File: f\n@@\n-line2\n+changed2\n@@\n-line4\n+changed4\n*** End Patch')
    if (update?.kind !== 'update') throw new Error('not an update')
    const result = applyHunks('line1\nline2\nline3\nline4\n', update.hunks, 'f')
    expect(result.text).to.equal('line1\nchanged2\nline3\nchanged4\n')
    expect(result.lines).to.deep.equal([2, 4])
  })

  it('looks for a hunk after its @@ header line', () => {
    expect(patched('def a():\n    pass\ndef b():\n    pass\n', '@@ def b():\n-    pass\n+    return 1')).to.equal('def a():\n    pass\ndef b():\n    return 1\n')
  })

  it('adds a hunk without old lines at the end of the file, as Codex does', () => {
    expect(patched('line1\nline2\n', '@@\n+added line 1\n+added line 2')).to.equal('line1\nline2\nadded line 1\nadded line 2\n')
  })

  it('ends the updated file with a line break', () => {
    expect(patched('no newline at end', '@@\n-no newline at end\n+first line\n+second line')).to.equal('first line\nsecond line\n')
    expect(patched('a\nb', '@@\n-a\n+A')).to.equal('A\nb\n')
  })

  it('keeps CRLF line endings, and gives added lines the ending of their place', () => {
    expect(patched('one\r\ntwo\r\nthree\r\n', '@@\n one\n-two\n+2\n+2b')).to.equal('one\r\n2\r\n2b\r\nthree\r\n')
    expect(patched('a\r\nb\nc\n', '@@\n a\n+x')).to.equal('a\r\nx\r\nb\nc\n')
  })

  it('keeps a BOM, which never takes part in a match', () => {
    expect(patched('\uFEFFfirst\nsecond\n', '@@\n-first\n+1st')).to.equal('\uFEFF1st\nsecond\n')
  })

  it('keeps a final blank line that Codex would drop', () => {
    expect(patched('a\n\n', '@@\n-a\n+b')).to.equal('b\n\n')
  })

  it('retries without a trailing empty old line', () => {
    expect(patched('x\ny\n', '@@\n-y\n-\n+z\n+')).to.equal('x\nz\n')
  })

  it('matches an End of File hunk at the end only', () => {
    expect(patched('first\nsecond\n', '@@\n first\n-second\n+second updated\n*** End of File')).to.equal('first\nsecond updated\n')
    expect(() => patched('x\ny\n', '@@\n-x\n+z\n*** End of File')).to.throw(/at the end of the file/)
  })

  it('matches typographic punctuation and indentation leniently', () => {
    expect(patched('  say(\u201Chi\u201D)\n', '@@\n-say("hi")\n+  say("hello")')).to.equal('  say("hello")\n')
  })

  it('names the hunk, its patch line and the lines it expected when they are not found', () => {
    expect(() => patched('a\nb\n', '@@\n-a\n+A\n@@\n-missing\n+x')).to.throw(
      /The lines hunk 2 of "\*\*\* Update File: f" \(line 6 of the patch\) expects .* were not found in the file after line 1:\n {2}missing\n/,
    )
    expect(() => patched('a\n', '@@ class Nope\n-a\n+b')).to.throw(/The "@@ class Nope" line of hunk 1 .* was not found in the file/)
  })

  it('reports the changed spans of both texts, for the diff', () => {
    const [update] = parsePatch('*** Begin Patch\n*** Update File: f\n@@\n-b\n+B\n*** End Patch')
    if (update?.kind !== 'update') throw new Error('not an update')
    const before = 'a\nb\nc\n'
    const {text, spans} = applyHunks(before, update.hunks, 'f')
    expect(spans).to.have.length(1)
    const [span] = spans
    expect(before.slice(span!.oldStart, span!.oldEnd)).to.equal('b\n')
    expect(text.slice(span!.newStart, span!.newEnd)).to.equal('B\n')
    expect(before.slice(0, span!.oldStart) + text.slice(span!.newStart, span!.newEnd) + before.slice(span!.oldEnd)).to.equal(text)
  })
})
