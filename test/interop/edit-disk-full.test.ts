import {expect} from 'chai'
import {spawnSync} from 'node:child_process'
import {mkdir, mkdtemp, open, readdir, readFile, rm, truncate, writeFile} from 'node:fs/promises'
import {tmpdir} from 'node:os'
import path from 'node:path'

import {type TestClient, connectStdio} from '../helpers/clients.js'
import {skipBecause, skipUnlessRoot} from '../helpers/processes.js'

/** The page size tmpfs allocates by (x86-64 and most arm64 kernels). */
const PAGE_BYTES = 4096

/** Writes `file` until the file system is full; returns its size, a whole number of pages. */
async function fill(file: string): Promise<number> {
  const handle = await open(file, 'w')
  const page = Buffer.alloc(PAGE_BYTES, 120)
  let size = 0
  try {
    for (;;) {
      try {
        const {bytesWritten} = await handle.write(page, 0, PAGE_BYTES, size)
        size += bytesWritten
        if (bytesWritten < PAGE_BYTES) break
      } catch {
        break
      }
    }
  } finally {
    await handle.close()
  }
  return size - (size % PAGE_BYTES)
}

describe('an edit on a full disk, through ak exec serve on a tiny tmpfs', function () {
  this.timeout(60_000)
  let base: string
  let ws: string
  let client: TestClient | undefined

  before(async function () {
    skipUnlessRoot(this, 'mount a tmpfs')
    base = await mkdtemp(path.join(tmpdir(), 'ak-full-'))
    ws = path.join(base, 'ws')
    await mkdir(ws)
    const mounted = spawnSync('mount', ['-t', 'tmpfs', '-o', 'size=128k', 'tmpfs', ws])
    if (mounted.status !== 0) skipBecause(this, `a tmpfs cannot be mounted here (${mounted.stderr?.toString().trim() || mounted.error?.message})`)
    await writeFile(path.join(ws, 'a.txt'), 'one\n')
    client = await connectStdio('v2 (2026-07-28)', ['exec', 'serve', '--workspace', ws, '--level', 'files', '--quiet'], {env: {HOME: base}})
  })

  after(async () => {
    await client?.close()
    if (ws) spawnSync('umount', [ws])
    if (base) await rm(base, {recursive: true, force: true})
  })

  it('leaves no temporary or lock file when the disk fills up while the lock is placed, and changes nothing', async () => {
    // One page left: the edit's new content fits in it, the lock written after it does not.
    const size = await fill(path.join(ws, '.filler'))
    await truncate(path.join(ws, '.filler'), size - PAGE_BYTES)
    const answer = await (client as TestClient).call('edit', {path: 'a.txt', old_text: 'one', new_text: 'two'})
    expect(answer.isError, answer.text).to.equal(true)
    expect(answer.text).to.not.match(/\bE[A-Z]{3,}\b/)
    expect((await readdir(ws)).filter((name) => name.startsWith('.ak-edit-')), answer.text).to.deep.equal([])
    expect(await readFile(path.join(ws, 'a.txt'), 'utf8')).to.equal('one\n')
  })
})
