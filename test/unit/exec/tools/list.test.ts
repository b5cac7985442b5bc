import {expect} from 'chai'
import {mkdtemp, mkdir, rm, symlink} from 'node:fs/promises'
import {tmpdir} from 'node:os'
import path from 'node:path'

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

  it('calls a link outside by its path alone, never resolving the outside target', async () => {
    const guarded = {
      isInside: (real: string) => workspace.isInside(real),
      resolve: () => {
        throw new Error('resolve must not be called for a target outside the workspace')
      },
    }
    expect(await describeLink(guarded, path.join(workspace.root, 'to-outside'))).to.deep.equal({linkOutside: true})
  })

  it('names the workspace-relative target of a link that points inside', async () => {
    expect(await describeLink(workspace, path.join(workspace.root, 'to-inner'))).to.deep.equal({
      linkTarget: 'inner',
      linkOutside: false,
    })
  })

  it('calls a link outside when its inside-looking target leads out through another link', async () => {
    expect(await describeLink(workspace, path.join(workspace.root, 'through-door'))).to.deep.equal({linkOutside: true})
  })

  it('resolves .. after a linked folder in a target as the kernel does, not as text', async () => {
    expect(await describeLink(workspace, path.join(workspace.root, 'back-in'))).to.deep.equal({
      linkTarget: 'inner',
      linkOutside: false,
    })
  })

  it('shows a loop of links inside the workspace as a link loop, not as a link outside', async () => {
    for (const name of ['self', 'loop-a']) {
      expect(await describeLink(workspace, path.join(workspace.root, name)), name).to.deep.equal({linkLoop: true})
    }
    const listing = formatListing('.', [{name: 'self', kind: 'symlink', linkLoop: true}], 1)
    expect(listing).to.contain('self -> (symlink loop')
    expect(listing).not.to.contain('outside')
  })
})
