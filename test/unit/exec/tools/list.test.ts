import {expect} from 'chai'
import {mkdtemp, mkdir, rm, symlink} from 'node:fs/promises'
import {tmpdir} from 'node:os'
import path from 'node:path'

import {describeLink} from '../../../../src/exec/tools/list.js'
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
})
