import {expect} from 'chai'
import {execFile} from 'node:child_process'
import {
  chmod,
  chown,
  copyFile,
  link,
  lstat,
  mkdir,
  mkdtemp,
  readFile,
  readdir,
  readlink,
  realpath,
  rm,
  stat,
  symlink,
  truncate,
  writeFile,
} from 'node:fs/promises'
import {tmpdir} from 'node:os'
import path from 'node:path'
import {promisify} from 'node:util'

import {EDIT_MAX_FILE_BYTES, LIST_MAX_ENTRIES, READ_MAX_LIMIT_LINES, READ_MAX_LINE_CHARS} from '../../src/exec/limits.js'
import {CLIENT_LINES, REPO_ROOT, type TestClient, connectStdio} from '../helpers/clients.js'
import {linkOutside, outsidePaths} from '../helpers/outside-paths.js'

const isRoot = process.getuid?.() === 0
const execFileAsync = promisify(execFile)

/** 1-based number of the first line of the repository file `relative` containing `text`. */
async function lineOf(relative: string, text: string): Promise<number> {
  const lines = (await readFile(path.join(REPO_ROOT, relative), 'utf8')).split('\n')
  return lines.findIndex((line) => line.includes(text)) + 1
}

/** Bytes the process has read through read(2) and friends so far (Linux `/proc/<pid>/io`). */
async function bytesReadBy(pid: number): Promise<number> {
  const io = await readFile(`/proc/${pid}/io`, 'utf8')
  const match = /^rchar: (\d+)$/m.exec(io)
  if (!match) throw new Error(`no rchar in /proc/${pid}/io`)
  return Number(match[1])
}

