import {expect} from 'chai'

import {PatchSyntaxError, parsePatch} from '../../../../src/exec/files/patch-parser.js'

const wrap = (body: string) => `*** Begin Patch\n${body}\n*** End Patch`

describe('parsePatch (Codex apply_patch format)', () => {
  it('reads add, delete and update with a move, in order', () => {
    const operations = parsePatch(
      wrap('*** Add File: path/add.py\n+abc\n+def\n*** Delete File: path/delete.py\n*** Update File: path/update.py\n*** Move to: path/update2.py\n@@ def f():\n-    pass\n+    return 123'),
    )
    expect(operations).to.deep.equal([
      {kind: 'add', path: 'path/add.py', contents: 'abc\ndef\n', line: 2},
      {kind: 'delete', path: 'path/delete.py', line: 5},
      {
        kind: 'update',
        path: 'path/update.py',
        moveTo: 'path/update2.py',
        hunks: [{header: 'def f():', oldLines: ['    pass'], newLines: ['    return 123'], isEndOfFile: false, line: 8}],
        line: 6,
      },
    ])
  })

  it('reads an update followed by an add, and a first hunk without @@', () => {
    expect(parsePatch(wrap('*** Update File: file.py\n@@\n+line\n*** Add File: other.py\n+content'))).to.deep.equal([
      {kind: 'update', path: 'file.py', hunks: [{oldLines: [], newLines: ['line'], isEndOfFile: false, line: 3}], line: 2},
      {kind: 'add', path: 'other.py', contents: 'content\n', line: 5},
    ])
    const [update] = parsePatch(wrap('*** Update File: file2.py\n import foo\n+bar'))
    expect(update).to.deep.include({hunks: [{oldLines: ['import foo'], newLines: ['import foo', 'bar'], isEndOfFile: false, line: 3}]})
  })

  it('reads empty lines in a hunk as empty context, stops a hunk at the next @@, and marks End of File', () => {
    const [update] = parsePatch(wrap('*** Update File: f\n@@ ctx\n\n context\n-remove\n+add\n@@\n+tail\n*** End of File'))
    expect(update).to.deep.equal({
      kind: 'update',
      path: 'f',
      line: 2,
      hunks: [
        {header: 'ctx', oldLines: ['', 'context', 'remove'], newLines: ['', 'context', 'add'], isEndOfFile: false, line: 3},
        {oldLines: [], newLines: ['tail'], isEndOfFile: true, line: 8},
      ],
    })
  })

  it('accepts whitespace around the markers, CRLF line breaks and a heredoc around the patch', () => {
    const expected = [{kind: 'add', path: 'foo', contents: 'hi\n'}]
    const strip = (ops: ReturnType<typeof parsePatch>) => ops.map(({line: _line, ...rest}) => rest)
    expect(strip(parsePatch(' *** Begin Patch \n  *** Add File: foo\n+hi\n *** End Patch  \n'))).to.deep.equal(expected)
    expect(strip(parsePatch('*** Begin Patch\r\n*** Add File: foo\r\n+hi\r\n*** End Patch\r\n'))).to.deep.equal(expected)
    for (const start of ['<<EOF', "<<'EOF'", '<<"EOF"']) {
      expect(strip(parsePatch(`${start}\n*** Begin Patch\n*** Add File: foo\n+hi\n*** End Patch\nEOF\n`))).to.deep.equal(expected)
    }
  })

  const refusals: Array<[string, string, RegExp]> = [
    ['a first line that is not Begin Patch', 'bad', /Line 1 of the patch: the first line must be "\*\*\* Begin Patch", not "bad"/],
    ['a missing End Patch', '*** Begin Patch\nbad', /Line 2 of the patch: the last line must be "\*\*\* End Patch", not "bad"/],
    ['an empty text', '   ', /the first line must be "\*\*\* Begin Patch" \(the patch is empty\)/],
    ['a heredoc with mismatched quotes', `<<"EOF'\n${wrap('*** Add File: a\n+x')}\nEOF`, /first line must be/],
    ['no operations', wrap('').replace('\n\n', '\n'), /has no operations/],
    ['an unknown operation', wrap('*** Frobnicate File: foo'), /Line 2 of the patch: "\*\*\* Frobnicate File: foo" is not an operation/],
    ['an update without hunks', wrap('*** Update File: test.py'), /Line 2 of the patch: "\*\*\* Update File: test.py" has no hunks/],
    ['a hunk with no lines', wrap('*** Update File: a\n@@'), /Line 4 of the patch: a hunk of "\*\*\* Update File: a" has no lines/],
    ['a hunk of only End of File', wrap('*** Update File: a\n@@\n*** End of File'), /Line 4 of the patch: a hunk .* has no lines/],
    ['a line with no marker', wrap('*** Update File: a\n@@\nbad'), /Line 4 of the patch: unexpected line "bad"/],
    ['a second hunk without @@', wrap('*** Update File: a\n@@\n-x\n+y\n\nbad'), /Line 7 of the patch: in "\*\*\* Update File: a", a hunk must start with "@@"/],
  ]
  for (const [what, patch, message] of refusals) {
    it(`refuses ${what}, saying where`, () => {
      expect(() => parsePatch(patch)).to.throw(PatchSyntaxError, message)
      expect(() => parsePatch(patch)).to.throw(/Nothing was changed\./)
    })
  }
})
