import {expect} from 'chai'
import {lstatSync} from 'node:fs'
import {mkdir, mkdtemp, readdir, realpath, rename, rm, symlink, utimes, writeFile} from 'node:fs/promises'
import {tmpdir} from 'node:os'
import path from 'node:path'

import {CHANGE_CLOCK_SLACK_MS, FolderDigests, type StatusOf, digestOf} from '../../../../src/exec/terminal/folder-digests.js'

const names = (digest: {folders: string[]; notable: Array<{name: Buffer}>}) => ({
  folders: [...digest.folders].sort(),
  notable: digest.notable.map((entry) => entry.name.toString()).sort(),
})
const pastSlack = () => new Promise((resolve) => setTimeout(resolve, CHANGE_CLOCK_SLACK_MS + 100))

describe('folder digests of the sandbox walks (FolderDigests)', () => {
  let base: string
  const at = (...parts: string[]) => path.join(base, ...parts)

  beforeEach(async () => {
    base = await realpath(await mkdtemp(path.join(tmpdir(), 'ak-folder-digests-')))
  })

  afterEach(async () => {
    await rm(base, {recursive: true, force: true})
  })

  it('keeps the subfolders a walk goes into and the entries it judges, by their bytes', async () => {
    for (const folder of ['src', '.vscode', 'Node_Modules', 'objects', 'refs', 'caf\u00e9']) await mkdir(at('f', folder), {recursive: true})
    for (const file of ['HEAD', '.envrc', 'commondir', 'README.md']) await writeFile(at('f', file), '')
    await writeFile(Buffer.from(`${at('f')}/\xff-file`, 'latin1'), '')
    await mkdir(Buffer.from(`${at('f')}/\xfe-folder`, 'latin1'))
    const digest = digestOf(await readdir(at('f'), {withFileTypes: true, encoding: 'buffer'}))
    expect(names(digest)).to.deep.equal({
      // Not .vscode (a protected name is judged, not walked into) nor node_modules (in any case).
      folders: ['caf\u00c3\u00a9', 'objects', 'refs', 'src', '\xfe-folder'],
      notable: ['.envrc', '.vscode', 'HEAD', 'commondir', 'objects', 'refs'],
    })
    // Latin-1 holds the name's bytes: the folder is reached again by them.
    expect(Buffer.from(digest.folders.find((name) => name.endsWith('-folder'))!, 'latin1')).to.deep.equal(Buffer.from([0xfe, ...Buffer.from('-folder')]))
  })

  it('reads a folder once while it does not change, and again after each change, whatever its modification time says', async () => {
    await mkdir(at('f', 'a'), {recursive: true})
    await pastSlack()
    const digests = new FolderDigests()
    expect(names(await digests.read(at('f'))).folders).to.deep.equal(['a'])
    expect(names(await digests.read(Buffer.from(at('f')))).folders).to.deep.equal(['a'])
    expect(digests.reads).to.equal(1)

    // A new entry, with the folder's modification time set back to what it was: ctime changed.
    const old = new Date(Date.now() - 3_600_000)
    await utimes(at('f'), old, old)
    await pastSlack()
    expect(names(await digests.read(at('f'))).folders).to.deep.equal(['a'])
    const readsBefore = digests.reads
    await mkdir(at('f', 'b'))
    await writeFile(at('f', '.envrc'), 'x')
    await utimes(at('f'), old, old)
    expect(names(await digests.read(at('f')))).to.deep.equal({folders: ['a', 'b'], notable: ['.envrc']})
    expect(digests.reads).to.equal(readsBefore + 1)
  })

  it('reads again a folder replaced by another at its path, and gives nothing for a link', async () => {
    await mkdir(at('f', 'a'), {recursive: true})
    await mkdir(at('g', 'other'), {recursive: true})
    await pastSlack()
    const digests = new FolderDigests()
    expect(names(await digests.read(at('f'))).folders).to.deep.equal(['a'])
    await rename(at('f'), at('f-away'))
    await rename(at('g'), at('f'))
    expect(names(await digests.read(at('f'))).folders).to.deep.equal(['other'])
    await rename(at('f'), at('g'))
    await symlink(at('f-away'), at('f'))
    expect(names(await digests.read(at('f')))).to.deep.equal({folders: [], notable: []})
    await rm(at('f'))
    expect(names(await digests.read(at('f')))).to.deep.equal({folders: [], notable: []})
  })

  it('never keeps a folder that changed within the clock slack, so a change in the same clock tick as a read is seen', async () => {
    // A file system stamped by a coarse clock: every change within a tick gets the same ctime
    // (kernels before multigrain timestamps, 6.13, stamp with a tick of up to 10 ms).
    const tick = BigInt(Date.now()) * 1_000_000n
    const coarse: StatusOf = (file) => {
      const info = lstatSync(file, {bigint: true, throwIfNoEntry: false})
      return info && {dev: info.dev, ino: info.ino, ctimeNs: tick, isDirectory: () => info.isDirectory()}
    }
    const digests = new FolderDigests(undefined, coarse)
    await mkdir(at('f'))
    expect(names(await digests.read(at('f'))).folders).to.deep.equal([])
    await mkdir(at('f', 'new'))
    expect(names(await digests.read(at('f'))).folders).to.deep.equal(['new'])
    expect(digests.reads).to.equal(2)
  })

  it('starts again empty past the digests it may keep', async () => {
    for (const folder of ['a', 'b', 'c']) await mkdir(at(folder))
    await pastSlack()
    const digests = new FolderDigests(2)
    for (const folder of ['a', 'b', 'c', 'a']) await digests.read(at(folder))
    // a and b were kept, c started the cache again, so a was read again.
    expect(digests.reads).to.equal(4)
    await digests.read(at('c'))
    expect(digests.reads).to.equal(4)
  })
})
