import {expect} from 'chai'
import {execFileSync} from 'node:child_process'
import {chmodSync, chownSync, copyFileSync, existsSync, mkdirSync, mkdtempSync, readFileSync, readdirSync, rmSync, statSync, symlinkSync, writeFileSync} from 'node:fs'
import {tmpdir} from 'node:os'
import path from 'node:path'

import {REPO_ROOT} from '../../helpers/clients.js'
import {skipUnlessRoot} from '../../helpers/processes.js'

const LOADER = path.join(REPO_ROOT, 'bin', 'bundle-loader.js')
/** A user that owns nothing here, for files planted by someone else. */
const OTHER_UID = 65534

/** A CommonJS bundle whose answer is `word`: every word of one length gives a source of one length. */
const bundleSource = (word: string) =>
  `"use strict";const parts=[];for(let i=0;i<3;i++)parts.push(i);module.exports={answer(){return ${JSON.stringify(word)}+parts.length}}\n`

/**
 * Starts a fresh Node.js process that loads `bundle` through loadBundle and prints its answer, as
 * each start of a server does, then runs `runMs` more; a missing or stale cache is written
 * `saveAfterMs` after loading (at once by default), when the process still runs then.
 */
function start(bundle: string, cacheDir: string | undefined, {runMs = 100, saveAfterMs = 0} = {}): string {
  const script = `import {loadBundle} from ${JSON.stringify(LOADER)}
const exports = loadBundle(process.argv[1], {cacheDir: process.argv[2] || undefined, saveAfterMs: ${saveAfterMs}})
console.log(exports.answer())
setTimeout(() => {}, ${runMs})`
  return execFileSync(process.execPath, ['--input-type=module', '-e', script, bundle, cacheDir ?? ''], {encoding: 'utf8'}).trim()
}

