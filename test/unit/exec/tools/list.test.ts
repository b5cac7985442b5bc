import {expect} from 'chai'
import {mkdtemp, mkdir, rm, symlink, writeFile} from 'node:fs/promises'
import {tmpdir} from 'node:os'
import path from 'node:path'

import {ConfinedFolder} from '../../../../src/exec/files/confined-open.js'
import {describeLink, formatListing} from '../../../../src/exec/tools/list.js'
import {Workspace} from '../../../../src/exec/workspace.js'

describe('list describing symlinks', () => {
  let root: string
  let workspace: Workspace

  before(async () => {
    root = await mkdtemp(path.join(tmpdir(), 'ak-list-'))
    await mkdir(path.join(root, 'ws', 'inner'), {recursive: true})
    await mkdir(path.join(root, 'outside'))
    await symlink(path.join(root, 'outside', 'secret'), path.join(root, 'ws', 'to-outside'))
    await symlink('inner', path.join(root, 'ws', 'to-inner'))
    await symlink(path.join(root, 'outside'), path.join(root, 'ws', 'inner', 'door'))
    await symlink('inner/door/x', path.join(root, 'ws', 'through-door'))
    await symlink('self', path.join(root, 'ws', 'self'))
    await symlink('inner/door/../ws/inner', path.join(root, 'ws', 'back-in')) // door/.. is <root>, for the kernel
    await symlink('loop-b', path.join(root, 'ws', 'loop-a'))
    await symlink('loop-a', path.join(root, 'ws', 'loop-b'))
    workspace = await Workspace.open(path.join(root, 'ws'))
  })

  after(() => rm(root, {recursive: true, force: true}))

  /** describeLink for the entry `name` of the workspace root, through a verified open folder. */
  async function describe(name: string, on: Pick<Workspace, 'resolveLinkTarget'> = workspace) {
    const folder = await ConfinedFolder.open(workspace, workspace.rootBytes, '.')
    try {
      return await describeLink(on, folder, Buffer.from(name))
    } finally {
      await folder.close()
    }
  }

  it('calls a link outside by its path alone, never looking at the outside target', async () => {
    const outsideLooks: string[] = []
    const watched = {
      resolveLinkTarget: async (link: Buffer, written: Buffer) => {
        try {
          return await workspace.resolveLinkTarget(link, written)
        } catch (error) {
          outsideLooks.push(String(error))
          throw error
        }
      },
    }
    expect(await describe('to-outside', watched)).to.deep.equal({linkOutside: true})
    expect(outsideLooks).to.have.length(1)
    expect(outsideLooks[0]).to.contain('outside the workspace')
  })

  it('names the workspace-relative target of a link that points inside', async () => {
    expect(await describe('to-inner')).to.deep.equal({linkTarget: 'inner', linkOutside: false})
  })

  it('calls a link outside when its inside-looking target leads out through another link', async () => {
    expect(await describe('through-door')).to.deep.equal({linkOutside: true})
  })

  it('calls a link outside when its target passes through the outside, even if it would come back in', async () => {
    // door/.. is <root> for the kernel; judging that would mean looking at the outside folder.
    expect(await describe('back-in')).to.deep.equal({linkOutside: true})
  })

  it('shows a loop of links inside the workspace as a link loop, not as a link outside', async () => {
    for (const name of ['self', 'loop-a']) {
      expect(await describe(name), name).to.deep.equal({linkLoop: true})
    }
    const listing = formatListing('.', [{name: 'self', kind: 'symlink', linkLoop: true}], {total: 1, first: 1, last: 1, more: 0})
    expect(listing).to.contain('self -> (too many symbolic links')
    expect(listing).not.to.contain('outside')
  })

  it('counts the link itself among the 40 the system follows, as read does', async () => {
    await mkdir(path.join(root, 'ws', 'chain'))
    const ws = path.join(root, 'ws', 'chain')
    await writeFile(path.join(ws, 'target.txt'), 'x')
    await symlink('target.txt', path.join(ws, 'c1'))
    for (let index = 2; index <= 41; index++) await symlink(`c${index - 1}`, path.join(ws, `c${index}`))
    const folder = await ConfinedFolder.open(workspace, Buffer.from(ws), 'chain')
    try {
      expect(await describeLink(workspace, folder, Buffer.from('c40'))).to.deep.equal({linkTarget: 'chain/target.txt', linkOutside: false})
      expect(await describeLink(workspace, folder, Buffer.from('c41'))).to.deep.equal({linkLoop: true})
    } finally {
      await folder.close()
    }
    expect((await workspace.resolve('chain/c40', {mustExist: true})).relative).to.equal('chain/target.txt')
    let error: unknown
    await workspace.resolve('chain/c41').catch((caught: unknown) => (error = caught))
    expect(String(error)).to.contain('Too many symbolic links')
  })
})

describe('list past its cap', () => {
  const file = {name: 'a.txt', kind: 'file', sizeBytes: 3} as const

  it('says which entries it shows, how many more there are and which offset lists them', () => {
    const listing = formatListing('big', [file], {total: 1001, first: 1, last: 1, more: 1000})
    expect(listing.split('\n')).to.deep.equal([
      'big/ (1001 entries; 1 to 1 shown)',
      'a.txt  3 bytes',
      '[1000 more entries not shown. Call list again with offset 2 for the next entries, or use search with a glob (and no query) to find files by name.]',
    ])
  })

  it('counts one more entry in the singular', () => {
    expect(formatListing('big', [file], {total: 2, first: 1, last: 1, more: 1})).to.contain('[1 more entry not shown. Call list again with offset 2')
  })

  it('names the window of a later page and adds no note after the last entry', () => {
    const listing = formatListing('big', [file], {total: 1001, first: 1001, last: 1001, more: 0})
    expect(listing.split('\n')).to.deep.equal(['big/ (1001 entries; 1001 to 1001 shown)', 'a.txt  3 bytes'])
  })

  it('shows a whole folder without a window or a note', () => {
    expect(formatListing('.', [file], {total: 1, first: 1, last: 1, more: 0})).to.equal('./ (1 entry)\na.txt  3 bytes')
    expect(formatListing('e', [], {total: 0, first: 1, last: 0, more: 0})).to.equal('e/ (0 entries)\n(empty folder)')
  })
})
