import {expect} from 'chai'
import {chmod, chown, mkdir, mkdtemp, readFile, readdir, readlink, realpath, rm, stat, symlink, writeFile} from 'node:fs/promises'
import {tmpdir} from 'node:os'
import path from 'node:path'

import {CLIENT_LINES, type TestClient, connectStdio} from '../helpers/clients.js'
import {OUTSIDE_LINKS, linkOutside, outsidePaths} from '../helpers/outside-paths.js'

const isRoot = process.getuid?.() === 0

/** A patch from its operation lines. */
const patchOf = (...lines: string[]) => ['*** Begin Patch', ...lines, '*** End Patch'].join('\n')

/** Every entry below `dir`, relative, symlinks not followed, files with their content. */
async function treeOf(dir: string): Promise<Record<string, string>> {
  const found: Record<string, string> = {}
  const walk = async (folder: string): Promise<void> => {
    for (const entry of await readdir(folder, {withFileTypes: true})) {
      const full = path.join(folder, entry.name)
      const relative = path.relative(dir, full)
      if (entry.isDirectory()) {
        found[`${relative}/`] = ''
        await walk(full)
      } else if (entry.isSymbolicLink()) found[relative] = `-> ${await readlink(full)}`
      else found[relative] = await readFile(full, 'utf8')
    }
  }
  await walk(dir)
  return found
}

