import {expect} from 'chai'
import {mkdtemp, rm, writeFile} from 'node:fs/promises'
import {tmpdir} from 'node:os'
import path from 'node:path'

import {DispatchFailedError} from '../../../../src/errors.js'
import {SEARCH_DEFAULT_MAX_RESULTS} from '../../../../src/exec/limits.js'
import {createExecConnection, createExecRuntime} from '../../../../src/exec/runtime.js'
import {SEARCH_POOL_SERVICE, searchPoolOf, searchTool} from '../../../../src/exec/tools/search.js'
import {Workspace} from '../../../../src/exec/workspace.js'

describe('search tool', () => {
  let dir: string

  before(async () => {
    dir = await mkdtemp(path.join(tmpdir(), 'ak-search-tool-'))
    await writeFile(path.join(dir, 'a.txt'), 'hello world\n')
  })

  after(async () => {
    await rm(dir, {recursive: true, force: true})
  })

  it('keeps one worker pool per runtime and closes it with the runtime', async () => {
    const workspace = await Workspace.open(dir)
    const runtime = createExecRuntime({workspace, level: 'read'})
    const context = {runtime, workspace, connection: createExecConnection(), signal: new AbortController().signal}
    const input = searchTool.inputSchema.parse({query: 'world'})
    const answer = await searchTool.run(input, context)
    expect(answer.text.split('\n')[0]).to.equal('a.txt:1:hello world')
    const pool = searchPoolOf(runtime)
    expect(runtime.services.get(SEARCH_POOL_SERVICE)).to.equal(pool)
    await searchTool.run(input, context)
    expect(searchPoolOf(runtime)).to.equal(pool)
    await runtime.close()
    expect(pool.workerCount).to.equal(0)
    expect(() => pool.startJob()).to.throw(DispatchFailedError)
  })

  it('applies its defaults and bounds through its input schema', () => {
    expect(searchTool.inputSchema.parse({query: 'x'})).to.deep.equal({query: 'x', path: '.', regex: false, case_sensitive: true, max_results: SEARCH_DEFAULT_MAX_RESULTS})
    expect(searchTool.inputSchema.safeParse({query: 'x', max_results: 0}).success).to.equal(false)
    expect(searchTool.inputSchema.safeParse({query: 'x', glob: ['*.ts', 'src/**']}).success).to.equal(true)
  })
})

describe('search in docs/tools.md', () => {
  it('quotes the limits the code uses', async () => {
    const {readFile} = await import('node:fs/promises')
    const limits = await import('../../../../src/exec/limits.js')
    const {REPO_ROOT} = await import('../../../helpers/clients.js')
    const doc = (await readFile(path.join(REPO_ROOT, 'docs', 'tools.md'), 'utf8')).replace(/\s+/g, ' ')
    expect(doc).to.contain(`\`max_results\` (default ${limits.SEARCH_DEFAULT_MAX_RESULTS}, at most ${limits.SEARCH_MAX_RESULTS})`)
    expect(doc).to.contain(`Lines over ${limits.SEARCH_MAX_LINE_CHARS} characters are clipped`)
    expect(doc).to.contain(`first ${limits.BINARY_SNIFF_BYTES}`)
    expect(doc).to.contain(`files over ${limits.SEARCH_MAX_FILE_BYTES / (1024 * 1024)} MiB`)
    expect(doc).to.contain(`at most ${limits.SEARCH_MAX_WORKERS}`)
    expect(doc).to.contain(`A search may run ${limits.SEARCH_TIME_LIMIT_MS / 1000} seconds`)
  })
})