describe('bin/bundle-loader: a bundle run with its V8 code cache', () => {
  let dir: string
  let bundle: string
  let cacheDir: string

  beforeEach(() => {
    dir = mkdtempSync(path.join(tmpdir(), 'ak-bundle-loader-'))
    bundle = path.join(dir, 'bundle.cjs')
    cacheDir = path.join(dir, 'cache')
    mkdirSync(cacheDir, {mode: 0o700})
    writeFileSync(bundle, bundleSource('good'))
  })

  afterEach(() => rmSync(dir, {recursive: true, force: true}))

  /** The one cache file in `folder` (a start writes it). */
  const cacheIn = (folder: string) => {
    const names = readdirSync(folder).filter((name) => name.endsWith('.v8cache'))
    expect(names, folder).to.have.length(1)
    return path.join(folder, names[0]!)
  }
  const cacheFile = () => cacheIn(cacheDir)

  it('keeps the compiled code of a start for the next one, which uses it instead of writing another', () => {
    expect(start(bundle, cacheDir)).to.equal('good3')
    const written = statSync(cacheFile())
    expect(written.mode & 0o777).to.equal(0o600)
    expect(readFileSync(cacheFile()).subarray(0, 8).toString()).to.equal('akv8cc02')
    expect(start(bundle, cacheDir)).to.equal('good3')
    // Accepted: the file was not replaced (a new cache is renamed into place, a new inode).
    expect(statSync(cacheFile()).ino).to.equal(written.ino)
    expect(readdirSync(cacheDir)).to.have.length(1)
  })

  it('never runs the old code of a bundle changed at the same length (V8 checks only the length)', () => {
    expect(start(bundle, cacheDir)).to.equal('good3')
    const before = statSync(cacheFile()).ino
    writeFileSync(bundle, bundleSource('newr'))
    expect(start(bundle, cacheDir)).to.equal('newr3')
    expect(statSync(cacheFile()).ino).not.to.equal(before)
    expect(start(bundle, cacheDir)).to.equal('newr3')
  })

  it('writes no cache from a start that ends before saveAfterMs (a --version, a refused option)', () => {
    expect(start(bundle, cacheDir, {runMs: 0, saveAfterMs: 60_000})).to.equal('good3')
    expect(readdirSync(cacheDir)).to.deep.equal([])
  })

  it('never runs a damaged cache (V8 would crash on it): runs without, and writes a whole one', () => {
    expect(start(bundle, cacheDir)).to.equal('good3')
    const file = cacheFile()
    const data = readFileSync(file)
    // Past the header, in V8's data: the bytes a torn write or a bad disk would change.
    for (let i = data.length - 64; i < data.length; i++) data[i]! ^= 0xff
    writeFileSync(file, data)
    const damaged = statSync(file).ino
    expect(start(bundle, cacheDir)).to.equal('good3')
    expect(statSync(cacheFile()).ino).not.to.equal(damaged)
    const whole = statSync(cacheFile()).ino
    expect(start(bundle, cacheDir)).to.equal('good3')
    expect(statSync(cacheFile()).ino).to.equal(whole)
  })

  it('removes, when it writes, temporary files of writers that are gone and caches of bundles that are gone', () => {
    const other = path.join(dir, 'other')
    mkdirSync(other)
    const otherBundle = path.join(other, 'bundle.cjs')
    writeFileSync(otherBundle, bundleSource('else'))
    expect(start(otherBundle, cacheDir)).to.equal('else3')
    const otherCache = cacheFile()
    rmSync(other, {recursive: true})
    // A process id no process has (above the kernel's largest), and one that runs: this one.
    const gone = `${otherCache}.4194305.abc.tmp`
    const running = `${otherCache}.${process.pid}.abc.tmp`
    writeFileSync(gone, 'partial')
    writeFileSync(running, 'partial')
    expect(start(bundle, cacheDir)).to.equal('good3')
    const left = readdirSync(cacheDir).map((name) => path.join(cacheDir, name))
    expect(left).not.to.include(otherCache)
    expect(left).not.to.include(gone)
    expect(left).to.include(running)
    expect(left.filter((file) => file.endsWith('.v8cache'))).to.have.length(1)
  })

  it('runs without a cache, writing none, when given no folder', () => {
    expect(start(bundle, undefined)).to.equal('good3')
    expect(readdirSync(cacheDir)).to.deep.equal([])
  })

  it('runs without a cache when its folder cannot be written', () => {
    const missing = path.join(dir, 'no-such-folder')
    expect(start(bundle, missing)).to.equal('good3')
    expect(existsSync(missing)).to.equal(false)
  })

  describe('a cache file planted by someone else is never run', () => {
    /**
     * A cache made from a bundle of the same length that answers "evil", with the header of the
     * good bundle's own cache (its SHA-256 is public), in a file outside the cache folder; the
     * good bundle's cache file is removed, so the next start reads whatever is planted there.
     */
    function plantEvilCache(): string {
      expect(start(bundle, cacheDir)).to.equal('good3')
      const goodHash = readFileSync(cacheFile()).subarray(8, 40)
      rmSync(cacheFile())
      const evilDir = path.join(dir, 'evil')
      mkdirSync(evilDir, {mode: 0o700})
      const evil = path.join(evilDir, 'bundle.cjs')
      writeFileSync(evil, bundleSource('evil'))
      expect(start(evil, evilDir)).to.equal('evil3')
      const made = readFileSync(cacheIn(evilDir))
      const file = path.join(dir, 'planted.v8cache')
      writeFileSync(file, Buffer.concat([made.subarray(0, 8), goodHash, made.subarray(40)]), {mode: 0o600})
      return file
    }

    let target: string
    beforeEach(() => {
      expect(start(bundle, cacheDir)).to.equal('good3')
      target = cacheFile()
    })

    it("is run when it is this user's private file (so the planted cache works, and the cases below test the checks)", () => {
      copyFileSync(plantEvilCache(), target)
      chmodSync(target, 0o600)
      expect(start(bundle, cacheDir)).to.equal('evil3')
    })

    it('is not followed through a link', () => {
      symlinkSync(plantEvilCache(), target)
      expect(start(bundle, cacheDir)).to.equal('good3')
    })

    it('is not read when others may write it', () => {
      copyFileSync(plantEvilCache(), target)
      chmodSync(target, 0o666)
      expect(start(bundle, cacheDir)).to.equal('good3')
    })

    it('is not read when another user owns it', function () {
      skipUnlessRoot(this, 'give a file to another user')
      copyFileSync(plantEvilCache(), target)
      chmodSync(target, 0o600)
      chownSync(target, OTHER_UID, OTHER_UID)
      expect(start(bundle, cacheDir)).to.equal('good3')
    })
  })
})

