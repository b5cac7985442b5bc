import {expect} from 'chai'
import {spawn} from 'node:child_process'
import {chmod, link, lstat, mkdir, mkdtemp, readFile, readdir, realpath, rename, rm, symlink, writeFile} from 'node:fs/promises'
import {tmpdir} from 'node:os'
import path from 'node:path'

import {AllowedProtectedPaths} from '../../../../src/exec/protected-paths.js'
import {SandboxProtectionError, planProtectedMounts, prepareProtectedMounts} from '../../../../src/exec/terminal/sandbox-protected.js'
import {compileSwapperOrSkip} from '../../../helpers/swapper.js'

describe('sandbox binds of protected paths (planProtectedMounts, prepareProtectedMounts)', () => {
  let ws: string
  const at = (...parts: string[]) => path.join(ws, ...parts)
  const relative = (files: readonly string[]) => files.map((file) => path.relative(ws, file)).sort()

  beforeEach(async () => {
    ws = await realpath(await mkdtemp(path.join(tmpdir(), 'ak-sandbox-protected-')))
    await mkdir(at('.git', 'hooks'), {recursive: true})
    await mkdir(at('.git', 'info'))
    await mkdir(at('.git', 'objects'))
    await writeFile(at('.git', 'HEAD'), 'ref: refs/heads/main\n')
    await writeFile(at('.git', 'config'), '[core]\n')
  })

  afterEach(async () => {
    await rm(ws, {recursive: true, force: true})
  })

  it('binds the git folder writable and its control entries read-only, and holds missing names with placeholders', async () => {
    const plan = await planProtectedMounts([ws], ws, AllowedProtectedPaths.NONE)
    expect(relative(plan.writable)).to.deep.equal(['.git'])
    expect(relative(plan.readOnly)).to.deep.equal(['.git/config', '.git/hooks', '.git/info'])
    const placeholders = plan.placeholders.map((placeholder) => [path.relative(ws, placeholder.path), placeholder.kind, placeholder.content])
    expect(placeholders).to.deep.include.members([
      ['.git/commondir', 'file', '.\n'],
      ['.codex', 'folder', ''],
      ['.vscode', 'folder', ''],
      ['.mcp.json', 'file', ''],
      ['.envrc', 'file', ''],
    ])
    // objects, refs, the index: not protected.
    expect(relative([...plan.readOnly, ...plan.placeholders.map((placeholder) => placeholder.path)])).not.to.include('.git/objects')
  })

  it('finds nested repositories, .git files and their git folders, and nested settings, but not in node_modules', async () => {
    await mkdir(at('vendor', 'lib', '.git', 'hooks'), {recursive: true})
    await writeFile(at('vendor', 'lib', '.git', 'config'), '[core]\n')
    await mkdir(at('.git', 'modules', 'sub', 'hooks'), {recursive: true})
    await writeFile(at('.git', 'modules', 'sub', 'HEAD'), 'x\n')
    await writeFile(at('.git', 'modules', 'sub', 'config'), '[core]\n')
    await mkdir(at('sub'))
    await writeFile(at('sub', '.git'), 'gitdir: ../.git/modules/sub\n')
    await mkdir(at('packages', 'web', '.vscode'), {recursive: true})
    await writeFile(at('packages', 'web', '.envrc'), 'x\n')
    await mkdir(at('node_modules', 'dep', '.git'), {recursive: true})
    const plan = await planProtectedMounts([ws], ws, AllowedProtectedPaths.NONE)
    expect(relative(plan.writable)).to.deep.equal(['.git', '.git/modules/sub', 'vendor/lib/.git'])
    expect(relative(plan.readOnly)).to.include.members([
      '.git/modules/sub/config',
      '.git/modules/sub/hooks',
      'sub/.git',
      'vendor/lib/.git/config',
      'vendor/lib/.git/hooks',
      'packages/web/.vscode',
      'packages/web/.envrc',
    ])
    expect(relative([...plan.writable, ...plan.readOnly]).some((file) => file.startsWith('node_modules'))).to.equal(false)
  })

  it('finds a protected name or repository added to a folder an earlier walk read and kept', async () => {
    await mkdir(at('a', 'b'), {recursive: true})
    // Past the clock slack, the walk keeps what it read of a and a/b.
    await new Promise((resolve) => setTimeout(resolve, 1100))
    expect(relative((await planProtectedMounts([ws], ws, AllowedProtectedPaths.NONE)).readOnly)).to.deep.equal(['.git/config', '.git/hooks', '.git/info'])
    await mkdir(at('a', 'b', '.vscode'))
    await mkdir(at('a', 'n', '.git', 'hooks'), {recursive: true})
    const plan = await planProtectedMounts([ws], ws, AllowedProtectedPaths.NONE)
    expect(relative(plan.readOnly)).to.deep.equal(['.git/config', '.git/hooks', '.git/info', 'a/b/.vscode', 'a/n/.git/hooks'])
    expect(relative(plan.writable)).to.deep.equal(['.git', 'a/n/.git'])
  })

  it('binds the folder core.hooksPath names read-only, when it is a folder inside', async () => {
    await writeFile(at('.git', 'config'), '[core]\n\tbare = false\n[core "x"]\n\thooksPath = nope\n[Core]\n\tHooksPath = "tools/hooks" ; the project\'s\n')
    await mkdir(at('tools', 'hooks'), {recursive: true})
    const plan = await planProtectedMounts([ws], ws, AllowedProtectedPaths.NONE)
    expect(relative(plan.readOnly)).to.include('tools/hooks')
    await writeFile(at('.git', 'config'), '[core]\n\thooksPath = /usr/share/hooks\n')
    expect(relative((await planProtectedMounts([ws], ws, AllowedProtectedPaths.NONE)).readOnly)).not.to.include('tools/hooks')
  })

  it('binds the control entries of a bare repository the walk finds, by git\'s rule, and not of a folder with only a HEAD', async () => {
    for (const name of ['objects', 'refs', 'hooks']) await mkdir(at('store.git', name), {recursive: true})
    await writeFile(at('store.git', 'HEAD'), 'ref: refs/heads/main\n')
    await writeFile(at('store.git', 'config'), '[core]\n\tbare = true\n')
    await mkdir(at('docs'))
    await writeFile(at('docs', 'HEAD'), 'a file named HEAD\n')
    const plan = await planProtectedMounts([ws], ws, AllowedProtectedPaths.NONE)
    expect(relative(plan.writable)).to.include('store.git')
    expect(relative(plan.readOnly)).to.include.members(['store.git/config', 'store.git/hooks'])
    expect(relative(plan.placeholders.map((placeholder) => placeholder.path))).to.include('store.git/info').and.not.include('docs/config')
  })

  it('holds a missing config.worktree with a placeholder only when the config turns it on, and reads core.hooksPath from the same config', async () => {
    const placeholders = async () => relative((await planProtectedMounts([ws], ws, AllowedProtectedPaths.NONE)).placeholders.map((placeholder) => placeholder.path))
    expect(await placeholders()).not.to.include('.git/config.worktree')
    await mkdir(at('tools', 'hooks'), {recursive: true})
    await writeFile(at('.git', 'config'), '[core]\n\thooksPath = tools/hooks\n[extensions]\n\tworktreeConfig = true\n')
    expect(await placeholders()).to.include('.git/config.worktree')
    expect(relative((await planProtectedMounts([ws], ws, AllowedProtectedPaths.NONE)).readOnly)).to.include('tools/hooks')
  })

  it('refuses a protected name that is a symbolic link, saying how to fix it', async () => {
    await mkdir(at('editor'))
    await symlink('editor', at('.vscode'))
    const error = await planProtectedMounts([ws], ws, AllowedProtectedPaths.NONE).then(
      () => undefined,
      (caught: Error) => caught,
    )
    expect(error).to.be.instanceOf(SandboxProtectionError)
    expect(error?.message).to.include('".vscode": it is a symbolic link').and.to.include('--allow-protected .vscode')
  })

  it('refuses a protected file with another name (a hard link), in a protected folder too, unless it is allowed', async () => {
    const refusal = () => planProtectedMounts([ws], ws, AllowedProtectedPaths.NONE).then(() => undefined, (caught: Error) => caught)
    await writeFile(at('.git', 'hooks', 'pre-push'), '#!/bin/sh\n')
    await link(at('.git', 'hooks', 'pre-push'), at('x'))
    const error = await refusal()
    expect(error).to.be.instanceOf(SandboxProtectionError)
    expect(error?.message).to.include('".git/hooks/pre-push": it is a hard link (one file with 2 names)').and.to.include('cp -p').and.to.include('--allow-protected .git/hooks/pre-push')
    expect((await planProtectedMounts([ws], ws, AllowedProtectedPaths.parse(['.git/hooks/pre-push']))).readOnly).to.include(at('.git', 'hooks'))
    await rm(at('x'))
    expect(await refusal()).to.equal(undefined)
    await link(at('.git', 'config'), at('y'))
    expect((await refusal())?.message).to.include('".git/config": it is a hard link')
  })

  it('leaves allowed paths writable, binding one inside a protected folder writable again', async () => {
    await mkdir(at('.vscode'))
    await writeFile(at('.vscode', 'settings.json'), '{}\n')
    const plan = await planProtectedMounts([ws], ws, AllowedProtectedPaths.parse(['.vscode/settings.json', '.envrc']))
    expect(relative(plan.readOnly)).to.include('.vscode')
    expect(relative(plan.writable)).to.include('.vscode/settings.json')
    expect(plan.placeholders.map((placeholder) => path.relative(ws, placeholder.path))).not.to.include('.envrc')
  })

  it('makes placeholders for a command, shares them between commands, and removes them after the last', async () => {
    const first = await prepareProtectedMounts([ws], ws, AllowedProtectedPaths.NONE)
    const second = await prepareProtectedMounts([ws], ws, AllowedProtectedPaths.NONE)
    const codex = await lstat(at('.codex'))
    expect(codex.isDirectory() && (codex.mode & 0o7777) === 0o555).to.equal(true)
    expect(await readFile(at('.git', 'commondir'), 'utf8')).to.equal('.\n')
    // Parents first: the writable .git before the read-only entries in it.
    expect(first.args.indexOf(at('.git'))).to.be.below(first.args.indexOf(at('.git', 'config')))
    expect(first.args.join(' ')).to.include(`--ro-bind ${at('.mcp.json')} ${at('.mcp.json')}`)
    await first.release()
    expect((await lstat(at('.codex'))).isDirectory()).to.equal(true)
    await second.release()
    for (const name of ['.codex', '.mcp.json', path.join('.git', 'commondir')]) {
      expect(await lstat(at(name)).then(() => true, () => false), name).to.equal(false)
    }
  })

  it('makes placeholders of their modes whatever the umask, and removes them after', async () => {
    const umask = process.umask(0o077)
    try {
      const mounts = await prepareProtectedMounts([ws], ws, AllowedProtectedPaths.NONE)
      expect((await lstat(at('.codex'))).mode & 0o7777).to.equal(0o555)
      expect((await lstat(at('.mcp.json'))).mode & 0o7777).to.equal(0o444)
      expect((await lstat(at('.git', 'commondir'))).mode & 0o7777).to.equal(0o444)
      await mounts.release()
      for (const name of ['.codex', '.mcp.json', path.join('.git', 'commondir')]) {
        expect(await lstat(at(name)).then(() => true, () => false), name).to.equal(false)
      }
    } finally {
      process.umask(umask)
    }
  })

  it('keeps a placeholder that someone filled meanwhile, and takes over one a killed server left', async () => {
    const mounts = await prepareProtectedMounts([ws], ws, AllowedProtectedPaths.NONE)
    await writeFile(at('.mcp.json'), '{"mcpServers": {}}\n', {mode: 0o644}).catch(() => undefined)
    await rm(at('.envrc'))
    await writeFile(at('.envrc'), 'user content\n')
    await mounts.release()
    expect(await readFile(at('.envrc'), 'utf8')).to.equal('user content\n')
    // A leftover placeholder is recognized and removed after the next command.
    await mkdir(at('.claude'), {mode: 0o555})
    const next = await prepareProtectedMounts([ws], ws, AllowedProtectedPaths.NONE)
    await next.release()
    expect(await lstat(at('.claude')).then(() => true, () => false)).to.equal(false)
  })

  it('never removes what looks like a placeholder outside when the folder that held one became a link to it, and removes the placeholders later', async function () {
    if (process.platform !== 'linux') this.skip()
    // A submodule's git folder: its missing control entries are held by placeholders.
    await mkdir(at('.git', 'modules', 'm'), {recursive: true})
    await writeFile(at('.git', 'modules', 'm', 'HEAD'), 'ref: refs/heads/main\n')
    const mounts = await prepareProtectedMounts([ws], ws, AllowedProtectedPaths.NONE)
    expect(mounts.args).to.include(at('.git', 'modules', 'm', 'hooks')).and.to.include(at('.git', 'modules', 'm', 'commondir'))
    // Outside, the same names as the placeholders, alike in every way.
    const outside = `${ws}-outside`
    await mkdir(outside)
    try {
      for (const name of ['hooks', 'info']) {
        await mkdir(path.join(outside, name))
        await chmod(path.join(outside, name), 0o555)
      }
      for (const [name, content] of [['config', ''], ['commondir', '.\n']] as const) {
        await writeFile(path.join(outside, name), content)
        await chmod(path.join(outside, name), 0o444)
      }
      // While the command runs, the folder is moved away and a link to the outside takes its place.
      await rename(at('.git', 'modules', 'm'), at('.git', 'modules', 'moved'))
      await symlink(outside, at('.git', 'modules', 'm'))
      await mounts.release()
      expect((await readdir(outside)).sort()).to.deep.equal(['commondir', 'config', 'hooks', 'info'])
      // The placeholders left in the moved folder are recognized and removed after the next command.
      expect((await readdir(at('.git', 'modules', 'moved'))).sort()).to.deep.equal(['HEAD', 'commondir', 'config', 'hooks', 'info'])
      const next = await prepareProtectedMounts([ws], ws, AllowedProtectedPaths.NONE)
      await next.release()
      expect(await readdir(at('.git', 'modules', 'moved'))).to.deep.equal(['HEAD'])
      expect((await readdir(outside)).sort()).to.deep.equal(['commondir', 'config', 'hooks', 'info'])
    } finally {
      await rm(outside, {recursive: true, force: true})
    }
  })

  it('never makes or removes a placeholder outside when a folder is swapped for a link to the outside meanwhile', async function () {
    this.timeout(120_000)
    if (process.platform !== 'linux') this.skip()
    const swapper = at('..', `${path.basename(ws)}-swapper`)
    await compileSwapperOrSkip(this, swapper)
    const outside = `${ws}-outside`
    await mkdir(outside)
    try {
      // A submodule's git folder (HEAD, no config) and a link to the outside, swapped in a loop.
      await mkdir(at('.git', 'modules', 'm'), {recursive: true})
      await writeFile(at('.git', 'modules', 'm', 'HEAD'), 'ref: refs/heads/main\n')
      await symlink(outside, at('.git', 'modules', 's'))
      const racer = spawn(swapper, [at('.git', 'modules', 'm'), at('.git', 'modules', 's'), String(RACE_SECONDS)], {stdio: 'ignore'})
      const raced = new Promise((resolve) => racer.once('exit', resolve))
      // Commands are prepared for as long as the swapper runs, by the clock: preparing and releasing
      // need not yield to the event loop (they may make no round trip to the thread pool), so the
      // swapper's exit is not seen before the loop ends.
      const racing = Date.now() + RACE_SECONDS * 1000
      let prepared = 0
      const errors = new Set<string>()
      while (Date.now() < racing) {
        const mounts = await prepareProtectedMounts([ws], ws, AllowedProtectedPaths.NONE).catch((error: unknown) => {
          // Refused (a link where a protected name is, or a folder that changed meanwhile), never a raw error.
          if (!(error instanceof SandboxProtectionError)) errors.add(String(error))
          return undefined
        })
        if (mounts) prepared++
        await mounts?.release()
      }
      await raced
      expect(await readdir(outside)).to.deep.equal([])
      expect([...errors]).to.deep.equal([])
      expect(prepared).to.be.above(0)
    } finally {
      await rm(outside, {recursive: true, force: true})
      await rm(swapper, {force: true})
      await rm(`${swapper}.c`, {force: true})
    }
  })
})

/** How long the swapper runs, in seconds. */
const RACE_SECONDS = 4

