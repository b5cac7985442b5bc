import {expect} from 'chai'
import {mkdir, mkdtemp, readFile, realpath, rename, rm, symlink, writeFile} from 'node:fs/promises'
import {tmpdir} from 'node:os'
import path from 'node:path'

import {BadInputError} from '../../../src/errors.js'
import {CAN_VERIFY_DESCRIPTORS} from '../../../src/exec/files/descriptors.js'
import {type FolderCursor, openFolderCursor} from '../../../src/exec/workspace-walk.js'
import {Workspace} from '../../../src/exec/workspace.js'

describe('the folder cursor of a path walk, on Linux', function () {
  let base: string
  let ws: string
  let outside: string
  let cursor: FolderCursor | undefined

  before(function () {
    if (!CAN_VERIFY_DESCRIPTORS) this.skip()
  })

  beforeEach(async () => {
    base = await realpath(await mkdtemp(path.join(tmpdir(), 'ak-cursor-')))
    ws = path.join(base, 'ws')
    outside = path.join(base, 'outside')
    await mkdir(path.join(ws, 'dir', 'sub'), {recursive: true})
    await mkdir(outside)
    await writeFile(path.join(outside, 'only-outside.txt'), 'secret\n')
    await writeFile(path.join(ws, 'dir', 'inside.txt'), 'inside\n')
  })

  afterEach(async () => {
    cursor?.release()
    cursor = undefined
    await rm(base, {recursive: true, force: true})
  })

  const enterDir = () => {
    cursor = openFolderCursor(Buffer.from(ws), Buffer.from(ws), 'dir/x')
    expect(cursor.kindOf(Buffer.from('dir'))).to.equal('folder')
    cursor.enter(Buffer.from('dir'), Buffer.from(path.join(ws, 'dir')))
    return cursor
  }

  it('looks at names in the folder it holds, not at what its path leads to after a swap for a link outside', async () => {
    const held = enterDir()
    await rename(path.join(ws, 'dir'), path.join(ws, 'moved'))
    await symlink(outside, path.join(ws, 'dir'))
    expect(held.kindOf(Buffer.from('only-outside.txt'))).to.equal('missing')
    expect(held.kindOf(Buffer.from('inside.txt'))).to.equal('other')
    expect(held.kindOf(Buffer.from('sub'))).to.equal('folder')
  })

  it('refuses to end in a folder that is no longer at its real path', async () => {
    const held = enterDir()
    await rename(path.join(ws, 'dir'), path.join(ws, 'moved'))
    expect(() => held.finish()).to.throw(BadInputError, /"dir\/x" changed while it was being resolved \(a folder on the way was moved or replaced\)/)
  })

  it('refuses to go up ("..") from a folder moved outside, without looking at what holds it now', async () => {
    const held = enterDir()
    held.enter(Buffer.from('sub'), Buffer.from(path.join(ws, 'dir', 'sub')))
    await rename(path.join(ws, 'dir'), path.join(outside, 'dir'))
    expect(() => held.up(Buffer.from(path.join(ws, 'dir')))).to.throw(BadInputError, /changed while it was being resolved/)
  })

  it('refuses to enter a folder swapped for a link since it was looked at', async () => {
    cursor = openFolderCursor(Buffer.from(ws), Buffer.from(ws), 'dir/x')
    expect(cursor.kindOf(Buffer.from('dir'))).to.equal('folder')
    await rename(path.join(ws, 'dir'), path.join(ws, 'moved'))
    await symlink(outside, path.join(ws, 'dir'))
    const held = cursor
    expect(() => held.enter(Buffer.from('dir'), Buffer.from(path.join(ws, 'dir')))).to.throw(BadInputError, /changed while it was being resolved/)
  })

  it('hands over the folder a path ends in, so the object is opened there even after the path was swapped for a link', async () => {
    const workspace = await Workspace.open(ws)
    const held = await workspace.resolveHeld('dir/inside.txt')
    const folder = await workspace.resolveHeld('dir/')
    try {
      await rename(path.join(ws, 'dir'), path.join(ws, 'moved'))
      await symlink(outside, path.join(ws, 'dir'))
      await writeFile(path.join(outside, 'inside.txt'), 'outside\n')
      expect(held.real.toString()).to.equal(path.join(ws, 'dir', 'inside.txt'))
      expect(await readFile(held.via as Buffer, 'utf8')).to.equal('inside\n')
      expect(await readFile(Buffer.concat([folder.via as Buffer, Buffer.from('/inside.txt')]), 'utf8')).to.equal('inside\n')
    } finally {
      held.release()
      folder.release()
      held.release()
    }
  })

  it('takes every name as missing when the root itself is gone', async () => {
    await rm(ws, {recursive: true})
    cursor = openFolderCursor(Buffer.from(ws), Buffer.from(ws), 'x')
    expect(cursor.kindOf(Buffer.from('dir'))).to.equal('missing')
    cursor.finish()
  })
})
