import {expect} from 'chai'
import {execFileSync} from 'node:child_process'
import {chmodSync, chownSync, existsSync, mkdirSync, mkdtempSync, readdirSync, rmSync, statSync, symlinkSync, writeFileSync} from 'node:fs'
import {tmpdir} from 'node:os'
import path from 'node:path'

import {REPO_ROOT} from '../../helpers/clients.js'
import {skipUnlessRoot} from '../../helpers/processes.js'

const CACHE_DIR_MODULE = path.join(REPO_ROOT, 'bin', 'cache-dir.js')
/** A user that owns nothing here, for folders made by someone else. */
const OTHER_UID = 65534

/** privateCacheDir() in a fresh process with `env` (HOME, XDG_CACHE_HOME…) on top of this one's: its answer, or null. */
function privateCacheDir(env: Record<string, string | undefined>): string | null {
  const script = `import {privateCacheDir} from ${JSON.stringify(CACHE_DIR_MODULE)}
console.log(JSON.stringify(privateCacheDir() ?? null))`
  const merged = {...process.env, ...env}
  for (const [name, value] of Object.entries(env)) if (value === undefined) delete merged[name]
  return JSON.parse(execFileSync(process.execPath, ['--input-type=module', '-e', script], {encoding: 'utf8', env: merged}))
}

/** isSafeChain(dir, this process's uid) in a fresh process. */
function isSafeChain(dir: string): boolean {
  const script = `import {isSafeChain} from ${JSON.stringify(CACHE_DIR_MODULE)}
console.log(JSON.stringify(isSafeChain(process.argv[1], process.geteuid())))`
  return JSON.parse(execFileSync(process.execPath, ['--input-type=module', '-e', script, dir], {encoding: 'utf8'}))
}

describe('bin/cache-dir: the private folder for compiled code', () => {
  let dir: string

  beforeEach(() => {
    dir = mkdtempSync(path.join(tmpdir(), 'ak-cache-dir-'))
  })

  afterEach(() => rmSync(dir, {recursive: true, force: true}))

  it('is $XDG_CACHE_HOME/ak, made with mode 0700', () => {
    const base = path.join(dir, 'xdg')
    mkdirSync(base)
    expect(privateCacheDir({XDG_CACHE_HOME: base})).to.equal(path.join(base, 'ak'))
    expect(statSync(path.join(base, 'ak')).mode & 0o777).to.equal(0o700)
  })

  it('is ~/.cache/ak without XDG_CACHE_HOME, or with a relative one', () => {
    expect(privateCacheDir({HOME: dir, XDG_CACHE_HOME: undefined})).to.equal(path.join(dir, '.cache', 'ak'))
    expect(privateCacheDir({HOME: dir, XDG_CACHE_HOME: 'relative/cache'})).to.equal(path.join(dir, '.cache', 'ak'))
  })

  it('is off with NODE_DISABLE_COMPILE_CACHE=1, Node’s own switch', () => {
    expect(privateCacheDir({XDG_CACHE_HOME: dir, NODE_DISABLE_COMPILE_CACHE: '1'})).to.equal(null)
  })

  it('is off, without an error, when it cannot be made (a file in its place)', () => {
    writeFileSync(path.join(dir, 'ak'), '')
    expect(privateCacheDir({XDG_CACHE_HOME: dir})).to.equal(null)
  })

  it('is not used when others may write to it', () => {
    mkdirSync(path.join(dir, 'ak'))
    chmodSync(path.join(dir, 'ak'), 0o777)
    expect(privateCacheDir({XDG_CACHE_HOME: dir})).to.equal(null)
  })

  it('is not used when it is a link, even to a folder of this user', () => {
    mkdirSync(path.join(dir, 'elsewhere'), {mode: 0o700})
    symlinkSync(path.join(dir, 'elsewhere'), path.join(dir, 'ak'))
    expect(privateCacheDir({XDG_CACHE_HOME: dir})).to.equal(null)
  })

  it('is not used in a folder where others could rename it away, but is in a sticky one such as /tmp', () => {
    chmodSync(dir, 0o777)
    expect(privateCacheDir({XDG_CACHE_HOME: dir})).to.equal(null)
    chmodSync(dir, 0o1777)
    expect(privateCacheDir({XDG_CACHE_HOME: dir})).to.equal(path.join(dir, 'ak'))
  })

  it('never makes a missing home folder or XDG_CACHE_HOME', () => {
    const missing = path.join(dir, 'missing')
    expect(privateCacheDir({HOME: missing, XDG_CACHE_HOME: undefined})).to.equal(null)
    expect(privateCacheDir({XDG_CACHE_HOME: missing})).to.equal(null)
    expect(existsSync(missing)).to.equal(false)
  })

  it('makes nothing in, and uses nothing under, a home folder another user owns (sudo -E)', function () {
    skipUnlessRoot(this, 'give a folder to another user')
    chownSync(dir, OTHER_UID, OTHER_UID)
    expect(privateCacheDir({HOME: dir, XDG_CACHE_HOME: undefined})).to.equal(null)
    expect(readdirSync(dir)).to.deep.equal([])
    // Even with .cache and ak already this user's own: the owner of the home folder could swap them.
    mkdirSync(path.join(dir, '.cache', 'ak'), {recursive: true, mode: 0o700})
    expect(privateCacheDir({HOME: dir, XDG_CACHE_HOME: undefined})).to.equal(null)
  })

  it('is its real path, all of whose folders belong to this user or root', () => {
    mkdirSync(path.join(dir, 'real'), {mode: 0o700})
    symlinkSync(path.join(dir, 'real'), path.join(dir, 'link'))
    expect(privateCacheDir({XDG_CACHE_HOME: path.join(dir, 'link')})).to.equal(path.join(dir, 'real', 'ak'))
  })

  it('checks each folder of its path itself: a link found on the way fails, even to folders of root (a swap during the check)', () => {
    // What a swap between realpath and the check shows the check: a path through a link. A check
    // that followed the link would see root's folders and pass.
    mkdirSync(path.join(dir, 'target', 'cache'), {recursive: true, mode: 0o700})
    symlinkSync(path.join(dir, 'target'), path.join(dir, 'swapped'))
    expect(isSafeChain(path.join(dir, 'target', 'cache'))).to.equal(true)
    expect(isSafeChain(path.join(dir, 'swapped', 'cache'))).to.equal(false)
  })

  it('is not used when another user made it first', function () {
    skipUnlessRoot(this, 'give a folder to another user')
    mkdirSync(path.join(dir, 'ak'), {mode: 0o700})
    chownSync(path.join(dir, 'ak'), OTHER_UID, OTHER_UID)
    expect(privateCacheDir({XDG_CACHE_HOME: dir})).to.equal(null)
  })

  it('is not used inside a folder another user owns', function () {
    skipUnlessRoot(this, 'give a folder to another user')
    chownSync(dir, OTHER_UID, OTHER_UID)
    expect(privateCacheDir({XDG_CACHE_HOME: dir})).to.equal(null)
  })
})
