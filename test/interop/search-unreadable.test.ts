import {expect} from 'chai'
import {execFileSync} from 'node:child_process'
import {chmod, chown, mkdir, mkdtemp, realpath, rm, writeFile} from 'node:fs/promises'
import {tmpdir} from 'node:os'
import path from 'node:path'

import {CLIENT_LINES, type TestClient, connectStdio} from '../helpers/clients.js'
import {serverFilesOrSkip, writeEntryAs} from '../helpers/processes.js'

const SERVE = ['exec', 'serve', '--level', 'read', '--quiet', '--workspace']

/** The `path:line` of each match in a search answer. */
function matchedFiles(text: string): string[] {
  return text
    .split('\n')
    .filter((line) => /^[^[\s].*:\d+:/.test(line))
    .map((line) => line.slice(0, line.indexOf(':')))
}

describe(`search names the folders and files it could not read, client ${CLIENT_LINES[0]}`, function () {
  this.timeout(120_000)

  it('as a user without permission: names closed folders, and searches a folder below one it may only pass through', async function () {
    const nobody = 65534
    const server = serverFilesOrSkip(this, nobody)
    const base = await realpath(await mkdtemp(path.join(tmpdir(), 'ak-search-unreadable-')))
    const ws = path.join(base, 'ws')
    try {
      for (const folder of ['ok/sub', 'noperm/sub', 'xnor/sub', 'rnox/sub']) {
        await mkdir(path.join(ws, folder), {recursive: true})
        await writeFile(path.join(ws, folder, '..', 'f.txt'), 'needle\n')
        await writeFile(path.join(ws, folder, 'g.txt'), 'needle\n')
      }
      await mkdir(path.join(base, 'home'))
      await chown(path.join(base, 'home'), nobody, nobody)
      await chmod(base, 0o755)
      await chmod(path.join(ws, 'noperm'), 0o000)
      await chmod(path.join(ws, 'xnor'), 0o111)
      await chmod(path.join(ws, 'rnox'), 0o444)
      const entry = await writeEntryAs(nobody, server.runJs, path.join(base, 'as-nobody.mjs'), server.node)
      const client: TestClient = await connectStdio(CLIENT_LINES[0], [...SERVE, ws], {entry, cwd: base, env: {HOME: path.join(base, 'home')}})
      try {
        const all = await client.call('search', {query: 'needle'})
        expect(matchedFiles(all.text)).to.deep.equal(['ok/f.txt', 'ok/sub/g.txt'])
        const notRead = all.text.split('\n').find((line) => line.startsWith('[Not searched, could not be read: ')) ?? ''
        for (const named of ['noperm/ (no permission)', 'xnor/ (no permission)', 'rnox/f.txt (no permission)', 'rnox/sub/ (no permission)']) {
          expect(notRead, all.text).to.contain(named)
        }
        expect(all.structured?.unreadable).to.deep.include({path: 'noperm/', why: 'no permission'})

        const below = await client.call('search', {query: 'needle', path: 'xnor/sub'})
        expect(matchedFiles(below.text), below.text).to.deep.equal(['xnor/sub/g.txt'])
        const listedBelow = await client.call('search', {glob: '**/*.txt', path: 'xnor/sub'})
        expect(listedBelow.text.split('\n')[0], listedBelow.text).to.equal('xnor/sub/g.txt')

        const listed = await client.call('search', {glob: '**/*.txt'})
        expect(listed.text, listed.text).to.contain('[Not listed, could not be read: ').and.to.contain('noperm/ (no permission)')
      } finally {
        await client.close()
      }
    } finally {
      for (const folder of ['noperm', 'xnor', 'rnox']) await chmod(path.join(ws, folder), 0o755).catch(() => undefined)
      await rm(base, {recursive: true, force: true})
    }
  })

  it('walks folders deeper than a path can name and finds the lines of every file, through its folders', async () => {
    const base = await realpath(await mkdtemp(path.join(tmpdir(), 'ak-search-deep-')))
    const ws = path.join(base, 'ws')
    await mkdir(ws)
    // 40 nested folders of 200-byte names, a file every 4 levels: past level ~20 a file's absolute
    // path is longer than Linux's 4096 bytes. The shell makes them one relative step at a time.
    const name = 'd'.repeat(200)
    const script =
      'mkdir deep && cd deep && for i in $(seq 0 39); do ' +
      `if [ $((i % 4)) -eq 0 ] || [ $i -eq 39 ]; then echo "needle $i" > g$i.txt; fi; mkdir ${name} && cd ${name} || exit 1; done`
    execFileSync('bash', ['-c', script], {cwd: ws})
    const client = await connectStdio(CLIENT_LINES[0], [...SERVE, ws], {env: {HOME: base}})
    try {
      const answer = await client.call('search', {query: 'needle', path: 'deep'})
      const found = matchedFiles(answer.text).map((file) => Number(/g(\d+)\.txt$/.exec(file)?.[1]))
      expect(found, answer.text.slice(-400)).to.deep.equal([...Array.from({length: 10}, (_, i) => i * 4), 39])
      const deepest = matchedFiles(answer.text).at(-1) as string
      expect(Buffer.byteLength(path.join(ws, deepest)), 'the deepest file lies past the longest path').to.be.above(4096)
      expect(answer.structured?.unreadable ?? [], answer.text.slice(-400)).to.deep.equal([])
    } finally {
      await client.close()
      // GNU rm walks by descriptors; Node's rm cannot name paths this long.
      execFileSync('rm', ['-rf', base])
    }
  })
})
