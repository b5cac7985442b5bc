import {expect} from 'chai'
import {execFileSync} from 'node:child_process'
import {mkdir, mkdtemp, readFile, rm, symlink, truncate, writeFile} from 'node:fs/promises'
import {createServer} from 'node:net'
import {tmpdir} from 'node:os'
import path from 'node:path'

import {createNamedFile, readNamedFile} from '../../src/named-file.js'

describe('opening a file by its name (named-file)', () => {
  let dir: string

  beforeEach(async () => {
    dir = await mkdtemp(path.join(tmpdir(), 'ak-named-'))
  })
  afterEach(() => rm(dir, {recursive: true, force: true}))

  it('reads a regular file whole when it fits the limit', async () => {
    await writeFile(path.join(dir, 'f'), 'hello\n')
    const found = await readNamedFile(path.join(dir, 'f'), 64)
    expect(found.kind).to.equal('file')
    if (found.kind !== 'file') return
    expect(found.bytes.toString()).to.equal('hello\n')
    expect(found.size).to.equal(6)
    expect(found.isCut).to.equal(false)
  })

  it('reads only the first maxBytes of a 2 GiB sparse file and says it was cut', async () => {
    await writeFile(path.join(dir, 'big'), 'start')
    await truncate(path.join(dir, 'big'), 2 * 1024 ** 3)
    const found = await readNamedFile(path.join(dir, 'big'), 4)
    expect(found).to.include({kind: 'file', size: 2 * 1024 ** 3, isCut: true})
    if (found.kind === 'file') expect(found.bytes.toString()).to.equal('star')
  })

  it('reports a missing name, and a name below a file, as missing', async () => {
    await writeFile(path.join(dir, 'f'), 'x')
    expect(await readNamedFile(path.join(dir, 'absent'), 64)).to.deep.equal({kind: 'missing'})
    expect(await readNamedFile(path.join(dir, 'f', 'below'), 64)).to.deep.equal({kind: 'missing'})
  })

  it('never follows a link: to /dev/zero, to a regular file, dangling', async () => {
    await writeFile(path.join(dir, 'target'), 'secret')
    await symlink('/dev/zero', path.join(dir, 'zero'))
    await symlink(path.join(dir, 'target'), path.join(dir, 'file-link'))
    await symlink(path.join(dir, 'nowhere'), path.join(dir, 'dangling'))
    for (const name of ['zero', 'file-link', 'dangling']) {
      expect(await readNamedFile(path.join(dir, name), 64), name).to.deep.equal({kind: 'not-a-file', what: 'a symbolic link'})
    }
  })

  it('does not wait on a FIFO without a writer, nor read a folder, a socket or a device', async () => {
    execFileSync('mkfifo', [path.join(dir, 'fifo')])
    await mkdir(path.join(dir, 'folder'))
    const server = createServer()
    await new Promise<void>((resolve) => server.listen(path.join(dir, 'socket'), resolve))
    try {
      expect(await readNamedFile(path.join(dir, 'fifo'), 64)).to.deep.equal({kind: 'not-a-file', what: 'a FIFO'})
      expect(await readNamedFile(path.join(dir, 'folder'), 64)).to.deep.equal({kind: 'not-a-file', what: 'a folder'})
      expect(await readNamedFile(path.join(dir, 'socket'), 64)).to.deep.equal({kind: 'not-a-file', what: 'a socket'})
      expect(await readNamedFile('/dev/zero', 64)).to.deep.equal({kind: 'not-a-file', what: 'a device'})
    } finally {
      server.close()
    }
  })

  it('creates only a new file, never writing through a link or into a FIFO', async () => {
    await createNamedFile(path.join(dir, 'new'), 'content', {mode: 0o600})
    expect(await readFile(path.join(dir, 'new'), 'utf8')).to.equal('content')
    await writeFile(path.join(dir, 'target'), 'kept')
    await symlink(path.join(dir, 'target'), path.join(dir, 'link'))
    await symlink(path.join(dir, 'nowhere'), path.join(dir, 'dangling'))
    execFileSync('mkfifo', [path.join(dir, 'fifo')])
    for (const name of ['new', 'link', 'dangling', 'fifo']) {
      const error = await createNamedFile(path.join(dir, name), 'x', {mode: 0o600}).catch((caught: unknown) => caught)
      expect((error as NodeJS.ErrnoException).code, name).to.equal('EEXIST')
    }
    expect(await readFile(path.join(dir, 'target'), 'utf8')).to.equal('kept')
    expect(await readNamedFile(path.join(dir, 'nowhere'), 8)).to.deep.equal({kind: 'missing'})
  })
})
