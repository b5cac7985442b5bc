import {expect} from 'chai'
import {execFileSync} from 'node:child_process'
import {chmod, mkdir, mkdtemp, realpath, rm, symlink, writeFile} from 'node:fs/promises'
import {homedir, tmpdir} from 'node:os'
import path from 'node:path'

import {BadInputError, NotFoundError, OutsideWorkspaceError, SymlinkLoopError} from '../../../src/errors.js'
import {MAX_NAME_BYTES, MAX_PATH_ARGUMENT_CHARS, MAX_SYMLINK_HOPS, type ResolvedPath, Workspace} from '../../../src/exec/workspace.js'

/** A resolved path with its bytes as text, for comparing. */
function plain(resolved: ResolvedPath) {
  return {...resolved, real: resolved.real.toString(), missing: resolved.missing.map((name) => name.toString())}
}

/** Runs `action` and returns what it threw (fails the test when it did not throw). */
async function thrown(action: () => Promise<unknown>): Promise<Error> {
  try {
    await action()
  } catch (error) {
    return error as Error
  }
  throw new Error('expected the call to throw')
}

describe('Workspace confinement', () => {
  let base: string // holds the workspace and an "outside" next to it
  let root: string
  let outside: string
  let workspace: Workspace

  before(async () => {
    base = await realpath(await mkdtemp(path.join(tmpdir(), 'ak-ws-')))
    root = path.join(base, 'ws')
    outside = path.join(base, 'outside')
    await mkdir(path.join(root, 'src', 'deep'), {recursive: true})
    await mkdir(outside)
    await mkdir(path.join(base, 'ws_evil'))
    await writeFile(path.join(root, 'src', 'a.txt'), 'inside\n')
    await writeFile(path.join(outside, 'secret.txt'), 'secret\n')
    await writeFile(path.join(base, 'ws_evil', 'x.txt'), 'evil\n')
    await symlink(path.join(outside, 'secret.txt'), path.join(root, 'to-secret'))
    await symlink(outside, path.join(root, 'to-outside'))
    await symlink(path.join(outside, 'not-yet.txt'), path.join(root, 'dangling-out'))
    await symlink('src/not-yet.txt', path.join(root, 'dangling-in'))
    await symlink('src/a.txt', path.join(root, 'to-a'))
    await symlink('src', path.join(root, 'src-link'))
    await symlink('loop-b', path.join(root, 'loop-a'))
    await symlink('loop-a', path.join(root, 'loop-b'))
    workspace = await Workspace.open(root)
  })

  after(async () => {
    await rm(base, {recursive: true, force: true})
  })

  it('opens a workspace at its real path and refuses a missing folder or a file', async () => {
    expect(workspace.root).to.equal(root)
    const missing = await thrown(() => Workspace.open(path.join(base, 'nope\n')))
    expect(missing).to.be.instanceOf(BadInputError)
    expect(missing.message).to.equal(`Workspace "${base}/nope\\n" does not exist. Pass --workspace an existing folder.`)
    const file = await thrown(() => Workspace.open(path.join(root, 'src', 'a.txt')))
    expect(file).to.be.instanceOf(BadInputError)
    expect(file.message).to.equal(`Workspace "${root}/src/a.txt" is not a folder. Pass --workspace an existing folder.`)
  })

  it('says why a workspace cannot be opened: "~" is not expanded, a loop of links is a loop', async () => {
    const tilde = await thrown(() => Workspace.open('~/ak-no-such-project'))
    expect(tilde).to.be.instanceOf(BadInputError)
    expect(tilde.message).to.contain('ak does not expand "~"').and.contain(`"${path.join(homedir(), 'ak-no-such-project')}"`)
    expect((await thrown(() => Workspace.open('~'))).message).to.contain('ak does not expand "~"').and.contain(`"${homedir()}"`)
    const inner = await thrown(() => Workspace.open(path.join(base, 'x~', 'y')))
    expect(inner.message).to.equal(`Workspace "${base}/x~/y" does not exist. Pass --workspace an existing folder.`)
    await symlink('ws-loop-b', path.join(base, 'ws-loop-a'))
    await symlink('ws-loop-a', path.join(base, 'ws-loop-b'))
    const loop = await thrown(() => Workspace.open(path.join(base, 'ws-loop-a')))
    expect(loop.message).to.contain('is a loop of symbolic links').and.not.contain('does not exist')
  })

  it('resolves a relative path against the workspace', async () => {
    const resolved = await workspace.resolve('src/a.txt')
    expect(plain(resolved)).to.deep.equal({real: path.join(root, 'src', 'a.txt'), relative: 'src/a.txt', exists: true, missing: []})
    expect((await workspace.resolve('.')).relative).to.equal('.')
  })

  it('accepts an absolute path that lies inside', async () => {
    expect((await workspace.resolve(path.join(root, 'src'))).relative).to.equal('src')
  })

  it('refuses ../ traversal, even when it comes back in further on', async () => {
    for (const requested of ['..', '../outside/secret.txt', 'src/../../outside', 'src/deep/../../../ws_evil']) {
      const error = await thrown(() => workspace.resolve(requested))
      expect(error, requested).to.be.instanceOf(OutsideWorkspaceError)
    }
    expect((await workspace.resolve('src/../src/a.txt')).relative).to.equal('src/a.txt')
  })

  it('refuses an absolute path outside', async () => {
    for (const requested of ['/etc/passwd', '/', path.join(outside, 'secret.txt')]) {
      expect(await thrown(() => workspace.resolve(requested)), requested).to.be.instanceOf(OutsideWorkspaceError)
    }
  })

  it('refuses a sibling whose name has the workspace name as prefix (<ws>_evil)', async () => {
    expect(await thrown(() => workspace.resolve(path.join(base, 'ws_evil', 'x.txt')))).to.be.instanceOf(
      OutsideWorkspaceError,
    )
    expect(await thrown(() => workspace.resolve(`${root}_evil`))).to.be.instanceOf(OutsideWorkspaceError)
  })

  it('refuses a symlink inside that points to a file outside', async () => {
    expect(await thrown(() => workspace.resolve('to-secret'))).to.be.instanceOf(OutsideWorkspaceError)
  })

  it('refuses a symlink inside that points to a folder outside, and paths through it', async () => {
    for (const requested of ['to-outside', 'to-outside/secret.txt', 'to-outside/new-file.txt', 'to-outside/a/b']) {
      expect(await thrown(() => workspace.resolve(requested)), requested).to.be.instanceOf(OutsideWorkspaceError)
    }
  })

  it('refuses a dangling symlink whose target would be outside instead of treating it as missing', async () => {
    expect(await thrown(() => workspace.resolve('dangling-out'))).to.be.instanceOf(OutsideWorkspaceError)
    expect(await thrown(() => workspace.resolve('dangling-out/child'))).to.be.instanceOf(OutsideWorkspaceError)
  })

  it('resolves a dangling symlink pointing inside to its missing target', async () => {
    const resolved = await workspace.resolve('dangling-in')
    expect(plain(resolved)).to.deep.equal({
      real: path.join(root, 'src', 'not-yet.txt'),
      relative: 'src/not-yet.txt',
      exists: false,
      missing: ['not-yet.txt'],
    })
  })

  it('resolves a relative dangling link against the real folder it lives in, as the kernel does', async () => {
    // deep/back -> the workspace root, so deep/back/d -> ../x points (for the kernel) at <base>/x, outside.
    await mkdir(path.join(root, 'deep2', 'er'), {recursive: true})
    await symlink(root, path.join(root, 'deep2', 'er', 'back'))
    await symlink('../x', path.join(root, 'dangling-rel'))
    try {
      expect(await thrown(() => workspace.resolve('deep2/er/back/dangling-rel'))).to.be.instanceOf(
        OutsideWorkspaceError,
      )
    } finally {
      await rm(path.join(root, 'deep2'), {recursive: true, force: true})
      await rm(path.join(root, 'dangling-rel'))
    }
  })

  it('resolves a path through a symlinked folder inside to its real path', async () => {
    const resolved = await workspace.resolve('src-link/a.txt')
    expect(resolved.real.toString()).to.equal(path.join(root, 'src', 'a.txt'))
    expect(resolved.relative).to.equal('src/a.txt')
    expect((await workspace.resolve('src-link/new/file.txt')).relative).to.equal('src/new/file.txt')
  })

  it('follows a symlink inside that points inside', async () => {
    expect(plain(await workspace.resolve('to-a', {mustExist: true}))).to.deep.equal({
      real: path.join(root, 'src', 'a.txt'),
      relative: 'src/a.txt',
      exists: true,
      missing: [],
    })
  })

  it('keeps a missing tail as written and reports it as missing', async () => {
    const resolved = await workspace.resolve('src/new/deeper/file.txt')
    expect(plain(resolved)).to.deep.equal({
      real: path.join(root, 'src', 'new', 'deeper', 'file.txt'),
      relative: 'src/new/deeper/file.txt',
      exists: false,
      missing: ['new', 'deeper', 'file.txt'],
    })
  })

  it('says when a path that must exist does not', async () => {
    const error = await thrown(() => workspace.resolve('src/missing.txt', {mustExist: true}))
    expect(error).to.be.instanceOf(NotFoundError)
    expect(error.message).to.equal('Nothing exists at "src/missing.txt" in the workspace. Check the path with the list tool.')
    // A path is shown up to its 200th character.
    const long = `src/${'m/'.repeat(98)}x`
    expect(long).to.have.length(201)
    const shortened = await thrown(() => workspace.resolve(long, {mustExist: true}))
    expect(shortened.message).to.equal(`Nothing exists at "${long.slice(0, 200)}…" in the workspace. Check the path with the list tool.`)
    const whole = await thrown(() => workspace.resolve(long.slice(0, 200), {mustExist: true}))
    expect(whole.message).to.equal(`Nothing exists at "${long.slice(0, 200)}" in the workspace. Check the path with the list tool.`)
  })

  it('refuses an empty path and a path with a NUL byte', async () => {
    const empty = await thrown(() => workspace.resolve(''))
    expect(empty).to.be.instanceOf(BadInputError)
    expect(empty.message).to.equal('The path is empty. Pass a path inside the workspace ("." for its root).')
    for (const requested of ['src/a\0.txt', 'src/a\\x00.txt']) {
      const error = await thrown(() => workspace.resolve(requested))
      expect(error, requested).to.be.instanceOf(BadInputError)
      expect(error.message).to.equal(`The path "${requested.replace('\0', '\\x00')}" contains a NUL byte, which no file name can hold. Pass a plain path.`)
    }
  })

  it('reports a symlink loop as bad input, not an internal error', async () => {
    expect(await thrown(() => workspace.resolve('loop-a'))).to.be.instanceOf(BadInputError)
    expect(await thrown(() => workspace.resolve('loop-a/child'))).to.be.instanceOf(BadInputError)
  })

  describe('walking the path as the kernel does', () => {
    before(async () => {
      await mkdir(path.join(root, 'links'))
      await symlink('../src/deep', path.join(root, 'links', 'to-deep'))
      await symlink('../src', path.join(root, 'links', 'to-src'))
      await mkdir(path.join(root, 'sub', 'x'), {recursive: true})
      await symlink('../..', path.join(root, 'sub', 'x', 'up')) // the workspace root
      await symlink('two', path.join(root, 'links', 'one'))
      await symlink('../sub/three', path.join(root, 'links', 'two'))
      await symlink('../src-link/a.txt', path.join(root, 'sub', 'three'))
      await symlink('self', path.join(root, 'self'))
    })

    it('takes .. after a symlinked folder to the parent of the real folder, where the kernel goes', async () => {
      for (const requested of ['links/to-deep/../a.txt', 'sub/x/up/../ws/src/a.txt', 'links/to-src/./deep/..']) {
        const resolved = await workspace.resolve(requested, {mustExist: true})
        // Concatenated, not path.join-ed: joining would fold the .. as text before the kernel sees it.
        expect(resolved.real.toString(), requested).to.equal(await realpath(`${root}/${requested}`))
      }
      expect((await workspace.resolve('links/to-deep/../a.txt')).relative).to.equal('src/a.txt')
    })

    it('refuses .. after a symlinked folder when the real parent leads outside', async () => {
      // Folded as text this would be <ws>/outside/secret.txt, a missing path inside.
      for (const requested of ['links/to-src/../../outside/secret.txt', 'sub/x/up/..', 'sub/x/up/../outside/new.txt']) {
        expect(await thrown(() => workspace.resolve(requested)), requested).to.be.instanceOf(OutsideWorkspaceError)
      }
    })

    it('follows a chain of relative links, each relative to the real folder holding it', async () => {
      const resolved = await workspace.resolve('links/one', {mustExist: true})
      expect(resolved.real.toString()).to.equal(await realpath(`${root}/links/one`))
      expect(resolved.relative).to.equal('src/a.txt')
    })

    it('reports a link to itself and a loop of two links as a SymlinkLoopError', async () => {
      for (const requested of ['self', 'self/child', 'loop-a', 'links/../loop-b/x']) {
        const error = await thrown(() => workspace.resolve(requested))
        expect(error, requested).to.be.instanceOf(SymlinkLoopError)
        expect(error.message).to.contain(`"${requested}"`)
      }
    })

    it('refuses .. inside a missing tail, which the kernel would not find either', async () => {
      for (const requested of ['src/nope/../a.txt', 'nope/..']) {
        const error = await thrown(() => workspace.resolve(requested))
        expect(error, requested).to.be.instanceOf(BadInputError)
        expect(error.message).to.contain('does not exist')
      }
    })

    it('treats a trailing / as naming a folder: refused after a file, flagged when missing', async () => {
      for (const requested of ['src/a.txt/', 'to-a/', 'src/a.txt/.', 'src/a.txt/..', 'src/a.txt/x']) {
        const error = await thrown(() => workspace.resolve(requested))
        expect(error, requested).to.be.instanceOf(BadInputError)
        expect(error.message).to.contain('is a file, not a folder')
      }
      expect(plain(await workspace.resolve('src/'))).to.deep.equal({
        real: path.join(root, 'src'),
        relative: 'src',
        exists: true,
        missing: [],
        namesFolder: true,
      })
      expect(plain(await workspace.resolve('newdir2/'))).to.deep.equal({
        real: path.join(root, 'newdir2'),
        relative: 'newdir2',
        exists: false,
        missing: ['newdir2'],
        namesFolder: true,
      })
    })

    it('says only "outside" when a path goes wrong outside the workspace', async () => {
      for (const requested of ['to-outside/secret.txt/', 'to-outside/nope/../x', '../outside/secret.txt/x']) {
        expect(await thrown(() => workspace.resolve(requested)), requested).to.be.instanceOf(OutsideWorkspaceError)
      }
    })
  })

  it('names the path as given and reveals nothing of the outside target', async () => {
    for (const requested of ['to-secret', 'dangling-out', 'to-outside/secret.txt']) {
      const error = await thrown(() => workspace.resolve(requested))
      expect(error.message).to.contain(`"${requested}"`)
      expect(error.message).not.to.contain(outside)
    }
  })

  describe('judging before touching the outside', () => {
    it('refuses a path through an outside folder as outside whatever its names, without looking at them', async () => {
      for (const requested of [`/etc/${'a'.repeat(300)}`, `/nonexistent/${'a'.repeat(300)}`, `${outside}/${'a'.repeat(300)}`, '/proc/1/root/x']) {
        const error = await thrown(() => workspace.resolve(requested))
        expect(error, requested).to.be.instanceOf(OutsideWorkspaceError)
      }
    })

    it("comes back in through the root's own names above it, without leaving", async () => {
      expect((await workspace.resolve('../ws/src/a.txt', {mustExist: true})).relative).to.equal('src/a.txt')
      expect((await workspace.resolve(`${base}/../${path.basename(base)}/ws/src`)).relative).to.equal('src')
    })

    it('refuses a name longer than file systems allow inside the workspace as bad input', async () => {
      const error = await thrown(() => workspace.resolve(`src/${'n'.repeat(256)}`))
      expect(error).to.be.instanceOf(BadInputError)
      expect(error.message).to.contain('at most 255 bytes per name')
    })

    it('refuses a leading ~, saying how to name a file that really starts with one', async () => {
      const error = await thrown(() => workspace.resolve('~/notes.txt'))
      expect(error).to.be.instanceOf(BadInputError)
      expect(error.message).to.contain('does not expand "~"')
      expect((await workspace.resolve('./~notes.txt')).relative).to.equal('~notes.txt')
    })

    it('reads paths in the display form: \\xHH bytes and escapes', async () => {
      const resolved = await workspace.resolve('src/new-\\xff\\n.txt')
      expect([...resolved.real.subarray(-7)]).to.deep.equal([0x2d, 0xff, 0x0a, ...Buffer.from('.txt')])
      expect(resolved.relative).to.equal('src/new-\\xff\\n.txt')
    })

    it('accepts absolute paths spelled through the symlinked folder the workspace was opened by', async () => {
      const alias = path.join(base, 'alias')
      await symlink(root, alias)
      try {
        const aliased = await Workspace.open(alias)
        expect(aliased.root).to.equal(root)
        expect((await aliased.resolve(path.join(alias, 'src', 'a.txt'), {mustExist: true})).relative).to.equal('src/a.txt')
        expect((await aliased.resolve(alias)).relative).to.equal('.')
        expect(await thrown(() => aliased.resolve(`${alias}x/src`))).to.be.instanceOf(OutsideWorkspaceError)
        expect(await thrown(() => aliased.resolve(path.join(alias, '..', 'outside')))).to.be.instanceOf(OutsideWorkspaceError)
        // A link's absolute target is unaliased only when it starts with the alias as a whole name:
        // "other" is as long as "alias", so a prefix taken by length alone would land inside.
        const link = Buffer.from(path.join(root, 'src', 'link'))
        for (const target of [path.join(base, 'other', 'src', 'a.txt'), path.join(base, 'other')]) {
          expect(await thrown(() => aliased.resolveLinkTarget(link, Buffer.from(target))), target).to.be.instanceOf(OutsideWorkspaceError)
        }
        expect((await aliased.resolveLinkTarget(link, Buffer.from(path.join(alias, 'src', 'a.txt')))).relative).to.equal('src/a.txt')
      } finally {
        await rm(alias)
      }
    })

    it('refuses an empty workspace path instead of serving the current folder', async () => {
      const error = await thrown(() => Workspace.open(''))
      expect(error).to.be.instanceOf(BadInputError)
      expect(error.message).to.contain('empty')
    })

    it('refuses a path argument longer than any path can be, and walks the longest accepted ones', async () => {
      const long = `${'./'.repeat(300_000)}src/a.txt`
      const error = await thrown(() => workspace.resolve(long))
      expect(error).to.be.instanceOf(BadInputError)
      expect(error.message).to.contain('a path may have at most 16384')
      expect(error.message.length).to.be.below(600)
      expect((await workspace.resolve(`${'./'.repeat(8000)}src/a.txt`, {mustExist: true})).relative).to.equal('src/a.txt')
      expect((await workspace.resolve(`${'x/'.repeat(8000)}new.txt`)).missing).to.have.length(8001)
    })

    it('refuses a path holding a lone surrogate instead of reading it as U+FFFD', async () => {
      const error = await thrown(() => workspace.resolve('src/\ud800.txt'))
      expect(error).to.be.instanceOf(BadInputError)
      expect(error.message).to.contain('lone UTF-16 surrogate')
      expect((await workspace.resolve('src/\ud83d\ude00.txt')).relative).to.equal('src/\ud83d\ude00.txt')
    })
  })
})

