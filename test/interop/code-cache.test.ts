import {expect} from 'chai'
import {existsSync, mkdirSync, mkdtempSync, readdirSync, rmSync, statSync, writeFileSync} from 'node:fs'
import {tmpdir} from 'node:os'
import path from 'node:path'
import {setTimeout as sleep} from 'node:timers/promises'

import {CLIENT_LINES, RUN_JS, connectStdio} from '../helpers/clients.js'
import {STANDALONE_SERVER} from '../helpers/bundle.js'
import {runToExit} from '../helpers/http-server.js'

/** How long a start runs before it writes its cache, in ms (SAVE_AFTER_MS in bin/bundle-loader.js). */
const SAVE_AFTER_MS = 2000
/** How long a test lets a start run for its cache to be written, with room, in ms. */
const CACHE_WRITTEN_MS = SAVE_AFTER_MS + 1000
/** How much longer a test waits for a cache a loaded machine writes late, in ms. */
const CACHE_LATE_MS = 15_000

/** The V8 code caches in `cacheHome`/ak, by name. */
const cachesIn = (cacheHome: string): string[] => {
  const dir = path.join(cacheHome, 'ak')
  return existsSync(dir) ? readdirSync(dir).filter((name) => name.endsWith('.v8cache')) : []
}

describe('compiled code kept between starts, in the user\'s private cache folder', () => {
  let scratch: string
  let cacheHome: string
  let workspace: string

  beforeEach(() => {
    scratch = mkdtempSync(path.join(tmpdir(), 'ak-code-cache-'))
    cacheHome = path.join(scratch, 'cache-home')
    workspace = path.join(scratch, 'workspace')
    mkdirSync(workspace)
    mkdirSync(cacheHome)
    writeFileSync(path.join(workspace, 'notes.txt'), 'alpha\nneedle\n')
  })

  afterEach(() => rmSync(scratch, {recursive: true, force: true}))

  for (const line of CLIENT_LINES) {
    it(`dist/agentexec.js writes its cache at the first start and serves client ${line} from it at the next`, async () => {
      const serve = async (runMs = 0) => {
        const client = await connectStdio(line, ['--workspace', workspace, '--level', 'read'], {entry: STANDALONE_SERVER, env: {XDG_CACHE_HOME: cacheHome}})
        try {
          const answer = await client.call('search', {query: 'needle'})
          expect(answer.text).to.contain('notes.txt:2:needle')
          await sleep(runMs)
        } finally {
          await client.close()
        }
      }
      const started = Date.now()
      await serve()
      const tookMs = Date.now() - started
      if (tookMs < SAVE_AFTER_MS) {
        expect(cachesIn(cacheHome), 'no cache from a start shorter than 2 s').to.deep.equal([])
      } else {
        // On a loaded machine the whole first session (start, search, stop) can outlast 2 s, and such a start rightly writes a cache.
        console.log(`      the first start ran ${tookMs} ms, past the ${SAVE_AFTER_MS} ms after which a start writes its cache: "no cache" not judged`)
        rmSync(path.join(cacheHome, 'ak'), {recursive: true, force: true})
      }
      await serve(CACHE_WRITTEN_MS)
      const [cache] = cachesIn(cacheHome)
      expect(cache, 'a cache after the first start').to.be.a('string')
      const file = path.join(cacheHome, 'ak', cache!)
      expect(statSync(file).mode & 0o777).to.equal(0o600)
      const first = statSync(file).ino
      await serve()
      // Accepted by the second start: a rewritten cache would be a new file renamed into place.
      expect(cachesIn(cacheHome)).to.deep.equal([cache])
      expect(statSync(file).ino).to.equal(first)
    })
  }

  it('keeps no cache with NODE_DISABLE_COMPILE_CACHE=1', async () => {
    const client = await connectStdio('v2 (2026-07-28)', ['--workspace', workspace], {
      entry: STANDALONE_SERVER,
      env: {XDG_CACHE_HOME: cacheHome, NODE_DISABLE_COMPILE_CACHE: '1'},
    })
    await sleep(CACHE_WRITTEN_MS)
    await client.close()
    expect(existsSync(path.join(cacheHome, 'ak'))).to.equal(false)
  })

  it('ak (bin/run.js) keeps Node\'s compile cache there too, never under the shared temporary folder', async () => {
    const temporary = path.join(scratch, 'tmp')
    mkdirSync(temporary)
    const result = await runToExit(RUN_JS, ['--version'], {env: {XDG_CACHE_HOME: cacheHome, TMPDIR: temporary}})
    expect(result.code, result.stderr).to.equal(0)
    expect(readdirSync(path.join(cacheHome, 'ak', 'node-compile-cache'))).to.have.length.greaterThan(0)
    expect(readdirSync(temporary)).to.deep.equal([])
  })

  it('ak exec serve (bin/run.js) writes the AgentExec bundle\'s cache there', async () => {
    const client = await connectStdio('v2 (2026-07-28)', ['exec', 'serve', '--workspace', workspace, '--level', 'read'], {env: {XDG_CACHE_HOME: cacheHome}})
    try {
      // The start writes it 2 s after loading; a loaded machine may run that timer late, so wait for it while the server runs.
      await sleep(CACHE_WRITTEN_MS)
      for (let waited = 0; cachesIn(cacheHome).length === 0 && waited < CACHE_LATE_MS; waited += 250) await sleep(250)
    } finally {
      await client.close()
    }
    expect(cachesIn(cacheHome)).to.have.length(1)
  })
})