for (const line of CLIENT_LINES) {
  describe(`read, edit and confinement through ak exec serve, client ${line}`, function () {
    let base: string
    let ws: string
    let outside: string
    let client: TestClient

    const ok = async (name: string, args: Record<string, unknown>) => {
      const answer = await client.call(name, args)
      expect(answer.isError, `${name} ${JSON.stringify(args)}: ${answer.text}`).to.equal(false)
      return answer.text
    }
    const fails = async (name: string, args: Record<string, unknown>) => {
      const answer = await client.call(name, args)
      expect(answer.isError, `${name} ${JSON.stringify(args)} should fail: ${answer.text}`).to.equal(true)
      return answer.text
    }
    const inWs = (...parts: string[]) => path.join(ws, ...parts)

    before(async () => {
      base = await realpath(await mkdtemp(path.join(tmpdir(), 'ak-files-')))
      ws = path.join(base, 'ws')
      outside = path.join(base, 'outside')
      await mkdir(path.join(ws, 'src'), {recursive: true})
      await mkdir(path.join(ws, 'empty-folder'))
      await mkdir(outside)
      await mkdir(`${ws}_evil`)
      await writeFile(path.join(outside, 'secret.txt'), 'top secret\n')
      await writeFile(`${ws}_evil/x.txt`, 'evil\n')
      await linkOutside(ws, outside)
      client = await connectStdio(line, ['exec', 'serve', '--workspace', ws, '--level', 'files', '--quiet'])
    })

    after(async () => {
      await client?.close()
      await rm(base, {recursive: true, force: true})
    })

    it('offers read, list and edit at the files level', async () => {
      const names = (await client.listTools()).map((tool) => tool.name)
      expect(names).to.include.members(['read', 'list', 'edit'])
      const edit = (await client.listTools()).find((tool) => tool.name === 'edit')
      expect(edit?.annotations).to.include({readOnlyHint: false, destructiveHint: true})
    })

    it('offers read but not edit at the read level', async () => {
      const reader = await connectStdio(line, ['exec', 'serve', '--workspace', ws, '--level', 'read', '--quiet'])
      try {
        const names = (await reader.listTools()).map((tool) => tool.name)
        expect(names).to.include.members(['read', 'list'])
        expect(names).not.to.include('edit')
        // Calling a tool the server does not offer is refused (a protocol error, or a tool error).
        const isRefused = await reader.call('edit', {path: 'x.txt', old_text: '', new_text: 'x'}).then(
          (answer) => answer.isError,
          () => true,
        )
        expect(isRefused).to.equal(true)
        await stat(path.join(ws, 'x.txt')).then(
          () => expect.fail('edit created a file at the read level'),
          () => undefined,
        )
      } finally {
        await reader.close()
      }
    })

    describe('read', () => {
      before(async () => {
        await writeFile(inWs('src', 'lines.txt'), Array.from({length: 30}, (_, i) => `line ${i + 1}`).join('\n') + '\n')
        await writeFile(inWs('src', 'crlf.txt'), 'one\r\ntwo\r\n')
        await writeFile(inWs('src', 'long.txt'), `${'ж'.repeat(READ_MAX_LINE_CHARS - 1)}😀😀😀 tail\nshort\n`)
        await writeFile(inWs('src', 'empty.txt'), '')
        // A binary file that is no image (an ELF header): read refuses it. A PNG would come back as an image.
        await writeFile(inWs('src', 'program.bin'), Buffer.from([0x7f, 0x45, 0x4c, 0x46, 2, 1, 1, 0, 0, 0, 0, 0]))
        // The first bytes of a PNG, cut inside its header: not an image, and not read as text either.
        await writeFile(inWs('src', 'image.png'), Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0, 0, 0, 13]))
        await writeFile(inWs('src', 'wide.txt'), `${'w'.repeat(1500)}\n`.repeat(200))
      })

      it('answers numbered lines', async () => {
        const text = await ok('read', {path: 'src/lines.txt', limit: 3})
        expect(text.split('\n').slice(0, 3)).to.deep.equal(['     1\tline 1', '     2\tline 2', '     3\tline 3'])
      })

      it('reads a window with offset and limit and says which offset continues', async () => {
        const text = await ok('read', {path: 'src/lines.txt', offset: 10, limit: 5})
        expect(text).to.equal(
          ['    10\tline 10', '    11\tline 11', '    12\tline 12', '    13\tline 13', '    14\tline 14'].join('\n') +
            '\n[More lines follow. Shown: lines 10 to 14. Continue with offset=15.]',
        )
        expect(await ok('read', {path: 'src/lines.txt', offset: 29})).to.equal('    29\tline 29\n    30\tline 30')
      })

      it('shows CRLF lines without their \\r', async () => {
        expect(await ok('read', {path: 'src/crlf.txt'})).to.equal('     1\tone\n     2\ttwo')
      })

      it('clips a long line with a marker and never splits a multibyte character', async () => {
        const text = await ok('read', {path: 'src/long.txt'})
        const [first, second] = text.split('\n')
        expect(first).to.equal(`     1\t${'ж'.repeat(READ_MAX_LINE_CHARS - 1)}😀 … [line clipped: 7 more characters]`)
        expect(second).to.equal('     2\tshort')
      })

      it('caps the answer in characters and says where to continue', async () => {
        const text = await ok('read', {path: 'src/wide.txt'})
        expect(text).to.match(/\[Answer capped at \d+ characters\. Shown: lines 1 to \d+\. Continue with offset=\d+\.\]$/)
      })

      it('answers an empty file, a folder and a binary file clearly', async () => {
        expect(await ok('read', {path: 'src/empty.txt'})).to.contain('empty file')
        expect(await fails('read', {path: 'src'})).to.contain('is a folder').and.contain('list')
        expect(await fails('read', {path: 'src/program.bin'})).to.contain('binary')
        expect(await fails('read', {path: 'src/image.png'})).to.contain('starts like a PNG image, but its header is cut short')
      })

      it('says when the file does not exist or the offset is past its end', async () => {
        expect(await fails('read', {path: 'src/nope.txt'})).to.contain('Nothing exists at "src/nope.txt"')
        expect(await fails('read', {path: 'src/lines.txt', offset: 31})).to.contain('has 30 lines')
      })

      it('reads the first lines of a sparse file of several GB without reading the whole file', async () => {
        const big = inWs('big.log')
        const head = Array.from({length: 5000}, (_, i) => `log entry ${i + 1}`).join('\n') + '\n'
        await writeFile(big, head)
        await truncate(big, 4 * 1024 ** 3)
        try {
          const before = await bytesReadBy(client.pid)
          const text = await ok('read', {path: 'big.log', limit: 10})
          const readBytes = (await bytesReadBy(client.pid)) - before
          expect(text.split('\n')[9]).to.equal('    10\tlog entry 10')
          expect(text).to.contain('Continue with offset=11')
          expect(readBytes).to.be.below(1024 * 1024)
        } finally {
          await rm(big)
        }
      })
    })

    describe('read from the end (negative offset)', () => {
      it('reads the last lines of a 300 MB log without scanning the file, numbering them from the end', async () => {
        const big = inWs('huge.log')
        await writeFile(big, 'start of log\n'.repeat(1000))
        await truncate(big, 300 * 1024 ** 2)
        await writeFile(big, Array.from({length: 8}, (_, index) => `entry ${index + 1}\n`).join(''), {flag: 'a'})
        try {
          const before = await bytesReadBy(client.pid)
          const text = await ok('read', {path: 'huge.log', offset: -5})
          const readBytes = (await bytesReadBy(client.pid)) - before
          const lines = text.split('\n')
          expect(lines.slice(0, 5)).to.deep.equal(['    -5\tentry 4', '    -4\tentry 5', '    -3\tentry 6', '    -2\tentry 7', '    -1\tentry 8'])
          expect(lines[5]).to.match(/^\[Lines are numbered from the end \(-1 is the last line\)/)
          expect(lines).to.have.length(6)
          expect(readBytes).to.be.below(1024 * 1024)
          const more = await ok('read', {path: 'huge.log', offset: -7, limit: 2})
          expect(more.split('\n').slice(0, 3)).to.deep.equal(['    -7\tentry 2', '    -6\tentry 3', '[More lines follow. Shown: lines -7 to -6. Continue with offset=-5.]'])
        } finally {
          await rm(big)
        }
      })

      it('numbers the last lines of a small file from its start', async () => {
        await writeFile(inWs('small.log'), 'a\r\nb\r\nc\r\nd\r\n')
        expect(await ok('read', {path: 'small.log', offset: -2})).to.equal('     3\tc\n     4\td')
        expect(await ok('read', {path: 'small.log', offset: -10})).to.equal('     1\ta\n     2\tb\n     3\tc\n     4\td')
        expect(await ok('read', {path: 'small.log', offset: '-1'})).to.equal('     4\td')
        expect(await fails('read', {path: 'small.log', offset: 0})).to.match(/^offset must not be 0: lines count from 1/)
      })
    })

    describe('edit', () => {
      it('replaces one occurrence literally and answers with a unified diff', async () => {
        await writeFile(inWs('src', 'lit.js'), 'const price = cost\nexport {price}\n')
        const text = await ok('edit', {path: 'src/lit.js', old_text: 'cost', new_text: "'$& $$ $1 $`'"})
        expect(await readFile(inWs('src', 'lit.js'), 'utf8')).to.equal("const price = '$& $$ $1 $`'\nexport {price}\n")
        expect(text).to.contain('--- a/src/lit.js\n+++ b/src/lit.js\n@@ -1,2 +1,2 @@\n-const price = cost\n+const price = \'$& $$ $1 $`\'')
      })

      it('refuses several occurrences, saying how many and on which lines, and leaves the file alone', async () => {
        const content = 'a = 1\nb = 1\nc = 1\n'
        await writeFile(inWs('src', 'many.txt'), content)
        expect(await fails('edit', {path: 'src/many.txt', old_text: '= 1', new_text: '= 2'})).to.contain(
          'occurs 3 times (lines 1, 2, 3)',
        )
        expect(await readFile(inWs('src', 'many.txt'), 'utf8')).to.equal(content)
        expect(await fails('edit', {path: 'src/many.txt', old_text: '= 9', new_text: '= 2'})).to.contain('not found')
      })

      it('names a line with two occurrences once, with its count', async () => {
        await writeFile(inWs('src', 'twice.txt'), 'x = x\ny\nx\n')
        expect(await fails('edit', {path: 'src/twice.txt', old_text: 'x', new_text: 'z'})).to.contain('occurs 3 times (lines 1 (2 times), 3)')
        expect(await ok('edit', {path: 'src/twice.txt', old_text: 'x', new_text: 'z', replace_all: true})).to.contain(
          'replaced 3 occurrences (lines 1 (2 times), 3)',
        )
      })

      it('says where old_text matches if whitespace is ignored, without applying it', async () => {
        const content = 'def f():\n    if ready:\n        go()\n'
        await writeFile(inWs('src', 'near.py'), content)
        const text = await fails('edit', {path: 'src/near.py', old_text: 'if ready:\n    go()', new_text: 'if ready:\n    stop()'})
        expect(text).to.match(/^old_text was not found in the file, but it matches lines 2-3 if whitespace is ignored/)
        expect(await readFile(inWs('src', 'near.py'), 'utf8')).to.equal(content)
        const read = await ok('read', {path: 'src/near.py', offset: 2, limit: 2})
        expect(read).to.contain('    if ready:').and.contain('        go()')
      })

      it('replaces every occurrence with replace_all', async () => {
        await writeFile(inWs('src', 'all.txt'), 'x\ny\nx\n')
        expect(await ok('edit', {path: 'src/all.txt', old_text: 'x', new_text: 'z', replace_all: true})).to.contain(
          'replaced 2 occurrences (lines 1, 3)',
        )
        expect(await readFile(inWs('src', 'all.txt'), 'utf8')).to.equal('z\ny\nz\n')
      })

      it('creates a new file and its missing parent folders when old_text is empty', async () => {
        const text = await ok('edit', {path: 'new/deep/file.txt', old_text: '', new_text: 'hello\n'})
        expect(await readFile(inWs('new', 'deep', 'file.txt'), 'utf8')).to.equal('hello\n')
        expect(text).to.contain('Created new/deep/file.txt').and.contain('--- /dev/null').and.contain('+hello')
      })

      it('refuses to create a file that already exists', async () => {
        await writeFile(inWs('src', 'exists.txt'), 'keep\n')
        expect(await fails('edit', {path: 'src/exists.txt', old_text: '', new_text: 'x'})).to.contain('already exists')
        expect(await fails('edit', {path: 'src', old_text: '', new_text: 'x'})).to.contain('already exists')
        expect(await readFile(inWs('src', 'exists.txt'), 'utf8')).to.equal('keep\n')
      })

      it('keeps CRLF line endings when old_text and new_text use \\n', async () => {
        await writeFile(inWs('src', 'win.txt'), 'first\r\nsecond\r\nthird\r\n')
        await ok('edit', {path: 'src/win.txt', old_text: 'first\nsecond', new_text: 'one\ntwo\nthree-ish'})
        expect(await readFile(inWs('src', 'win.txt'), 'utf8')).to.equal('one\r\ntwo\r\nthree-ish\r\nthird\r\n')
      })

      it('keeps a UTF-8 BOM', async () => {
        await writeFile(inWs('src', 'bom.txt'), '\uFEFFname=old\n')
        await ok('edit', {path: 'src/bom.txt', old_text: 'old', new_text: 'new'})
        expect(await readFile(inWs('src', 'bom.txt'))).to.deep.equal(Buffer.from('\uFEFFname=new\n'))
      })

      it('keeps the file mode', async () => {
        await writeFile(inWs('src', 'run.sh'), '#!/bin/sh\necho old\n')
        await chmod(inWs('src', 'run.sh'), 0o767)
        await ok('edit', {path: 'src/run.sh', old_text: 'old', new_text: 'new'})
        expect((await stat(inWs('src', 'run.sh'))).mode & 0o7777).to.equal(0o767)
      })

      it('keeps the file owner', async function () {
        if (!isRoot) this.skip() // giving a file to another user needs root
        await writeFile(inWs('src', 'owned.txt'), 'old\n')
        await chown(inWs('src', 'owned.txt'), 4321, 4322)
        await ok('edit', {path: 'src/owned.txt', old_text: 'old', new_text: 'new'})
        const info = await stat(inWs('src', 'owned.txt'))
        expect([info.uid, info.gid]).to.deep.equal([4321, 4322])
      })

      it('edits the target of a symlink inside the workspace, which stays a symlink', async () => {
        await writeFile(inWs('src', 'target.txt'), 'via link: old\n')
        await symlink('src/target.txt', inWs('link.txt'))
        await ok('edit', {path: 'link.txt', old_text: 'old', new_text: 'new'})
        expect((await lstat(inWs('link.txt'))).isSymbolicLink()).to.equal(true)
        expect(await readlink(inWs('link.txt'))).to.equal('src/target.txt')
        expect(await readFile(inWs('src', 'target.txt'), 'utf8')).to.equal('via link: new\n')
      })

      it('gives a hard-linked file its own copy, says so, and leaves the other link as it was', async () => {
        await writeFile(inWs('src', 'hard-a.txt'), 'shared old\n')
        await link(inWs('src', 'hard-a.txt'), inWs('src', 'hard-b.txt'))
        const text = await ok('edit', {path: 'src/hard-a.txt', old_text: 'old', new_text: 'new'})
        expect(text).to.contain('2 hard links')
        expect(await readFile(inWs('src', 'hard-a.txt'), 'utf8')).to.equal('shared new\n')
        expect(await readFile(inWs('src', 'hard-b.txt'), 'utf8')).to.equal('shared old\n')
      })

      it('edits a file whose name is as long as the file system allows', async () => {
        const name = `${'n'.repeat(251)}.txt`
        await writeFile(inWs(name), 'old\n')
        await ok('edit', {path: name, old_text: 'old', new_text: 'new'})
        expect(await readFile(inWs(name), 'utf8')).to.equal('new\n')
      })

      it('leaves no temporary file behind, after a success or a refusal', async () => {
        await writeFile(inWs('empty-folder', 'f.txt'), 'a\n')
        await ok('edit', {path: 'empty-folder/f.txt', old_text: 'a', new_text: 'b'})
        await fails('edit', {path: 'empty-folder/f.txt', old_text: 'zzz', new_text: 'b'})
        expect(await readdir(inWs('empty-folder'))).to.deep.equal(['f.txt'])
      })

      it('refuses a file over the size limit, a binary file and a folder', async () => {
        await writeFile(inWs('huge.txt'), 'x\n')
        await truncate(inWs('huge.txt'), EDIT_MAX_FILE_BYTES + 1)
        expect(await fails('edit', {path: 'huge.txt', old_text: 'x', new_text: 'y'})).to.contain(
          `at most ${EDIT_MAX_FILE_BYTES} bytes`,
        )
        await writeFile(inWs('blob.bin'), Buffer.from([1, 2, 0, 3]))
        expect(await fails('edit', {path: 'blob.bin', old_text: '\u0001', new_text: 'y'})).to.contain('binary')
        expect(await fails('edit', {path: 'src', old_text: 'a', new_text: 'b'})).to.contain('folder')
      })

      it('refuses a read-only file, even though a rename could replace it', async () => {
        await writeFile(inWs('src', 'locked.txt'), 'old\n')
        await chmod(inWs('src', 'locked.txt'), 0o444)
        expect(await fails('edit', {path: 'src/locked.txt', old_text: 'old', new_text: 'new'})).to.contain('read-only')
        expect(await readFile(inWs('src', 'locked.txt'), 'utf8')).to.equal('old\n')
      })

      it('says so when a file stands where a folder of the new path should be', async () => {
        await writeFile(inWs('src', 'plain.txt'), 'x\n')
        const text = await fails('edit', {path: 'src/plain.txt/child.txt', old_text: '', new_text: 'y'})
        expect(text).to.contain('is a file, not a folder')
        expect(text).not.to.contain('Internal error')
      })

      it('refuses to create a file through a dangling symlink that points outside', async () => {
        const text = await fails('edit', {path: 'dangling-out', old_text: '', new_text: 'planted'})
        expect(text).to.contain('outside the workspace')
        await stat(path.join(outside, 'planted.txt')).then(
          () => expect.fail('the file outside was created'),
          () => undefined,
        )
      })
    })

    describe('confinement', () => {

      for (const tool of ['read', 'list', 'edit'] as const) {
        it(`${tool} refuses every path that leads outside and reveals nothing of it`, async () => {
          for (const requested of outsidePaths(ws, outside)) {
            const args: Record<string, unknown> =
              tool === 'edit' ? {path: requested, old_text: 'top', new_text: 'changed'} : {path: requested}
            const text = await fails(tool, args)
            expect(text, requested).to.contain(`"${requested}" is outside the workspace`)
            expect(text).not.to.contain('top secret')
            if (!requested.includes(outside)) expect(text).not.to.contain(outside)
          }
          expect(await readFile(path.join(outside, 'secret.txt'), 'utf8')).to.equal('top secret\n')
        })
      }

      it('follows a symlink inside that points inside', async () => {
        await writeFile(inWs('src', 'real.txt'), 'real content\n')
        await symlink('src/real.txt', inWs('inside-link.txt'))
        await symlink('src', inWs('src-link'))
        expect(await ok('read', {path: 'inside-link.txt'})).to.equal('     1\treal content')
        expect(await ok('read', {path: 'src-link/real.txt'})).to.equal('     1\treal content')
      })

      it('list shows a link to the outside as a link without revealing its target', async () => {
        const text = await ok('list', {})
        expect(text).to.contain('to-outside -> (symlink to a path outside the workspace)')
        expect(text).to.contain('to-secret -> (symlink to a path outside the workspace)')
        expect(text).not.to.contain(outside)
        expect(text).not.to.contain('secret.txt')
      })
    })

    describe('list of a folder with more entries than one answer shows', () => {
      const count = LIST_MAX_ENTRIES * 2 + 3
      const nameAt = (index: number) => `f${String(index).padStart(5, '0')}.txt`

      before(async () => {
        await mkdir(inWs('many'))
        await mkdir(inWs('nothing'))
        await Promise.all(Array.from({length: count}, (_, index) => writeFile(inWs('many', nameAt(index + 1)), 'xy')))
      })

      /** The entry lines of a listing: every line but the header and a closing note. */
      const entriesOf = (text: string) => text.split('\n').slice(1).filter((line) => !line.startsWith('['))

      it('pages through every entry with offset, each answer saying where the next one starts', async () => {
        const first = await ok('list', {path: 'many'})
        expect(first.split('\n')[0]).to.equal(`many/ (${count} entries; 1 to ${LIST_MAX_ENTRIES} shown)`)
        expect(first).to.contain(`Call list again with offset ${LIST_MAX_ENTRIES + 1} for the next entries`)
        const second = await ok('list', {path: 'many', offset: LIST_MAX_ENTRIES + 1})
        expect(second.split('\n')[0]).to.equal(`many/ (${count} entries; ${LIST_MAX_ENTRIES + 1} to ${LIST_MAX_ENTRIES * 2} shown)`)
        expect(second).to.contain(`offset ${LIST_MAX_ENTRIES * 2 + 1}`)
        const last = await ok('list', {path: 'many', offset: String(LIST_MAX_ENTRIES * 2 + 1)})
        expect(last.split('\n')[0]).to.equal(`many/ (${count} entries; ${LIST_MAX_ENTRIES * 2 + 1} to ${count} shown)`)
        expect(last).not.to.contain('offset')
        const seen = [first, second, last].flatMap(entriesOf)
        expect(seen).to.deep.equal(Array.from({length: count}, (_, index) => `${nameAt(index + 1)}  2 bytes`))
      })

      it('shows limit entries from offset', async () => {
        const text = await ok('list', {path: 'many', offset: 5, limit: 2})
        expect(text.split('\n')).to.deep.equal([
          `many/ (${count} entries; 5 to 6 shown)`,
          `${nameAt(5)}  2 bytes`,
          `${nameAt(6)}  2 bytes`,
          `[${count - 6} more entries not shown. Call list again with offset 7 for the next entries, or use search with a glob (and no query) to find files by name.]`,
        ])
        expect(await fails('list', {path: 'many', limit: LIST_MAX_ENTRIES + 1})).to.contain(`limit must be at most ${LIST_MAX_ENTRIES} entries`)
      })

      it('refuses an offset past the last entry or below 1, saying which offsets exist', async () => {
        expect(await fails('list', {path: 'many', offset: count + 1})).to.contain(
          `offset ${count + 1} is past the end of "many", which has ${count} entries. Use an offset from 1 to ${count}.`,
        )
        expect(await fails('list', {path: 'many', offset: 0})).to.contain('offset must be 1 or more')
        expect(await ok('list', {path: 'nothing', offset: 5})).to.equal('nothing/ (0 entries)\n(empty folder)')
      })
    })

    describe('bad arguments', () => {
      const cases: Array<[string, Record<string, unknown>, RegExp]> = [
        ['read', {path: 5}, /path/],
        ['read', {}, /path/],
        ['read', {path: 'src/lines.txt', offset: 0}, /offset must not be 0/],
        ['read', {path: 'src/lines.txt', offset: -1e300}, /offset must be -\d+ or more/],
        ['read', {path: 'src/lines.txt', offset: 2.5}, /offset must be a whole number/],
        ['read', {path: 'src/lines.txt', limit: 1e12}, new RegExp(`at most ${READ_MAX_LIMIT_LINES}`)],
        ['read', {path: 'src/lines.txt', limit: '10.5'}, /limit must be a number/],
        ['edit', {path: 'src/lines.txt', new_text: 'x'}, /old_text/],
        ['edit', {path: 'src/lines.txt', old_text: 'line 1', new_text: 7}, /new_text/],
        ['edit', {path: 'src/lines.txt', old_text: 'a', new_text: 'b', replace_all: 'yes'}, /replace_all/],
        ['edit', {path: 'src/lines.txt', old_text: 'line 1', new_text: 'li\u0000ne'}, /new_text must not hold a NUL character/],
        ['edit', {path: 'src/new-binary.txt', old_text: '', new_text: '\u0000'}, /new_text must not hold a NUL character/],
        ['edit', {path: 'src/lines.txt', old_text: 'line 1', new_text: 'a\ud800b'}, /new_text must not hold a lone surrogate/],
        ['list', {path: ['a']}, /path/],
      ]
      for (const [tool, args, message] of cases) {
        it(`answers ${tool} ${JSON.stringify(args)} with a tool error and keeps serving`, async () => {
          expect(await fails(tool, args)).to.match(message)
          expect(await ok('list', {path: 'src'})).to.contain('lines.txt')
        })
      }
    })
  })
}