describe('Workspace confinement at the limits of the system', () => {
  let root: string
  let workspace: Workspace

  before(async () => {
    root = await realpath(await mkdtemp(path.join(tmpdir(), 'ak-ws-limits-')))
    workspace = await Workspace.open(root)
  })

  after(() => {
    execFileSync('rm', ['-rf', root]) // Node's rm cannot remove folders nested past PATH_MAX
  })

  /** A chain of `links` symlinks `<prefix>0` → `<prefix>1` → … ending at a file. */
  async function chain(prefix: string, links: number): Promise<void> {
    await writeFile(path.join(root, `${prefix}${links}`), 'end\n')
    for (let index = 0; index < links; index++) await symlink(`${prefix}${index + 1}`, path.join(root, `${prefix}${index}`))
  }

  it('follows exactly MAX_SYMLINK_HOPS links and refuses one more, saying to check for a loop', async () => {
    await chain('ok', MAX_SYMLINK_HOPS)
    expect((await workspace.resolve('ok0', {mustExist: true})).relative).to.equal(`ok${MAX_SYMLINK_HOPS}`)
    await chain('long', MAX_SYMLINK_HOPS + 1)
    const error = await thrown(() => workspace.resolve('long0'))
    expect(error).to.be.instanceOf(SymlinkLoopError)
    expect(error.message).to.equal('Too many symbolic links while resolving "long0". Check for a link loop.')
    // Judging a link's target counts the link itself as the first hop.
    const link = (name: string) => Buffer.from(path.join(root, name))
    expect((await workspace.resolveLinkTarget(link('ok0'), Buffer.from('ok1'))).relative).to.equal(`ok${MAX_SYMLINK_HOPS}`)
    expect(await thrown(() => workspace.resolveLinkTarget(link('long0'), Buffer.from('long1')))).to.be.instanceOf(SymlinkLoopError)
    expect((await workspace.resolveLinkTarget(link('ok0'), Buffer.from(path.join(root, 'ok1')))).relative).to.equal(`ok${MAX_SYMLINK_HOPS}`)
  })

  it('reports a path longer than the system allows as too long, not as missing', async () => {
    // Folders nested past PATH_MAX (4096 bytes), built from the inside out so that no system call
    // is given a path that long: each round moves the nest so far into a new folder.
    const name = 'd'.repeat(200)
    const depth = 21
    execFileSync('sh', ['-c', `cd "$1" && mkdir nest && for i in $(seq ${depth - 1}); do mkdir next && mv nest next/${name} && mv next nest; done && mv nest ${name}`, 'sh', root])
    const requested = `${Array.from({length: depth}, () => name).join('/')}/file.txt`
    const error = await thrown(() => workspace.resolve(requested))
    expect(error).to.be.instanceOf(BadInputError)
    expect(error.message).to.equal(`"${requested}" is longer than the system allows (255 bytes per name, 4096 per path). Use a shorter path.`)
  })

  it('reports a folder it may not look into as a permission problem, not as missing', async function () {
    if (process.getuid?.() === 0) this.skip() // root reads every folder, so there is no refusal to see
    await mkdir(path.join(root, 'closed', 'inner'), {recursive: true})
    await chmod(path.join(root, 'closed'), 0o000)
    try {
      const error = await thrown(() => workspace.resolve('closed/inner/file.txt'))
      expect(error).to.be.instanceOf(BadInputError)
      expect(error.message).to.equal(
        `No permission for "closed/inner/file.txt": the server's user may not open it or a folder on the way. Check its permissions.`,
      )
    } finally {
      await chmod(path.join(root, 'closed'), 0o755)
    }
  })
})

