import {Client} from '@modelcontextprotocol/client'
import {InMemoryTransport} from '@modelcontextprotocol/server'
import {expect} from 'chai'
import {mkdir, mkdtemp, readdir, rm, utimes, writeFile} from 'node:fs/promises'
import {tmpdir} from 'node:os'
import path from 'node:path'
import {setTimeout as sleep} from 'node:timers/promises'

import {createExecConnection, createExecRuntime} from '../../../../src/exec/runtime.js'
import {connectInProcessExecClient} from '../../../../src/exec/serving/in-process-client.js'
import {
  SEARCH_WARM_UP_CALLS,
  SEARCH_WARM_UP_DELAY_MS,
  SEARCH_WARM_UP_FOLDER_PREFIX,
  SEARCH_WARM_UP_STALE_MS,
  warmUpSearch,
} from '../../../../src/exec/serving/search-warm-up.js'
import {createExecServer} from '../../../../src/exec/serving/server.js'
import {SEARCH_POOL_SERVICE} from '../../../../src/exec/tools/search.js'
import {PRESTARTED_WORKERS, SearchWorkerPool} from '../../../../src/exec/search/worker-pool.js'
import type {ExecRuntime} from '../../../../src/exec/context.js'
import {Workspace} from '../../../../src/exec/workspace.js'

/** The workspace's files: the warm-up's own words, so that a warm-up searching the workspace would find them. */
const WORKSPACE_FILES: Record<string, string> = {
  'a.txt': 'warm match\n',
  'src/b.ts': '// WARM Match\n// warm match\n',
  '.gitignore': 'nothing-ignored/\n',
}

/** How long a test waits for the warm-up to happen before it fails, in ms: far above any warm-up on a loaded machine. */
const WAIT_LIMIT_MS = 30_000

/** Waits until `done()` holds, failing with `what` after WAIT_LIMIT_MS. */
async function waitUntil(what: string, done: () => boolean | Promise<boolean>): Promise<void> {
  const end = Date.now() + WAIT_LIMIT_MS
  while (!(await done())) {
    if (Date.now() > end) throw new Error(`${what}: not within ${WAIT_LIMIT_MS} ms`)
    await sleep(10)
  }
}

/** The searches a test makes while the warm-up runs and after it: every mode search has. */
const USER_CALLS: Array<Record<string, unknown>> = [
  {query: 'warm match'},
  {query: 'WARM\\s+m[a-z]+$', regex: true, case_sensitive: false},
  {glob: '**/*.ts'},
  {query: 'warm', path: 'a.txt'},
]

