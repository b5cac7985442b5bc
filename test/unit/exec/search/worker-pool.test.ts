import {expect} from 'chai'
import {execFile} from 'node:child_process'
import {mkdtemp, rm, writeFile} from 'node:fs/promises'
import {tmpdir} from 'node:os'
import path from 'node:path'
import {promisify} from 'node:util'

import {DispatchFailedError, LimitReachedError} from '../../../../src/errors.js'
import {SEARCH_TIME_LIMIT_MS} from '../../../../src/exec/limits.js'
import type {ScanRequest} from '../../../../src/exec/search/scanner.js'
import {PRESTARTED_WORKERS, SearchWorkerPool, WORKER_GROW_AFTER_MS, defaultSearchPoolSize, searchTimeLimitFromEnv} from '../../../../src/exec/search/worker-pool.js'
import {REPO_ROOT} from '../../../helpers/clients.js'

/** A line on which `(a+)+$` backtracks for longer than any test runs. */
const RUNAWAY_LINE = `${'a'.repeat(64)}!\n`

describe('SearchWorkerPool', () => {
  let dir: string
  let textFile: string
  let runawayFile: string

  before(async () => {
    dir = await mkdtemp(path.join(tmpdir(), 'ak-pool-'))
    textFile = path.join(dir, 'text.txt')
    runawayFile = path.join(dir, 'runaway.txt')
    await writeFile(textFile, 'alpha\nbeta\n')
    await writeFile(runawayFile, RUNAWAY_LINE)
  })

  after(async () => {
    await rm(dir, {recursive: true, force: true})
  })

  const request = (files: string[], query: ScanRequest['query']): ScanRequest => ({
    files: files.map((file) => Buffer.from(file)),
    query,
    maxMatches: 10,
    maxLineChars: 100,
    maxFileBytes: 1024,
    binarySniffBytes: 8000,
  })

  it('is sized to the machine within its cap, and reads its time limit from the environment', () => {
    expect(defaultSearchPoolSize()).to.be.within(1, 8)
    expect(searchTimeLimitFromEnv({AK_SEARCH_TIME_LIMIT_MS: '1500'})).to.equal(1500)
    expect(searchTimeLimitFromEnv({AK_SEARCH_TIME_LIMIT_MS: 'soon'})).to.equal(SEARCH_TIME_LIMIT_MS)
    expect(searchTimeLimitFromEnv({})).to.equal(SEARCH_TIME_LIMIT_MS)
  })

  it('scans batches on worker threads and reuses the workers between jobs', async () => {
    const pool = new SearchWorkerPool({size: 2})
    try {
      for (let round = 0; round < 3; round++) {
        const job = pool.startJob()
        const results = await Promise.all([job.scan(request([textFile], {kind: 'literal', text: 'beta'})), job.scan(request([textFile], {kind: 'regex', source: '^a', flags: ''}))])
        job.finish()
        expect(results.map((result) => result.matches)).to.deep.equal([[[0, 2, 'beta']], [[0, 1, 'alpha']]])
      }
      expect(pool.workersStarted).to.be.at.most(2)
    } finally {
      await pool.close()
    }
  })

  it('terminates and replaces a worker whose job passes the time limit, while other jobs go on', async () => {
    const pool = new SearchWorkerPool({size: 2, timeLimitMs: 1000})
    try {
      const runaway = pool.startJob()
      const stuck = runaway.scan(request([runawayFile], {kind: 'regex', source: '(a+)+$', flags: ''}))
      const other = pool.startJob()
      expect((await other.scan(request([textFile], {kind: 'literal', text: 'alpha'}))).matches).to.have.length(1)
      other.finish()
      let failure: unknown
      await stuck.catch((error: unknown) => (failure = error))
      expect(failure).to.be.instanceOf(LimitReachedError)
      expect((failure as Error).message).to.match(/time limit of 1000 ms.*simplify the regex/)
      expect(pool.terminatedForTimeLimit).to.equal(1)
      const after = pool.startJob()
      expect((await after.scan(request([textFile], {kind: 'literal', text: 'beta'}))).matches).to.have.length(1)
      after.finish()
      expect(pool.workerCount).to.be.at.most(2)
    } finally {
      await pool.close()
    }
  })

  it('lets other searches run while every worker is stuck on one search, and stops the extra workers after', async () => {
    const pool = new SearchWorkerPool({size: 1, timeLimitMs: 20_000})
    try {
      const runaway = pool.startJob()
      const stuck = [1, 2, 3].map(() => runaway.scan(request([runawayFile], {kind: 'regex', source: '(a+)+$', flags: ''})))
      for (const scan of stuck) scan.catch(() => undefined)
      const other = pool.startJob()
      const first = await Promise.race([
        other.scan(request([textFile], {kind: 'literal', text: 'alpha'})).then((result) => `other found ${result.matches.length}`),
        Promise.allSettled(stuck).then(() => 'the stuck search ended first'),
      ])
      other.finish()
      expect(first).to.equal('other found 1')
      // The extra worker stopped instead of taking the stuck search's next batch.
      expect(pool.workerCount).to.equal(1)
      expect(pool.workersStarted).to.equal(2)
      runaway.finish()
    } finally {
      await pool.close()
    }
  })

  it('prestarts one worker whatever its size, not one per core', async () => {
    const pool = new SearchWorkerPool({size: 3})
    try {
      pool.prestart()
      expect(PRESTARTED_WORKERS).to.equal(1)
      expect(pool.workerCount).to.equal(PRESTARTED_WORKERS)
      // Once started, a second call starts none.
      pool.prestart()
      expect(pool.workersStarted).to.equal(PRESTARTED_WORKERS)
    } finally {
      await pool.close()
    }
  })

  it('gives a batch to a loaded worker as it frees rather than to a worker still loading, and grows once a batch has waited', async () => {
    const pool = new SearchWorkerPool({size: 2, timeLimitMs: 20_000})
    try {
      // One worker loaded (it answered), as a server's prestarted worker is.
      const warm = pool.startJob()
      await warm.scan(request([textFile], {kind: 'literal', text: 'alpha'}))
      warm.finish()
      const job = pool.startJob()
      const scans = [job.scan(request([textFile], {kind: 'literal', text: 'alpha'})), job.scan(request([textFile], {kind: 'literal', text: 'beta'}))]
      // The second batch waits for the loaded worker: no worker is loading with a batch of its own.
      expect(pool.runningTasks).to.equal(1)
      expect(pool.workersStarted).to.equal(1)
      expect((await Promise.all(scans)).map((result) => result.matches)).to.deep.equal([[[0, 1, 'alpha']], [[0, 2, 'beta']]])
      job.finish()
      // With the loaded worker stuck, a waiting batch gets a new worker once it has waited WORKER_GROW_AFTER_MS.
      const runaway = pool.startJob()
      runaway.scan(request([runawayFile], {kind: 'regex', source: '(a+)+$', flags: ''})).catch(() => undefined)
      const other = pool.startJob()
      const queuedAt = performance.now()
      expect((await other.scan(request([textFile], {kind: 'literal', text: 'beta'}))).matches).to.have.length(1)
      expect(performance.now() - queuedAt).to.be.at.least(WORKER_GROW_AFTER_MS)
      expect(pool.workersStarted).to.equal(2)
      other.finish()
      runaway.finish()
    } finally {
      await pool.close()
    }
  })

  it('while held to its prestarted worker (the warm-up), still starts a worker for other searches when a batch is stuck', async () => {
    const pool = new SearchWorkerPool({size: 2, timeLimitMs: 20_000})
    try {
      const first = await pool.withoutGrowth(async () => {
        const runaway = pool.startJob()
        const stuck = runaway.scan(request([runawayFile], {kind: 'regex', source: '(a+)+$', flags: ''}))
        stuck.catch(() => undefined)
        const other = pool.startJob()
        const winner = await Promise.race([
          other.scan(request([textFile], {kind: 'literal', text: 'alpha'})).then((result) => `other found ${result.matches.length}`),
          stuck.then(
            () => 'the stuck search ended first',
            () => 'the stuck search ended first',
          ),
        ])
        other.finish()
        runaway.finish()
        return winner
      })
      expect(first).to.equal('other found 1')
      expect(pool.workersStarted).to.equal(2)
    } finally {
      await pool.close()
    }
  })

  it('stops a job whose signal aborts', async () => {
    const pool = new SearchWorkerPool({size: 1})
    try {
      const controller = new AbortController()
      const stuck = pool.startJob({signal: controller.signal}).scan(request([runawayFile], {kind: 'regex', source: '(a+)+$', flags: ''}))
      setTimeout(() => controller.abort(), 200)
      let failure: unknown
      await stuck.catch((error: unknown) => (failure = error))
      expect((failure as Error).message).to.match(/cancelled/)
      expect(pool.workerCount).to.equal(0)
    } finally {
      await pool.close()
    }
  })

  it('fails running and queued work when closed, and refuses new jobs', async () => {
    const pool = new SearchWorkerPool({size: 1})
    const job = pool.startJob()
    const running = job.scan(request([runawayFile], {kind: 'regex', source: '(a+)+$', flags: ''}))
    const queued = job.scan(request([textFile], {kind: 'literal', text: 'alpha'}))
    const failures: unknown[] = []
    const settled = Promise.all([running.catch((error) => failures.push(error)), queued.catch((error) => failures.push(error))])
    await new Promise((resolve) => setTimeout(resolve, 100))
    await pool.close()
    await settled
    expect(failures).to.have.length(2)
    for (const failure of failures) expect(failure).to.be.instanceOf(DispatchFailedError)
    expect(() => pool.startJob()).to.throw(DispatchFailedError, /shutting down/)
  })

  it('does not keep a process alive once its work is done', async function () {
    this.timeout(30_000)
    const script = path.join(dir, 'idle-pool.mts')
    await writeFile(
      script,
      [
        `import {SearchWorkerPool} from ${JSON.stringify(path.join(REPO_ROOT, 'src/exec/search/worker-pool.ts'))}`,
        'const pool = new SearchWorkerPool({size: 2})',
        'const job = pool.startJob()',
        `const result = await job.scan({files: [Buffer.from(${JSON.stringify(textFile)})], root: Buffer.from(${JSON.stringify(dir)}), query: {kind: 'literal', text: 'beta'}, maxMatches: 5, maxLineChars: 80, maxFileBytes: 1024, binarySniffBytes: 8000})`,
        'job.finish()',
        'process.stdout.write(JSON.stringify(result.matches))',
        '// No pool.close(): idle workers must not hold the process open.',
      ].join('\n'),
    )
    const {stdout} = await promisify(execFile)(process.execPath, ['--import', 'tsx', script], {cwd: REPO_ROOT, timeout: 20_000})
    expect(JSON.parse(stdout)).to.deep.equal([[0, 2, 'beta']])
  })
})