for (const line of CLIENT_LINES) {
  describe(`edit with a patch through ak exec serve, client ${line}`, function () {
    this.timeout(120_000)
    let base: string
    let ws: string
    let outside: string
    let client: TestClient

    const inWs = (...parts: string[]) => path.join(ws, ...parts)
    const ok = async (args: Record<string, unknown>) => {
      const answer = await client.call('edit', args)
      expect(answer.isError, answer.text).to.equal(false)
      return answer
    }
    const fails = async (args: Record<string, unknown>) => {
      const answer = await client.call('edit', args)
      expect(answer.isError, `should fail: ${answer.text}`).to.equal(true)
      return answer.text
    }

    before(async () => {
      base = await realpath(await mkdtemp(path.join(tmpdir(), 'ak-patch-')))
      ws = path.join(base, 'ws')
      outside = path.join(base, 'outside')
      await mkdir(ws)
      await mkdir(outside)
      await mkdir(`${ws}_evil`)
      await writeFile(path.join(outside, 'secret.txt'), 'top secret\n')
      await writeFile(`${ws}_evil/x.txt`, 'evil\n')
      client = await connectStdio(line, ['exec', 'serve', '--workspace', ws, '--level', 'files', '--quiet'])
    })

    after(async () => {
      await client?.close()
      await rm(base, {recursive: true, force: true})
    })

    it('adds, updates with two hunks, moves and deletes in one call, and answers per file with diffs', async () => {
      await mkdir(inWs('one'))
      await writeFile(inWs('one', 'main.py'), 'def a():\n    return 1\n\n\ndef b():\n    return 2\n')
      await writeFile(inWs('one', 'old-name.txt'), 'keep\nold line\n')
      await writeFile(inWs('one', 'gone.txt'), 'bye\n')
      const answer = await ok({
        patch: patchOf(
          '*** Add File: one/new/added.txt',
          '+hello',
          '+world',
          '*** Update File: one/main.py',
          '@@ def a():',
          '-    return 1',
          '+    return 10',
          '@@ def b():',
          '-    return 2',
          '+    return 20',
          '*** Update File: one/old-name.txt',
          '*** Move to: one/moved/new-name.txt',
          '@@',
          ' keep',
          '-old line',
          '+new line',
          '*** Delete File: one/gone.txt',
        ),
      })
      expect(await treeOf(inWs('one'))).to.deep.equal({
        'main.py': 'def a():\n    return 10\n\n\ndef b():\n    return 20\n',
        'moved/': '',
        'moved/new-name.txt': 'keep\nnew line\n',
        'new/': '',
        'new/added.txt': 'hello\nworld\n',
      })
      const lines = answer.text.split('\n')
      expect(lines.slice(0, 5)).to.deep.equal([
        'Applied the patch to 4 files (1 added, 1 updated, 1 moved, 1 deleted).',
        'A one/new/added.txt (12 bytes)',
        'M one/main.py (2 hunks at lines 2, 6)',
        'R one/old-name.txt -> one/moved/new-name.txt (1 hunk at line 1)',
        'D one/gone.txt',
      ])
      expect(answer.text).to.contain('-    return 1\n+    return 10')
      expect(answer.text).to.contain('-old line\n+new line')
      expect(answer.text).to.contain('-bye')
      const files = (answer.structured as {files: Array<Record<string, unknown>>}).files
      expect(files.map(({action, path: at, from}) => [action, at, from])).to.deep.equal([
        ['added', 'one/new/added.txt', undefined],
        ['updated', 'one/main.py', undefined],
        ['moved', 'one/moved/new-name.txt', 'one/old-name.txt'],
        ['deleted', 'one/gone.txt', undefined],
      ])
    })

    it('changes nothing when the last of several operations fails, and says which hunk and lines', async () => {
      await mkdir(inWs('two'))
      await writeFile(inWs('two', 'a.txt'), 'alpha\n')
      await writeFile(inWs('two', 'b.txt'), 'beta\n')
      await writeFile(inWs('two', 'c.txt'), 'gamma\n')
      const before = await treeOf(inWs('two'))
      const text = await fails({
        patch: patchOf(
          '*** Add File: two/new.txt',
          '+new',
          '*** Update File: two/a.txt',
          '@@',
          '-alpha',
          '+ALPHA',
          '*** Delete File: two/b.txt',
          '*** Update File: two/c.txt',
          '*** Move to: two/d.txt',
          '@@',
          '-not in the file',
          '+x',
        ),
      })
      expect(text).to.contain('hunk 1 of "*** Update File: two/c.txt" (line 11 of the patch)')
      expect(text).to.contain('  not in the file')
      expect(text).to.contain('Nothing was changed.')
      expect(await treeOf(inWs('two'))).to.deep.equal(before)
    })

    it('replaces a file with Add File and Move to, says so, and keeps the replaced file\'s mode', async () => {
      await mkdir(inWs('three'))
      await writeFile(inWs('three', 'script.sh'), '#!/bin/sh\necho old\n')
      await chmod(inWs('three', 'script.sh'), 0o750)
      await writeFile(inWs('three', 'from.txt'), 'from\n')
      await writeFile(inWs('three', 'to.txt'), 'to\n')
      const answer = await ok({
        patch: patchOf('*** Add File: three/script.sh', '+#!/bin/sh', '+echo new', '*** Update File: three/from.txt', '*** Move to: three/to.txt', '@@', '-from', '+moved'),
      })
      expect(answer.text).to.contain('A three/script.sh (19 bytes, replacing the file that was there)')
      expect(answer.text).to.contain('R three/from.txt -> three/to.txt (1 hunk at line 1), replacing the file that was there')
      expect(await treeOf(inWs('three'))).to.deep.equal({'script.sh': '#!/bin/sh\necho new\n', 'to.txt': 'moved\n'})
      expect((await stat(inWs('three', 'script.sh'))).mode & 0o7777).to.equal(0o750)
      const files = (answer.structured as {files: Array<{replaced: boolean}>}).files
      expect(files.map((file) => file.replaced)).to.deep.equal([true, true])
    })

    it('keeps CRLF line endings and a BOM, and the owner', async function () {
      await mkdir(inWs('four'))
      await writeFile(inWs('four', 'dos.txt'), '\uFEFFone\r\ntwo\r\nthree\r\n')
      if (isRoot) await chown(inWs('four', 'dos.txt'), 4321, 4322)
      await ok({patch: patchOf('*** Update File: four/dos.txt', '@@', ' one', '-two', '+2', '+2b')})
      expect(await readFile(inWs('four', 'dos.txt'), 'utf8')).to.equal('\uFEFFone\r\n2\r\n2b\r\nthree\r\n')
      if (isRoot) {
        const info = await stat(inWs('four', 'dos.txt'))
        expect([info.uid, info.gid]).to.deep.equal([4321, 4322])
      }
    })

    it('deletes a symlink itself, never its target, and refuses to delete a folder', async () => {
      await mkdir(inWs('five', 'folder'), {recursive: true})
      await writeFile(inWs('five', 'target.txt'), 'target\n')
      await symlink('target.txt', inWs('five', 'link.txt'))
      await symlink(path.join(outside, 'secret.txt'), inWs('five', 'out-link'))
      await ok({patch: patchOf('*** Delete File: five/link.txt', '*** Delete File: five/out-link')})
      expect(await treeOf(inWs('five'))).to.deep.equal({'folder/': '', 'target.txt': 'target\n'})
      expect(await readFile(path.join(outside, 'secret.txt'), 'utf8')).to.equal('top secret\n')
      const text = await fails({patch: patchOf('*** Delete File: five/target.txt', '*** Delete File: five/folder')})
      expect(text).to.contain('"five/folder" is a folder; Delete File deletes files, never folders')
      expect(await readFile(inWs('five', 'target.txt'), 'utf8')).to.equal('target\n')
    })

    it('refuses a call that mixes the two forms, naming both', async () => {
      await writeFile(inWs('mixed.txt'), 'a\n')
      const text = await fails({path: 'mixed.txt', old_text: 'a', new_text: 'b', patch: patchOf('*** Add File: x.txt', '+x')})
      expect(text).to.contain('edit takes either patch or path/old_text/new_text, not both: this call has patch and path, old_text, new_text.')
      expect(await readFile(inWs('mixed.txt'), 'utf8')).to.equal('a\n')
      await stat(inWs('x.txt')).then(
        () => expect.fail('x.txt was created'),
        () => undefined,
      )
    })

    it('refuses a patch naming a file twice, and a patch not in the format, saying where', async () => {
      expect(await fails({patch: patchOf('*** Add File: twice.txt', '+a', '*** Delete File: twice.txt')})).to.contain('is named by two operations')
      expect(await fails({patch: '*** Begin Patch\n*** Frobnicate File: foo\n*** End Patch'})).to.contain(
        'Line 2 of the patch: "*** Frobnicate File: foo" is not an operation.',
      )
      await stat(inWs('twice.txt')).then(
        () => expect.fail('twice.txt was created'),
        () => undefined,
      )
    })

    describe('protected paths: a patch that would change one is refused whole', () => {
      before(async () => {
        await mkdir(inWs('prot', '.git', 'hooks'), {recursive: true})
        await writeFile(inWs('prot', '.git', 'config'), '[core]\n')
        await writeFile(inWs('prot', '.envrc'), 'export A=1\n')
        await writeFile(inWs('prot', 'ok.txt'), 'ok\n')
        await symlink('.git', inWs('prot', 'meta'))
      })

      const cases: Array<[string, string[]]> = [
        ['an update of .git/config', ['*** Update File: prot/.git/config', '@@', ' [core]', '+\tfsmonitor = evil']],
        ['a new hook', ['*** Add File: prot/.git/hooks/pre-commit', '+#!/bin/sh']],
        ['a new hook through a symlinked folder', ['*** Add File: prot/meta/hooks/post-checkout', '+#!/bin/sh']],
        ['a new agent config and its folder', ['*** Add File: prot/.codex/config.toml', '+sandbox_mode = "danger-full-access"']],
        ['a deletion of .git/config', ['*** Delete File: prot/.git/config']],
        ['a move onto a hook', ['*** Update File: prot/ok.txt', '*** Move to: prot/.git/hooks/pre-push', '@@', '-ok', '+#!/bin/sh']],
        ['a move of .envrc away', ['*** Update File: prot/.envrc', '*** Move to: prot/envrc.txt', '@@', '-export A=1', '+export A=2']],
      ]
      for (const [what, operation] of cases) {
        it(`refuses ${what}, and applies no other operation of the patch`, async () => {
          const before = await treeOf(ws)
          const text = await fails({patch: patchOf('*** Add File: prot/first.txt', '+first', ...operation)})
          expect(text).to.include('is a protected path').and.to.include('--allow-protected')
          expect(await treeOf(ws)).to.deep.equal(before)
        })
      }
    })

    describe('confinement: a path that leads outside refuses the whole patch', () => {
      const kinds: Array<[string, (target: string) => string[]]> = [
        ['Add File', (target) => [`*** Add File: ${target}`, '+planted']],
        ['Update File', (target) => [`*** Update File: ${target}`, '@@', '-top secret', '+changed']],
        ['Delete File', (target) => [`*** Delete File: ${target}`]],
        ['Move to', (target) => ['*** Update File: conf/source.txt', `*** Move to: ${target}`, '@@', '-source', '+moved']],
      ]

      before(async () => {
        await mkdir(inWs('conf'))
        await linkOutside(ws, outside)
      })

      for (const [kind, operation] of kinds) {
        it(`${kind} of every outside path is refused, the other operations are not applied, and nothing outside is revealed`, async () => {
          await writeFile(inWs('conf', 'source.txt'), 'source\n')
          for (const requested of outsidePaths(ws, outside)) {
            // A symlink Delete File removes the link itself, inside the workspace: that is allowed.
            if (kind === 'Delete File' && (OUTSIDE_LINKS as readonly string[]).includes(requested)) continue
            const before = await treeOf(ws)
            const text = await fails({patch: patchOf('*** Add File: conf/first.txt', '+first', ...operation(requested))})
            expect(text, requested).to.contain(`"${requested}" is outside the workspace`)
            expect(text).not.to.contain('top secret')
            if (!requested.includes(outside)) expect(text).not.to.contain(outside)
            expect(await treeOf(ws), requested).to.deep.equal(before)
          }
          expect(await readFile(path.join(outside, 'secret.txt'), 'utf8')).to.equal('top secret\n')
          expect(await readdir(outside)).to.deep.equal(['secret.txt'])
        })
      }
    })
  })
}
