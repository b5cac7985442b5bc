import {expect} from 'chai'
import {lstat, mkdtemp, readlink, realpath, rm, symlink, unlink, writeFile} from 'node:fs/promises'
import {tmpdir} from 'node:os'
import path from 'node:path'

import {sha256} from '../../../../src/exec/journal/file-digest.js'
import {Journal} from '../../../../src/exec/journal/journal.js'
import {applyUndo, describeUndoPlan, planUndo, UndoRefusedError} from '../../../../src/exec/journal/undo.js'
import {Workspace} from '../../../../src/exec/workspace.js'

describe('undo of recorded changes', () => {
  let base: string
  let ws: string
  let journal: Journal
  let workspace: Workspace

  beforeEach(async () => {
    base = await realpath(await mkdtemp(path.join(tmpdir(), 'ak-undo-')))
    ws = path.join(base, 'ws')
    await (await import('node:fs/promises')).mkdir(ws)
    workspace = await Workspace.open(ws)
    journal = new Journal(workspace.root, {folder: path.join(base, 'state')})
  })
  afterEach(async () => {
    await journal.close()
    await rm(base, {recursive: true, force: true})
  })

  it('brings back a deleted symbolic link as a link, and undoing that undo removes it again', async () => {
    await writeFile(path.join(ws, 'target.txt'), 'target')
    await symlink('target.txt', path.join(ws, 'link'))
    const info = await lstat(path.join(ws, 'link'))
    const change = await journal.begin('edit', [
      {path: Buffer.from('link'), operation: 'deleted', before: {content: Buffer.from('target.txt'), mode: info.mode & 0o177777}, after: null},
    ])
    await unlink(path.join(ws, 'link'))
    await change.commit()

    const plan = await planUndo(journal, workspace)
    expect(describeUndoPlan(plan)).to.contain('recreate link (a symbolic link; the change deleted it)')
    await applyUndo(journal, workspace, plan)
    expect((await lstat(path.join(ws, 'link'))).isSymbolicLink()).to.equal(true)
    expect(await readlink(path.join(ws, 'link'))).to.equal('target.txt')

    await applyUndo(journal, workspace, await planUndo(journal, workspace, 2))
    expect(await lstat(path.join(ws, 'link')).catch(() => 'gone')).to.equal('gone')
  })

  it('refuses when a link now stands where the change left a file, naming it', async () => {
    await writeFile(path.join(ws, 'a.txt'), 'new')
    const change = await journal.begin('edit', [
      {path: Buffer.from('a.txt'), operation: 'updated', before: {content: Buffer.from('old'), mode: 0o644}, after: {sha256: sha256(Buffer.from('new')), mode: 0o644}},
    ])
    await change.commit()
    await unlink(path.join(ws, 'a.txt'))
    await symlink('/etc/passwd', path.join(ws, 'a.txt'))
    const error = await applyUndo(journal, workspace, await planUndo(journal, workspace)).catch((caught: unknown) => caught)
    expect(error).to.be.instanceOf(UndoRefusedError)
    expect((error as Error).message).to.contain('a.txt: its content changed since')
    expect(await readlink(path.join(ws, 'a.txt'))).to.equal('/etc/passwd')
  })
})
