import {expect} from 'chai'
import {execFile} from 'node:child_process'
import {mkdir, mkdtemp, readFile, rm, writeFile} from 'node:fs/promises'
import {tmpdir} from 'node:os'
import path from 'node:path'
import {promisify} from 'node:util'

import {build} from 'esbuild'

import {REPO_ROOT} from '../helpers/clients.js'

const run = promisify(execFile)

/**
 * An application entry file that counts its own runs in a file, then searches a folder on the
 * worker pool. A worker that re-ran the entry file would count a second run.
 */
function entrySource(importFrom: (module: string) => string): string {
  return `
import {appendFileSync} from 'node:fs'
import {Workspace} from ${JSON.stringify(importFrom('exec/workspace'))}
import {SearchWorkerPool} from ${JSON.stringify(importFrom('exec/search/worker-pool'))}
import {runSearch} from ${JSON.stringify(importFrom('exec/search/run-search'))}

appendFileSync(process.env.RUN_COUNT_FILE, 'run\\n')
const pool = new SearchWorkerPool({size: 2})
const workspace = await Workspace.open(process.env.SEARCH_ROOT)
const outcome = await runSearch({
  workspace,
  pool,
  request: {path: '.', globs: [], maxResults: 50, query: {query: 'needle', isRegex: false, isCaseSensitive: false}},
})
const regex = await runSearch({
  workspace,
  pool,
  request: {path: '.', globs: [], maxResults: 50, query: {query: 'ne+dle', isRegex: true, isCaseSensitive: true}},
})
process.stdout.write(JSON.stringify({matches: outcome.matches.length + regex.matches.length, workers: pool.workersStarted}))
await pool.close()
`
}

describe('search workers are self-contained', () => {
  let scratch: string
  let countFile: string
  let searchRoot: string

  beforeEach(async () => {
    scratch = await mkdtemp(path.join(tmpdir(), 'ak-worker-source-'))
    countFile = path.join(scratch, 'runs.txt')
    searchRoot = path.join(scratch, 'tree')
    await mkdir(searchRoot)
    for (let index = 0; index < 100; index++) await writeFile(path.join(searchRoot, `f${index}.txt`), index % 10 === 0 ? 'a Needle\nneedle\n' : 'hay\n')
  })

  afterEach(async () => {
    await rm(scratch, {recursive: true, force: true})
  })

  async function runEntry(file: string): Promise<{matches: number; workers: number}> {
    const {stdout} = await run(process.execPath, [file], {
      cwd: scratch,
      env: {...process.env, RUN_COUNT_FILE: countFile, SEARCH_ROOT: searchRoot},
      timeout: 30_000,
    })
    return JSON.parse(stdout) as {matches: number; workers: number}
  }

  it('never re-runs the entry file of the application that starts them', async () => {
    const entry = path.join(scratch, 'app.mjs')
    await writeFile(entry, entrySource((module) => path.join(REPO_ROOT, 'dist', `${module}.js`)))
    const result = await runEntry(entry)
    expect(result.matches).to.equal(30)
    expect(result.workers).to.be.at.least(1)
    expect(await readFile(countFile, 'utf8')).to.equal('run\n')
  })

  it('run from a single bundled file with no node_modules, names kept', async function () {
    this.timeout(60_000)
    const entry = path.join(scratch, 'app.ts')
    await writeFile(entry, entrySource((module) => path.join(REPO_ROOT, 'src', `${module}.ts`)))
    const bundle = path.join(scratch, 'bundle', 'app.mjs')
    await build({entryPoints: [entry], bundle: true, platform: 'node', format: 'esm', keepNames: true, outfile: bundle, logLevel: 'silent'})
    const result = await runEntry(bundle)
    expect(result.matches).to.equal(30)
    expect(await readFile(countFile, 'utf8')).to.equal('run\n')
  })
})