describe('Workspace, word for word and at its edges', () => {
  let root: string
  let workspace: Workspace

  before(async () => {
    root = await realpath(await mkdtemp(path.join(tmpdir(), 'ak-ws-words-')))
    await mkdir(path.join(root, 'src'))
    await writeFile(path.join(root, 'src', 'a.txt'), 'a\n')
    workspace = await Workspace.open(root)
  })

  after(async () => {
    await rm(root, {recursive: true, force: true})
  })

  /** The message of what resolving `requested` threw, checking its class. */
  async function refusal(requested: string, type: typeof BadInputError = BadInputError): Promise<string> {
    const error = await thrown(() => workspace.resolve(requested))
    expect(error, requested).to.be.instanceOf(type)
    return error.message
  }

  it('says what was wrong with a path and what to do', async () => {
    expect(await refusal('src/a.txt/x')).to.equal('A part of "src/a.txt/x" is a file, not a folder. Check the path with the list tool.')
    expect(await refusal('src/a.txt/')).to.equal(
      'A part of "src/a.txt/" is a file, not a folder (a path ending in "/" names a folder). Check the path with the list tool.',
    )
    expect(await refusal('src/nope/../a.txt')).to.equal(
      '"src/nope/../a.txt" goes up ("..") out of a folder that does not exist, which the system refuses too. Remove the "..", or create the folder first.',
    )
    expect(await refusal('~/notes')).to.equal(
      'The path "~/notes" starts with "~". ak does not expand "~": paths are relative to the workspace, or absolute inside it. ' +
        'For a file really named "~/notes", write "./~/notes".',
    )
    expect(await refusal('src/\ud800.txt')).to.equal(
      'The path "src/\ud800.txt" holds a lone UTF-16 surrogate, which is not a character. Pass the path as it is shown.',
    )
    expect(await refusal(`src/${'n'.repeat(MAX_NAME_BYTES + 1)}`)).to.equal(
      `A name in "src/${'n'.repeat(MAX_NAME_BYTES + 1)}" is 256 bytes long; file systems allow at most 255 bytes per name. Use a shorter name.`,
    )
    expect(await refusal('/elsewhere/x', OutsideWorkspaceError)).to.equal(
      'Path "/elsewhere/x" is outside the workspace. Use a path inside the workspace (relative paths are resolved against it).',
    )
    const empty = await thrown(() => Workspace.open(' '))
    expect(empty.message).to.equal('The workspace path is empty. Pass --workspace an existing folder (for example --workspace .).')
  })

  it('accepts a name of MAX_NAME_BYTES bytes and a path argument of MAX_PATH_ARGUMENT_CHARS characters, and refuses one more', async () => {
    const longestName = 'n'.repeat(MAX_NAME_BYTES)
    expect((await workspace.resolve(`src/${longestName}`)).missing.map(String)).to.deep.equal([longestName])
    const longest = `${'./'.repeat((MAX_PATH_ARGUMENT_CHARS - 'src//a.txt'.length) / 2)}src//a.txt`
    expect(longest).to.have.length(MAX_PATH_ARGUMENT_CHARS)
    expect((await workspace.resolve(longest, {mustExist: true})).relative).to.equal('src/a.txt')
    const tooLong = `x${longest}`
    expect(tooLong).to.have.length(MAX_PATH_ARGUMENT_CHARS + 1)
    expect(await refusal(tooLong)).to.equal(
      `The path "${tooLong.slice(0, 200)}…" has ${MAX_PATH_ARGUMENT_CHARS + 1} characters; a path may have at most ${MAX_PATH_ARGUMENT_CHARS} ` +
        '(the system allows 4096 bytes). Pass a shorter path.',
    )
  })

  it('keeps the missing tail of a path without its "." names', async () => {
    const resolved = await workspace.resolve('src/./new/./deeper/file.txt')
    expect({real: resolved.real.toString(), missing: resolved.missing.map(String), exists: resolved.exists}).to.deep.equal({
      real: path.join(root, 'src', 'new', 'deeper', 'file.txt'),
      missing: ['new', 'deeper', 'file.txt'],
      exists: false,
    })
    expect(resolved.namesFolder).to.equal(undefined)
    for (const requested of ['src/', 'src/.', 'src/..', '.', 'new/']) expect((await workspace.resolve(requested)).namesFolder, requested).to.equal(true)
  })

  it('comes back in from above the root through its names, after going up past the top', async () => {
    expect((await workspace.resolve(`/../..${root}/src/a.txt`, {mustExist: true})).relative).to.equal('src/a.txt')
    expect((await workspace.resolve(`../${path.basename(root)}/src`)).relative).to.equal('src')
    expect(await refusal(`../${path.basename(root)}x/src`, OutsideWorkspaceError)).to.contain('is outside the workspace')
  })

  it('tells paths inside the root from others, given as text or as a view into bytes', () => {
    expect(workspace.isInside(root)).to.equal(true)
    expect(workspace.isInside(`${root}/src/a.txt`)).to.equal(true)
    expect(workspace.isInside(`${root}x`)).to.equal(false)
    expect(workspace.isInside(path.dirname(root))).to.equal(false)
    expect(workspace.isInside(`${root.slice(0, -1)}~/inner`)).to.equal(false)
    const bytes = Buffer.from(`zz${root}/src`)
    expect(workspace.isInside(bytes.subarray(2))).to.equal(true)
    expect(workspace.isInside(bytes.subarray(1))).to.equal(false)
  })

  it('follows a symlink whose target is an absolute path inside, name by name in order', async () => {
    await symlink(path.join(root, 'src', 'a.txt'), path.join(root, 'abs-a'))
    expect((await workspace.resolve('abs-a', {mustExist: true})).relative).to.equal('src/a.txt')
    const top = await Workspace.open('/')
    expect((await top.resolve(`${root}/abs-a`, {mustExist: true})).relative).to.equal(`${root.slice(1)}/src/a.txt`)
  })

  it('takes a name under a folder that became a file as missing, as the system reports it (ENOTDIR)', async () => {
    const gone = await realpath(await mkdtemp(path.join(tmpdir(), 'ak-ws-gone-')))
    const replaced = await Workspace.open(gone)
    await rm(gone, {recursive: true})
    await writeFile(gone, 'now a file\n')
    try {
      const resolved = await replaced.resolve('x/y')
      expect({exists: resolved.exists, missing: resolved.missing.map(String)}).to.deep.equal({exists: false, missing: ['x', 'y']})
    } finally {
      await rm(gone)
    }
  })

  it('serves the whole file system from a workspace at /', async () => {
    const top = await Workspace.open('/')
    expect((await top.resolve('tmp/..')).real.toString()).to.equal('/')
    expect(top.isInside('/etc')).to.equal(true)
    expect(top.relativeOf(Buffer.from('/'))).to.equal('.')
    expect(top.relativeOf(Buffer.from('/etc/hosts'))).to.equal('etc/hosts')
    expect((await top.resolve(`${root}/src/a.txt`, {mustExist: true})).relative).to.equal(`${root.slice(1)}/src/a.txt`)
    expect((await top.resolve('/..')).relative).to.equal('.')
    expect((await top.resolve(`${root.slice(1)}/src/../..`)).real.toString()).to.equal(path.dirname(root))
  })
})
