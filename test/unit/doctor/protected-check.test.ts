import {expect} from 'chai'
import {mkdir, mkdtemp, rm, symlink, writeFile} from 'node:fs/promises'
import {tmpdir} from 'node:os'
import path from 'node:path'

import {checkProtectedPaths} from '../../../src/doctor/protected-check.js'

describe('doctor: protected paths check', () => {
  let cwd: string
  beforeEach(async () => {
    cwd = await mkdtemp(path.join(tmpdir(), 'ak-doctor-protected-'))
  })
  afterEach(async () => {
    await rm(cwd, {recursive: true, force: true})
  })

  it('names what is protected and which protected paths the folder holds', async () => {
    await mkdir(path.join(cwd, '.git'))
    await writeFile(path.join(cwd, '.envrc'), 'x\n')
    const result = await checkProtectedPaths({cwd, env: {}, homeDir: cwd})
    expect(result.status).to.equal('ok')
    expect(result.detail).to.include('.git (itself, and its config, config.worktree, commondir, hooks/, info/').and.to.include('.mcp.json')
    expect(result.detail).to.include('here: .git/, .envrc').and.to.include('--allow-protected')
  })

  it('warns about a protected name that is a symbolic link, which the sandbox refuses, saying how to fix it', async () => {
    await mkdir(path.join(cwd, 'editor'))
    await symlink('editor', path.join(cwd, '.vscode'))
    const result = await checkProtectedPaths({cwd, env: {}, homeDir: cwd})
    expect(result.status).to.equal('warn')
    expect(result.detail).to.include('.vscode is a symbolic link')
    expect(result.fix).to.include('--allow-protected .vscode')
  })
})