for (const line of CLIENT_LINES) {
  describe(`edit when the server dies while writing, client ${line}`, () => {
    let ws: string

    before(async () => {
      ws = await realpath(await mkdtemp(path.join(tmpdir(), 'ak-crash-')))
    })

    after(async () => {
      await rm(ws, {recursive: true, force: true})
    })

    it('leaves the old file or the new one, never a mix', async () => {
      const file = path.join(ws, 'big.txt')
      const old = `${'0123456789abcdef'.repeat(4)}\n`.repeat(120_000) + 'MARKER\n' // about 8 MB
      const edited = old.replace('MARKER', 'CHANGED')
      await writeFile(file, old)
      const original = await stat(file)
      const client = await connectStdio(line, ['exec', 'serve', '--workspace', ws, '--level', 'files', '--quiet'])
      let hasAnswered = false
      const pending = client
        .call('edit', {path: 'big.txt', old_text: 'MARKER', new_text: 'CHANGED'})
        .catch(() => undefined)
        .finally(() => (hasAnswered = true))
      // Kill the server as soon as its write shows on disk: a temporary file appears, or the file
      // itself changes (size or inode).
      for (;;) {
        const names = await readdir(ws)
        const now = await stat(file).catch(() => undefined)
        const isWriting =
          names.some((name) => name.endsWith('.tmp')) || !now || now.size !== original.size || now.ino !== original.ino
        if (isWriting || hasAnswered) break
      }
      process.kill(client.pid, 'SIGKILL')
      await pending
      await client.close().catch(() => undefined)
      const content = await readFile(file, 'utf8')
      expect(content === old || content === edited, `file of ${content.length} characters is neither version`).to.equal(true)
    })
  })

  describe(`serving this repository at --level files, client ${line}`, () => {
    let client: TestClient
    let scratch: string

    before(async () => {
      scratch = await mkdtemp(path.join(REPO_ROOT, '.ak-test-edit-'))
      client = await connectStdio(line, ['exec', 'serve', '--workspace', REPO_ROOT, '--level', 'files', '--quiet'])
    })

    after(async () => {
      await client?.close()
      await rm(scratch, {recursive: true, force: true})
    })

    it('lists the repository root', async () => {
      const answer = await client.call('list', {})
      expect(answer.isError).to.equal(false)
      expect(answer.text).to.match(/^package\.json {2}\d+ bytes$/m)
      expect(answer.text).to.match(/^src\/$/m)
    })

    it('reads a source file', async () => {
      const answer = await client.call('read', {path: 'src/exec/tools/index.ts'})
      expect(answer.isError).to.equal(false)
      expect(answer.text).to.match(/^ {5}1\timport /)
      expect(answer.text).to.contain('editTool')
    })

    it('finds every registerTool call with search, as git grep finds them', async function () {
      // git grep is the independent reference: tracked and untracked files, skipping what git
      // ignores and binary files, as search does.
      let expected: string[]
      try {
        const {stdout} = await execFileAsync('git', ['grep', '-n', '-I', '--untracked', '-e', 'registerTool'], {cwd: REPO_ROOT})
        expected = stdout
          .split('\n')
          .filter(Boolean)
          .map((line) => /^(.+?:\d+):/.exec(line)?.[1] ?? line)
      } catch {
        this.skip() // not a git checkout
      }
      expect(expected).to.include(`src/exec/serving/server.ts:${await lineOf('src/exec/serving/server.ts', 'server.registerTool(')}`)
      expect(expected).to.include(`src/codex/server.ts:${await lineOf('src/codex/server.ts', 'server.registerTool(')}`)
      const answer = await client.call('search', {query: 'registerTool', max_results: 10_000})
      expect(answer.isError, answer.text).to.equal(false)
      const found = answer.text
        .split('\n')
        .map((line) => /^(.+?:\d+):/.exec(line)?.[1])
        .filter((entry): entry is string => entry !== undefined)
      expect([...found].sort()).to.deep.equal([...expected].sort())
    })

    it('edits a copy of a source file and the result is on disk', async () => {
      const copy = path.join(scratch, 'level.ts')
      await copyFile(path.join(REPO_ROOT, 'src', 'exec', 'level.ts'), copy)
      const relative = path.relative(REPO_ROOT, copy)
      const answer = await client.call('edit', {
        path: relative,
        old_text: "export const DEFAULT_LEVEL: Level = 'read'",
        new_text: "export const DEFAULT_LEVEL: Level = 'files'",
      })
      expect(answer.isError, answer.text).to.equal(false)
      expect(answer.text).to.contain(`+++ b/${relative}`)
      const edited = await readFile(copy, 'utf8')
      expect(edited).to.contain("export const DEFAULT_LEVEL: Level = 'files'")
      const original = await readFile(path.join(REPO_ROOT, 'src', 'exec', 'level.ts'), 'utf8')
      expect(edited).to.equal(original.replace("Level = 'read'", "Level = 'files'"))
    })
  })
}
