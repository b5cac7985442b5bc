import {expect} from 'chai'
import {mkdir, mkdtemp, readFile, realpath, rename, rm, symlink, writeFile} from 'node:fs/promises'
import {tmpdir} from 'node:os'
import path from 'node:path'

import {BadInputError, ProtectedPathError} from '../../../src/errors.js'
import {ConfinedFolder} from '../../../src/exec/files/confined-open.js'
import {
  gitFolderProtectionOf,
  AllowedProtectedPaths,
  GIT_CONTROL_ENTRIES,
  PROTECTED_NAMES,
  assertWritableEntry,
  assertWritablePath,
  describeProtectedNames,
  protectionOf,
} from '../../../src/exec/protected-paths.js'
import {PROTECTED_WALK_MAX_FOLDERS} from '../../../src/exec/terminal/sandbox-protected.js'
import {parentOf, Workspace} from '../../../src/exec/workspace.js'
import {REPO_ROOT} from '../../helpers/clients.js'

/** What threw `action` (fails the test when nothing did). */
function thrown(action: () => unknown): Error {
  try {
    action()
  } catch (error) {
    return error as Error
  }
  throw new Error('expected the call to throw')
}

describe('protected paths', () => {
  describe('protectionOf (the list)', () => {
    const protectedCases: Array<[string, string]> = [
      ['.git', '.git'],
      ['.git/config', '.git/config'],
      ['.git/hooks/pre-commit', '.git/hooks'],
      ['.git/hooks', '.git/hooks'],
      ['.git/info/attributes', '.git/info'],
      ['.git/commondir', '.git/commondir'],
      ['.git/config.worktree', '.git/config.worktree'],
      ['.git/modules/lib/config', '.git/modules/lib/config'],
      ['.git/modules/a/b/hooks/post-checkout', '.git/modules/a/b/hooks'],
      ['.git/worktrees/feature/config.worktree', '.git/worktrees/feature/config.worktree'],
      ['vendor/lib/.git', 'vendor/lib/.git'],
      ['vendor/lib/.git/config', 'vendor/lib/.git/config'],
      ['.codex/agents/evil.toml', '.codex'],
      ['.codex/config.toml', '.codex'],
      ['.claude/settings.json', '.claude'],
      ['.gemini/settings.json', '.gemini'],
      ['.cursor/mcp.json', '.cursor'],
      ['.vscode/tasks.json', '.vscode'],
      ['packages/web/.vscode/settings.json', 'packages/web/.vscode'],
      ['.idea/workspace.xml', '.idea'],
      ['.devcontainer/devcontainer.json', '.devcontainer'],
      ['.mcp.json', '.mcp.json'],
      ['.envrc', '.envrc'],
      ['sub/dir/.envrc', 'sub/dir/.envrc'],
      // Case-insensitive file systems open these as the protected names.
      ['.GIT/Config', '.GIT/Config'],
      ['.VSCode/tasks.json', '.VSCode'],
      // The first protected name from the root wins.
      ['.vscode/.git/config', '.vscode'],
    ]
    for (const [relative, expected] of protectedCases) {
      it(`protects ${relative} as ${expected}`, () => {
        expect(protectionOf(relative)?.path).to.equal(expected)
      })
    }

    const writableCases = [
      '.',
      'src/index.ts',
      '.gitignore',
      '.gitattributes',
      '.gitmodules',
      '.github/workflows/ci.yml',
      '.husky/pre-commit',
      '.pre-commit-config.yaml',
      'package.json',
      '.git/objects/ab/cdef',
      '.git/refs/heads/main',
      '.git/index',
      '.git/HEAD',
      '.git/COMMIT_EDITMSG',
      '.git/logs/HEAD',
      '.git/modules/lib/objects/pack/x.pack',
      'docs/config',
      'hooks/pre-commit',
      'a.git/config',
      '.gitx/config',
      'my.envrc',
      '.vscode-test/x',
    ]
    for (const relative of writableCases) {
      it(`leaves ${relative} writable`, () => {
        expect(protectionOf(relative)).to.equal(undefined)
      })
    }

    it('is the list docs/confinement.md gives, with the sandbox walk\'s limit', async () => {
      const doc = (await readFile(path.join(REPO_ROOT, 'docs', 'confinement.md'), 'utf8')).replace(/\s+/g, ' ')
      for (const rule of [...PROTECTED_NAMES, ...GIT_CONTROL_ENTRIES]) {
        expect(doc, rule.name).to.include(`\`${rule.name}${rule.kind === 'folder' ? '/' : ''}\``)
      }
      expect(doc).to.include(`up to ${PROTECTED_WALK_MAX_FOLDERS} folders`)
    })

    it('says why each name is protected', () => {
      for (const rule of [...PROTECTED_NAMES, ...GIT_CONTROL_ENTRIES]) expect(rule.runBy, rule.name).to.match(/\w{3,}/)
      expect(describeProtectedNames()).to.include('.git (itself, and its config').and.to.include('.mcp.json')
      expect(describeProtectedNames()).to.include('HEAD outside .git').and.to.include('core.hooksPath')
    })
  })

  describe('AllowedProtectedPaths.parse (the operator\'s way out)', () => {
    it('allows a named protected path and what lies below it, and nothing else', () => {
      const allowed = AllowedProtectedPaths.parse(['./.vscode/settings.json', '.codex/'])
      expect(allowed.paths).to.deep.equal(['.vscode/settings.json', '.codex'])
      expect(allowed.covers('.vscode/settings.json')).to.equal(true)
      expect(allowed.covers('.vscode/tasks.json')).to.equal(false)
      expect(allowed.covers('.codex/agents/a.toml')).to.equal(true)
      expect(allowed.covers('.codexx/a')).to.equal(false)
    })

    it('refuses a path that is not protected, naming what is', () => {
      const error = thrown(() => AllowedProtectedPaths.parse(['src/index.ts']))
      expect(error).to.be.instanceOf(BadInputError)
      expect(error.message).to.include('"src/index.ts" is not a protected path').and.to.include('.envrc')
    })

    it('accepts, given the workspace, a path protected only by what is on disk: the folder core.hooksPath names, through a symlinked workspace too', async () => {
      const base = await realpath(await mkdtemp(path.join(tmpdir(), 'ak-allow-disk-')))
      try {
        await mkdir(path.join(base, 'ws', '.git'), {recursive: true})
        await writeFile(path.join(base, 'ws', '.git', 'config'), '[core]\n\thooksPath = tools/githooks\n')
        await symlink('ws', path.join(base, 'link'))
        for (const workspace of [path.join(base, 'ws'), path.join(base, 'link')]) {
          expect(AllowedProtectedPaths.parse(['tools/githooks/pre-commit', 'tools/githooks'], workspace).paths).to.deep.equal(['tools/githooks/pre-commit', 'tools/githooks'])
        }
        expect(thrown(() => AllowedProtectedPaths.parse(['tools/githooks/pre-commit'])).message).to.include('is not a protected path')
        expect(thrown(() => AllowedProtectedPaths.parse(['tools/other'], path.join(base, 'ws'))).message).to.include('is not a protected path')
      } finally {
        await rm(base, {recursive: true, force: true})
      }
    })

    for (const bad of ['', '/etc/passwd', '../.git/config', '~/.envrc', '.']) {
      it(`refuses "${bad}" as not a path inside the workspace`, () => {
        expect(thrown(() => AllowedProtectedPaths.parse([bad])).message).to.include('is not a path inside the workspace')
      })
    }
  })

  describe('assertWritablePath and assertWritableEntry (judged on what confinement resolved)', () => {
    let base: string
    let root: string
    let workspace: Workspace

    before(async () => {
      base = await realpath(await mkdtemp(path.join(tmpdir(), 'ak-protected-')))
      root = path.join(base, 'ws')
      await mkdir(path.join(root, '.git', 'hooks'), {recursive: true})
      await writeFile(path.join(root, '.git', 'config'), '[core]\n')
      await mkdir(path.join(root, 'src'))
      await mkdir(path.join(root, 'nested', '.git'), {recursive: true})
      await writeFile(path.join(root, 'nested', '.git', 'config'), '[core]\n')
      await symlink('.git', path.join(root, 'gitlink'))
      await symlink('../.vscode', path.join(root, 'src', 'editor'))
      workspace = await Workspace.open(root)
    })

    after(async () => {
      await rm(base, {recursive: true, force: true})
    })

    /** Resolves `relative` and judges a write to it; what it threw, or undefined. */
    async function judge(relative: string, allowed = AllowedProtectedPaths.NONE): Promise<Error | undefined> {
      const target = await workspace.resolve(relative)
      try {
        assertWritablePath(target, allowed, target.exists ? 'change' : 'create', relative)
      } catch (error) {
        return error as Error
      }
      return undefined
    }

    it('refuses .git/config with the rule and the operator\'s flag in the message', async () => {
      const error = (await judge('.git/config'))!
      expect(error).to.be.instanceOf(ProtectedPathError)
      expect(error.message).to.include('".git/config" is a protected path').and.to.include('core.fsmonitor')
      expect(error.message).to.include('--allow-protected .git/config').and.to.include('allowProtected')
      expect(error.message).not.to.include(root)
    })

    it('refuses .git/config reached through a symlinked folder, naming the real protected path', async () => {
      const error = (await judge('gitlink/config'))!
      expect(error.message).to.include('"gitlink/config" is a protected path (it is, or lies in, .git/config)')
    })

    it('refuses a file created through a symlink to a protected folder that does not exist yet', async () => {
      expect(await judge('src/editor/tasks.json')).to.be.instanceOf(ProtectedPathError)
    })

    it('refuses the config of a nested repository', async () => {
      expect(await judge('nested/.git/config')).to.be.instanceOf(ProtectedPathError)
    })

    it('refuses creating a file whose missing parent would be a .git folder', async () => {
      const error = (await judge('src/new/.git/HEAD'))!
      expect(error.message).to.include('(it is, or lies in, src/new/.git)').and.to.include('never create')
    })

    it('lets objects, refs and ordinary files be written', async () => {
      for (const relative of ['.git/HEAD', 'src/a.ts', 'nested/.git/refs/heads/main', 'nested/file.txt']) {
        expect(await judge(relative), relative).to.equal(undefined)
      }
    })

    it('lets the operator allow one path through, judged on the real path', async () => {
      const allowed = AllowedProtectedPaths.parse(['.vscode/settings.json'])
      expect(await judge('.vscode/settings.json', allowed)).to.equal(undefined)
      expect(await judge('.vscode/tasks.json', allowed)).to.be.instanceOf(ProtectedPathError)
      // Allowing .vscode does not allow what a link spelled .vscode leads to.
      await symlink('.git', path.join(root, 'src', '.vscode'))
      expect(await judge('src/.vscode/config', AllowedProtectedPaths.parse(['src/.vscode']))).to.be.instanceOf(ProtectedPathError)
    })

    it('judges the folder actually opened: a parent renamed to .git after resolving is refused', async () => {
      const folderPath = path.join(root, 'renamed')
      await mkdir(folderPath)
      const target = await workspace.resolve('renamed/config')
      expect(() => assertWritablePath(target, AllowedProtectedPaths.NONE, 'create')).not.to.throw()
      const folder = await ConfinedFolder.open(workspace, parentOf(target.real), 'renamed/config')
      try {
        await rename(folderPath, path.join(root, 'src', '.git'))
        const error = thrown(() =>
          assertWritableEntry(workspace, folder, Buffer.from('config'), AllowedProtectedPaths.NONE, 'create', 'renamed/config'),
        )
        expect(error).to.be.instanceOf(ProtectedPathError)
        expect(error.message).to.include('(it is, or lies in, src/.git/config)')
      } finally {
        await folder.close()
        await rm(path.join(root, 'src', '.git'), {recursive: true, force: true})
      }
    })
  })

  describe('git folders anywhere (GIT_HEAD_RULE)', () => {
    it('protects HEAD outside a .git folder, but not inside one', () => {
      expect(protectionOf('sub/HEAD')?.rule.name).to.equal('HEAD')
      expect(protectionOf('HEAD')?.path).to.equal('HEAD')
      expect(protectionOf('Sub/head')?.rule.name).to.equal('HEAD')
      expect(protectionOf('.git/HEAD')).to.equal(undefined)
      expect(protectionOf('.git/modules/m/HEAD')).to.equal(undefined)
      expect(protectionOf('sub/HEADER')).to.equal(undefined)
    })

    it('protects the control entries of a folder that holds a HEAD, judged on the disk', async () => {
      const root = await realpath(await mkdtemp(path.join(tmpdir(), 'ak-git-head-')))
      try {
        await mkdir(path.join(root, 'store', 'hooks'), {recursive: true})
        await mkdir(path.join(root, 'plain'))
        const of = (relative: string) => gitFolderProtectionOf(Buffer.from(path.join(root, relative)), relative)
        expect(of('store/config')).to.equal(undefined)
        await writeFile(path.join(root, 'store', 'HEAD'), 'ref: refs/heads/main\n')
        expect(of('store/config')?.path).to.equal('store/config')
        expect(of('store/hooks/pre-commit')?.path).to.equal('store/hooks')
        expect(of('store/objects/ab')).to.equal(undefined)
        expect(of('plain/config')).to.equal(undefined)
      } finally {
        await rm(root, {recursive: true, force: true})
      }
    })
  })
})