describe('search warm-up after initialized', () => {
  let temporary: string
  let workspaceDir: string
  let savedTmpdir: string | undefined
  const runtimes: ExecRuntime[] = []

  beforeEach(async () => {
    // The warm-up's folder goes to os.tmpdir(), which follows TMPDIR: a folder of the test's own.
    temporary = await mkdtemp(path.join(tmpdir(), 'ak-warm-up-tmp-'))
    workspaceDir = await mkdtemp(path.join(tmpdir(), 'ak-warm-up-ws-'))
    for (const [name, text] of Object.entries(WORKSPACE_FILES)) {
      await mkdir(path.dirname(path.join(workspaceDir, name)), {recursive: true})
      await writeFile(path.join(workspaceDir, name), text)
    }
    savedTmpdir = process.env.TMPDIR
    process.env.TMPDIR = temporary
  })

  afterEach(async () => {
    if (savedTmpdir === undefined) delete process.env.TMPDIR
    else process.env.TMPDIR = savedTmpdir
    for (const runtime of runtimes.splice(0)) await runtime.close()
    await rm(temporary, {recursive: true, force: true})
    await rm(workspaceDir, {recursive: true, force: true})
  })

  async function openRuntime(poolSize = 3): Promise<{runtime: ExecRuntime; pool: SearchWorkerPool}> {
    const runtime = createExecRuntime({workspace: await Workspace.open(workspaceDir), level: 'read', journal: false})
    runtimes.push(runtime)
    const pool = new SearchWorkerPool({size: poolSize})
    runtime.services.set(SEARCH_POOL_SERVICE, pool)
    return {runtime, pool}
  }

  async function workspaceListing(): Promise<string[]> {
    return (await readdir(workspaceDir, {recursive: true})).sort()
  }

  it('answers each of its calls on a folder of its own, through the one worker a server prestarts (starting no other), and removes that folder', async () => {
    const {runtime, pool} = await openRuntime(3)
    const before = await workspaceListing()
    const answers = await warmUpSearch(runtime, createExecServer)
    expect(answers).to.have.length(SEARCH_WARM_UP_CALLS.length)
    // The literal search found the warm-up folder's lines, as ignore rules leave them, and none of the workspace's.
    expect(answers[0]).to.include('notes.txt:2:warm match').and.include('part-0/code.ts:3:// warm match').and.include('keep.log:1:warm match')
    expect(answers[0]).to.not.include('ignored.txt').and.not.include('build/')
    expect(answers[1]).to.include('part-1/code.ts:2:// WARM Match')
    expect(answers[2]).to.include('part-0/code.ts').and.include('part-1/code.ts')
    for (const answer of answers) expect(answer).to.not.include('a.txt').and.not.include('src/b.ts')
    // Each idle worker holds memory: the pool is left as small as a server's prestart makes it.
    expect(pool.answeredPerWorker).to.have.length(PRESTARTED_WORKERS)
    for (const answered of pool.answeredPerWorker) expect(answered).to.be.greaterThan(0)
    expect(pool.workersStarted).to.equal(PRESTARTED_WORKERS)
    expect(await readdir(temporary)).to.deep.equal([])
    expect(await workspaceListing()).to.deep.equal(before)
    // Once per runtime.
    expect(await warmUpSearch(runtime, createExecServer)).to.deep.equal([])
  })

  it('removes the warm-up folders a killed server left, once stale, and leaves a recent one and every other folder', async () => {
    const {runtime} = await openRuntime(2)
    const stale = path.join(temporary, `${SEARCH_WARM_UP_FOLDER_PREFIX}left`)
    const recent = path.join(temporary, `${SEARCH_WARM_UP_FOLDER_PREFIX}running`)
    const other = path.join(temporary, 'other-old')
    for (const folder of [stale, recent, other]) await mkdir(path.join(folder, 'part-0'), {recursive: true})
    const old = new Date(Date.now() - SEARCH_WARM_UP_STALE_MS - 60_000)
    await utimes(stale, old, old)
    await utimes(other, old, old)
    expect(await warmUpSearch(runtime, createExecServer)).to.have.length(SEARCH_WARM_UP_CALLS.length)
    expect((await readdir(temporary)).sort()).to.deep.equal([path.basename(recent), path.basename(other)].sort())
  })

  it('leaves the answers of searches made while it runs as they are without it', async () => {
    const {runtime} = await openRuntime(2)
    const client = await connectInProcessExecClient(runtime)
    try {
      const warming = warmUpSearch(runtime, createExecServer)
      const during = await Promise.all(USER_CALLS.map((call) => client.callTool('search', call)))
      expect(await warming).to.have.length(SEARCH_WARM_UP_CALLS.length)
      const after = await Promise.all(USER_CALLS.map((call) => client.callTool('search', call)))
      expect(during).to.deep.equal(after)
      expect(JSON.stringify(during[0])).to.include('a.txt:1:warm match').and.not.include('notes.txt')
      for (const answer of during) expect(answer.isError).to.not.equal(true)
    } finally {
      await client.close()
    }
  })

  it('stops when the runtime closes while it runs, before its calls or amid them, removing its folder and leaving no worker', async () => {
    for (const closeAmidCalls of [false, true]) {
      // Amid its calls, the close must land between the first answer and the last: on a loaded
      // machine the calls may all be answered first, so a missed window is tried again.
      let isStoppedEarly = false
      for (let attempt = 0; attempt < 10 && !isStoppedEarly; attempt++) {
        const {runtime, pool} = await openRuntime(2)
        const warming = warmUpSearch(runtime, createExecServer)
        // Its folder is made before its first call.
        expect(await readdir(temporary)).to.have.length(1)
        if (closeAmidCalls) {
          const end = Date.now() + WAIT_LIMIT_MS
          while (!pool.answeredPerWorker.some((answered) => answered > 0)) {
            if (Date.now() > end) throw new Error(`no warm-up task answered within ${WAIT_LIMIT_MS} ms`)
            await new Promise((resolve) => setImmediate(resolve))
          }
        }
        await runtime.close()
        isStoppedEarly = (await warming).length < SEARCH_WARM_UP_CALLS.length
        expect(await readdir(temporary)).to.deep.equal([])
        expect(pool.workerCount).to.equal(0)
      }
      expect(isStoppedEarly, closeAmidCalls ? 'closed amid its calls' : 'closed before its calls').to.equal(true)
    }
  })

  it('makes nothing for a closed runtime, nor when the temporary folder lies inside the workspace', async () => {
    const closed = (await openRuntime()).runtime
    await closed.close()
    expect(await warmUpSearch(closed, createExecServer)).to.deep.equal([])
    expect(await readdir(temporary)).to.deep.equal([])

    const inside = path.join(workspaceDir, 'tmp')
    await mkdir(inside)
    process.env.TMPDIR = inside
    const {runtime, pool} = await openRuntime()
    expect(await warmUpSearch(runtime, createExecServer)).to.deep.equal([])
    expect(await readdir(inside)).to.deep.equal([])
    expect(pool.workerCount).to.equal(0)
  })

  it('makes nothing once a search has run, which warmed what it used', async () => {
    const {runtime, pool} = await openRuntime(2)
    const client = await connectInProcessExecClient(runtime)
    try {
      expect(JSON.stringify(await client.callTool('search', {query: 'warm match'}))).to.include('a.txt:1:warm match')
      const answered = pool.answeredPerWorker
      expect(await warmUpSearch(runtime, createExecServer)).to.deep.equal([])
      expect(await readdir(temporary)).to.deep.equal([])
      expect(pool.answeredPerWorker).to.deep.equal(answered)
    } finally {
      await client.close()
    }
  })

  it('runs on its own once a client has initialized a server, and not for a runtime closed before it would start', async () => {
    const {runtime, pool} = await openRuntime(2)
    const client = await connectInProcessExecClient(runtime)
    try {
      // No timing is judged: the warm-up is waited for until it made its calls and removed its folder.
      await waitUntil('the warm-up made its calls', () => pool.jobsStarted >= SEARCH_WARM_UP_CALLS.length)
      await waitUntil('the warm-up removed its folder', async () => (await readdir(temporary)).length === 0)
      // The server left one worker started and warmed, of the pool's 2: the others start when a search needs them.
      expect(pool.answeredPerWorker).to.have.length(PRESTARTED_WORKERS)
      expect(pool.answeredPerWorker[0]).to.be.greaterThan(0)
      expect(pool.workersStarted).to.equal(PRESTARTED_WORKERS)
    } finally {
      await client.close()
    }

    const closing = (await openRuntime(2)).runtime
    const server = createExecServer(closing, createExecConnection())
    const [clientSide, serverSide] = InMemoryTransport.createLinkedPair()
    await server.connect(serverSide)
    const other = new Client({name: 'test', version: '1'})
    await other.connect(clientSide)
    await closing.close()
    await sleep(SEARCH_WARM_UP_DELAY_MS * 3)
    expect(await readdir(temporary)).to.deep.equal([])
    expect(await warmUpSearch(closing, createExecServer)).to.deep.equal([])
    await other.close()
  })
})