describe('bin/bundle-loader: a bundle carried inside its launcher (one file)', () => {
  let dir: string
  let cacheDir: string
  let launcher: string

  /** A launcher that loads the bundle it carries and prints its answer, as dist/agentexec.js does. */
  const launcherCode = () => `import {EmbeddedBundleError, loadEmbeddedBundle} from ${JSON.stringify(LOADER)}
try {
  const exports = loadEmbeddedBundle(new URL(import.meta.url), {cacheDir: process.env.CACHE_DIR || undefined, saveAfterMs: 0})
  console.log(exports.answer())
  setTimeout(() => {}, 100)
} catch (error) {
  console.log(error instanceof EmbeddedBundleError ? 'refused: ' + error.message : 'thrown: ' + error)
}
`
  const embed = async (source: string) => {
    const {embedBundle} = (await import(LOADER)) as {embedBundle(launcher: string, bundle: string): string}
    return embedBundle(launcherCode(), source)
  }
  const run = (file: string, cache: string | undefined = cacheDir) =>
    execFileSync(process.execPath, [file], {encoding: 'utf8', env: {...process.env, CACHE_DIR: cache ?? ''}}).trim()

  beforeEach(() => {
    dir = mkdtempSync(path.join(tmpdir(), 'ak-embedded-'))
    cacheDir = path.join(dir, 'cache')
    mkdirSync(cacheDir, {mode: 0o700})
    launcher = path.join(dir, 'launcher.mjs')
  })

  afterEach(() => rmSync(dir, {recursive: true, force: true}))

  it('runs the bundle it carries, keeps its compiled code for the next start, which uses it', async () => {
    // Lines, a template literal's line break and a trailing line break survive the comment lines.
    const source = `"use strict";\nconst text = \`a\n//b\`;\nmodule.exports={answer(){return text.split("\\n").join("|")}}\n`
    writeFileSync(launcher, await embed(source))
    expect(run(launcher)).to.equal('a|//b')
    const [cache] = readdirSync(cacheDir).filter((name) => name.endsWith('.v8cache'))
    expect(cache, 'a cache named after the launcher').to.match(/^launcher\.mjs\.[0-9a-f]{16}\.v8cache$/)
    const written = statSync(path.join(cacheDir, cache!)).ino
    expect(run(launcher)).to.equal('a|//b')
    expect(statSync(path.join(cacheDir, cache!)).ino, 'the cache was accepted, not rewritten').to.equal(written)
    expect(run(launcher, undefined)).to.equal('a|//b')
  })

  it('refuses, in one line, a launcher cut short or changed, and one whose bundle is missing', async () => {
    const whole = await embed(bundleSource('good'))
    for (const [why, text, said] of [
      ['cut short', whole.slice(0, whole.length - 10), 'is damaged'],
      ['changed', whole.replace('"good"', '"evil"'), 'is damaged'],
      ['without its bundle', launcherCode(), 'is incomplete'],
    ] as const) {
      writeFileSync(launcher, text)
      expect(run(launcher), why).to.match(new RegExp(`^refused: launcher\\.mjs ${said}: .* Install it again`))
    }
  })

  it('refuses to embed a bundle holding a line terminator that would end its comment line', async () => {
    for (const terminator of ['\r', '\u2028', '\u2029']) {
      await embed(`module.exports={answer(){return "a${terminator}b"}}`).then(
        () => expect.fail('embedded'),
        (error: Error) => expect(error.message).to.contain('line terminator'),
      )
    }
  })
})
