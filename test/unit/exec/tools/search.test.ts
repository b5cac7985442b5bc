import {expect} from 'chai'
import {mkdir, mkdtemp, rm, writeFile} from 'node:fs/promises'
import {tmpdir} from 'node:os'
import path from 'node:path'

import {DispatchFailedError} from '../../../../src/errors.js'
import {SEARCH_DEFAULT_MAX_RESULTS} from '../../../../src/exec/limits.js'
import {createExecConnection, createExecRuntime} from '../../../../src/exec/runtime.js'
import {SEARCH_POOL_SERVICE, searchPoolOf, searchTool} from '../../../../src/exec/tools/search.js'
import type {ToolContext} from '../../../../src/exec/context.js'
import {Workspace} from '../../../../src/exec/workspace.js'
import {runTool, toolContext} from '../../../helpers/exec-context.js'

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

describe('search without a query lists file paths', () => {
  let dir: string
  let context: ToolContext

  before(async () => {
    dir = await mkdtemp(path.join(tmpdir(), 'ak-search-files-'))
    await mkdir(path.join(dir, 'src', 'deep'), {recursive: true})
    await mkdir(path.join(dir, 'node_modules', 'x'), {recursive: true})
    await writeFile(path.join(dir, '.gitignore'), 'build/\n')
    await mkdir(path.join(dir, 'build'))
    await writeFile(path.join(dir, 'build', 'out.test.ts'), 'x')
    await writeFile(path.join(dir, 'src', 'a.test.ts'), 'test\n')
    await writeFile(path.join(dir, 'src', 'deep', 'empty.test.ts'), '')
    await writeFile(path.join(dir, 'src', 'deep', 'b.ts'), 'code\n')
    await writeFile(path.join(dir, 'src', 'bin.test.ts'), Buffer.from([0, 1, 2]))
    await writeFile(path.join(dir, 'node_modules', 'x', 'c.test.ts'), 'dep\n')
    context = await toolContext(dir)
  })

  after(async () => {
    await context.runtime.close()
    await rm(dir, {recursive: true, force: true})
  })

  it('lists the matching files, empty and binary ones too, with the ignore rules of search', async () => {
    const text = await runTool(searchTool, context, {glob: '**/*.test.ts'})
    expect(text.split('\n')).to.deep.equal([
      'src/a.test.ts',
      'src/bin.test.ts',
      'src/deep/empty.test.ts',
      '[3 files match "**/*.test.ts" in the workspace.]',
    ])
  })

  it('lists below a folder and under the result cap, saying when it stopped', async () => {
    expect(await runTool(searchTool, context, {glob: '*.ts', path: 'src/deep'})).to.equal(
      'src/deep/b.ts\nsrc/deep/empty.test.ts\n[2 files match "*.ts" in "src/deep".]',
    )
    const cut = (await runTool(searchTool, context, {glob: '*.ts', max_results: 2})).split('\n')
    expect(cut).to.have.length(3)
    expect(cut[2]).to.match(/^\[Stopped after 2 paths; more files match\. Narrow the glob/)
  })

  it('says so in one line when no file matches', async () => {
    expect(await runTool(searchTool, context, {glob: '*.py'})).to.equal(
      'No files match the glob "*.py" in the workspace (ignored files, .git and node_modules are not listed).',
    )
  })

  it('refuses a call with neither query nor glob', async () => {
    let message = ''
    await runTool(searchTool, context, {path: 'src'}).catch((error: Error) => (message = error.message))
    expect(message).to.match(/^search needs query \(the text to find\) or glob/)
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
