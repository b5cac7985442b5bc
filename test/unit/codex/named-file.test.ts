import {expect} from 'chai'
import {execFileSync} from 'node:child_process'
import {mkdir, symlink, writeFile} from 'node:fs/promises'
import {createServer} from 'node:net'
import path from 'node:path'

import {readNamedFile} from '../../../src/codex/named-file.js'
import {tempDir} from '../../helpers/codex-fixtures.js'

describe('readNamedFile: a file opened because of its name', () => {
  let dir: string
  let remove: () => Promise<void>
  beforeEach(async () => ({dir, remove} = await tempDir('ak-named-file-')))
  afterEach(() => remove())

  const read = (name: string, options: {maxBytes?: number; followLinks?: boolean} = {}) =>
    readNamedFile(path.join(dir, name), {maxBytes: options.maxBytes ?? 16, followLinks: options.followLinks ?? true})

  it('reads a regular file of exactly the limit, and refuses one byte more as too large', async () => {
    await writeFile(path.join(dir, 'a'), 'x'.repeat(16))
    await writeFile(path.join(dir, 'b'), 'x'.repeat(17))
    expect(await read('a')).to.deep.equal({status: 'ok', bytes: Buffer.from('x'.repeat(16))})
    expect(await read('b')).to.deep.equal({status: 'too-large', maxBytes: 16})
    expect(await read('empty-missing')).to.deep.equal({status: 'missing'})
  })

  it('returns at once for a FIFO nobody writes to, naming it', async () => {
    execFileSync('mkfifo', [path.join(dir, 'fifo')])
    expect(await read('fifo')).to.deep.equal({status: 'not-regular', kind: 'a FIFO (named pipe)'})
  })

  it('refuses a device reached through a symlink, a folder and a socket', async () => {
    await symlink('/dev/zero', path.join(dir, 'zero'))
    await mkdir(path.join(dir, 'folder'))
    expect(await read('zero')).to.deep.equal({status: 'not-regular', kind: 'a character device'})
    expect(await read('folder')).to.deep.equal({status: 'not-regular', kind: 'a folder'})
    const server = createServer()
    await new Promise<void>((resolve) => server.listen(path.join(dir, 'socket'), resolve))
    try {
      expect(await read('socket')).to.deep.equal({status: 'not-regular', kind: 'a socket'})
    } finally {
      server.close()
    }
  })

  it('follows a symlink to a regular file only when asked to', async () => {
    await writeFile(path.join(dir, 'target'), 'hello')
    await symlink('target', path.join(dir, 'link'))
    expect(await read('link')).to.deep.equal({status: 'ok', bytes: Buffer.from('hello')})
    expect(await read('link', {followLinks: false})).to.deep.equal({status: 'not-regular', kind: 'a symlink'})
    expect(await read('target', {followLinks: false})).to.deep.equal({status: 'ok', bytes: Buffer.from('hello')})
  })
})
