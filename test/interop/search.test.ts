import {expect} from 'chai'
import {execFileSync, spawn} from 'node:child_process'
import {mkdir, mkdtemp, rm, writeFile} from 'node:fs/promises'
import {tmpdir} from 'node:os'
import path from 'node:path'

import {SEARCH_MAX_ANSWER_CHARS, SEARCH_MAX_RESULTS} from '../../src/exec/limits.js'
import {CLIENT_LINES, REPO_ROOT, RUN_JS, type TestClient, connectStdio} from '../helpers/clients.js'

/** Short enough for a test, long enough for the small searches below on a busy machine. */
const TEST_TIME_LIMIT_MS = 4000

/** A line on which `(a+)+$` backtracks for far longer than any test runs. */
const RUNAWAY_LINE = `${'a'.repeat(64)}!`

async function makeWorkspace(): Promise<string> {
  const workspace = await mkdtemp(path.join(tmpdir(), 'ak-search-'))
  await mkdir(path.join(workspace, 'src', 'lib'), {recursive: true})
  await mkdir(path.join(workspace, 'node_modules', 'dep'), {recursive: true})
  await mkdir(path.join(workspace, 'many'))
  await writeFile(path.join(workspace, '.gitignore'), '*.log\n')
  await writeFile(path.join(workspace, 'debug.log'), 'TODO in a log\n')
  await writeFile(path.join(workspace, 'node_modules', 'dep', 'index.js'), '// TODO in a dependency\n')
  await writeFile(path.join(workspace, 'src', 'main.ts'), 'import x from "./lib"\n// TODO: wire it\nconst todo = 1\n')
  await writeFile(path.join(workspace, 'src', 'lib', 'util.js'), `// TODO later\n${'x'.repeat(1000)} TODO ${'y'.repeat(1000)}\n`)
  await writeFile(path.join(workspace, 'src', 'logo.png'), Buffer.from([0x89, 0x50, 0x4e, 0x47, 0, 0x54, 0x4f, 0x44, 0x4f]))
  for (let index = 0; index < 30; index++) await writeFile(path.join(workspace, 'many', `m${index}.txt`), 'hit\nhit\n')
  await writeFile(path.join(workspace, 'runaway.txt'), `${RUNAWAY_LINE}\n`)
  return workspace
}

for (const line of CLIENT_LINES) {
  describe(`search over stdio, client ${line}`, () => {
    let workspace: string
    let client: TestClient

    before(async () => {
      workspace = await makeWorkspace()
      client = await connectStdio(line, ['exec', 'serve', '--workspace', workspace], {
        env: {AK_SEARCH_TIME_LIMIT_MS: String(TEST_TIME_LIMIT_MS)},
      })
    })

    after(async () => {
      await client?.close()
      await rm(workspace, {recursive: true, force: true})
    })

    it('is offered at the read level as a read-only tool with its limits described', async () => {
      const tool = (await client.listTools()).find((candidate) => candidate.name === 'search')
      expect(tool?.annotations?.readOnlyHint).to.equal(true)
      expect(tool?.description).to.contain(`at most ${SEARCH_MAX_RESULTS}`)
    })

    it('answers path:line:text lines with workspace-relative paths, skipping ignored, node_modules and binary files', async () => {
      const answer = await client.call('search', {query: 'TODO', path: 'src'})
      expect(answer.isError).to.equal(false)
      const lines = answer.text.split('\n')
      expect(lines[0]).to.equal('src/main.ts:2:// TODO: wire it')
      expect(lines[1]).to.equal('src/lib/util.js:1:// TODO later')
      expect(lines[2]).to.match(/^src\/lib\/util\.js:2:…x+ TODO y+… \[line clipped to \d+ characters\]$/)
      expect(lines[3]).to.equal('[3 matching lines in 2 files; 2 files searched.]')
      const everywhere = await client.call('search', {query: 'TODO'})
      expect(everywhere.text).not.to.match(/debug\.log|node_modules|logo\.png/)
    })

    it('supports regex, case and glob options', async () => {
      const answer = await client.call('search', {query: '^const \\w+', regex: true, case_sensitive: false, glob: ['*.ts']})
      expect(answer.text.split('\n')[0]).to.equal('src/main.ts:3:const todo = 1')
      const ignoringCase = await client.call('search', {query: 'todo', case_sensitive: false, glob: 'src/*.ts'})
      expect(ignoringCase.text.split('\n').slice(0, 2)).to.deep.equal(['src/main.ts:2:// TODO: wire it', 'src/main.ts:3:const todo = 1'])
    })

    it('says so in one line when nothing matches', async () => {
      const answer = await client.call('search', {query: 'no such text anywhere'})
      expect(answer.isError).to.equal(false)
      expect(answer.text).to.match(/^No matches for "no such text anywhere" in the workspace \(\d+ files searched\)\.$/)
    })

    it('says when the result cap cut the answer and how to narrow it', async () => {
      const answer = await client.call('search', {query: 'hit', path: 'many', max_results: 5})
      const lines = answer.text.split('\n')
      expect(lines.slice(0, 5).every((entry) => /^many\/m\d+\.txt:[12]:hit$/.test(entry))).to.equal(true)
      expect(lines[5]).to.match(/^\[Stopped after 5 matching lines; more exist\. Narrow the search/)
    })

    it('keeps an answer within its size limit, saying so, however many long lines match', async () => {
      await mkdir(path.join(workspace, 'long'))
      const longLine = `${'q'.repeat(1000)}MATCH${'z'.repeat(1000)}`
      try {
        for (const name of ['a.txt', 'b.txt']) await writeFile(path.join(workspace, 'long', name), `${longLine}\n`.repeat(2000))
        const answer = await client.call('search', {query: 'MATCH', path: 'long', max_results: SEARCH_MAX_RESULTS})
        expect(answer.isError).to.equal(false)
        expect(answer.text.length).to.be.at.most(SEARCH_MAX_ANSWER_CHARS + 1000)
        const lines = answer.text.split('\n')
        expect(lines.at(-1)).to.match(new RegExp(`^\\[Stopped after \\d+ matching lines: an answer holds at most ${SEARCH_MAX_ANSWER_CHARS} characters`))
        expect(lines.at(-1)).not.to.contain('raise max_results')
        expect(lines.slice(0, -1).every((entry) => /^long\/a\.txt:\d+:/.test(entry))).to.equal(true)
        const files = await client.call('search', {glob: 'long/**', max_results: 1})
        expect(files.text.split('\n').at(-1)).to.equal('[Stopped after 1 path; more files match. Narrow the glob or the path, or raise max_results (at most 10000).]')
      } finally {
        await rm(path.join(workspace, 'long'), {recursive: true})
      }
    })

    it('finds text in a file whose absolute path is longer than the system takes, through its folders', async () => {
      // 20 nested folders of 250-byte names: the file's absolute path passes Linux's 4096 bytes.
      // A shell makes them one relative step at a time, as no single path that long can be passed.
      const name = 'd'.repeat(250)
      const script = `mkdir deep && cd deep && for i in $(seq 20); do mkdir ${name} && cd ${name} || exit 1; done; echo needle > leaf.txt`
      execFileSync('bash', ['-c', script], {cwd: workspace})
      try {
        const answer = await client.call('search', {query: 'needle', path: 'deep'})
        expect(answer.text).to.match(/^deep\/(d{250}\/){20}leaf\.txt:1:needle\n\[1 matching line in 1 file; 1 file searched\.\]$/)
      } finally {
        execFileSync('rm', ['-rf', 'deep'], {cwd: workspace})
      }
    })

    it('refuses a malformed glob, naming it and what is wrong, instead of matching nothing', async () => {
      for (const [glob, problem] of [
        ['[', /"\[" at character 1 starts a character class that has no closing "\]"/],
        ['src/[a-', /"\[" at character 5/],
        ['*.{ts', /"\{" at character 3 starts a group of alternatives/],
      ] as const) {
        const answer = await client.call('search', {query: 'TODO', glob})
        expect(answer.isError, glob).to.equal(true)
        expect(answer.text).to.contain(`Glob pattern ${JSON.stringify(glob)} is malformed: `)
        expect(answer.text).to.match(problem)
        expect((await client.call('search', {glob: [glob]})).isError).to.equal(true)
      }
    })

    it('lists the paths of files matching glob when query is left out, with the ignore rules of search', async () => {
      await writeFile(path.join(workspace, 'src', 'empty.ts'), '')
      try {
        const answer = await client.call('search', {glob: '**/*.ts'})
        expect(answer.isError).to.equal(false)
        expect(answer.text).to.equal('src/empty.ts\nsrc/main.ts\n[2 files match "**/*.ts" in the workspace.]')
        const logs = await client.call('search', {glob: '*.log'})
        expect(logs.text).to.match(/^No files match the glob "\*\.log" in the workspace/)
        const neither = await client.call('search', {path: 'src'})
        expect(neither.isError).to.equal(true)
        expect(neither.text).to.match(/^search needs query \(the text to find\) or glob/)
      } finally {
        await rm(path.join(workspace, 'src', 'empty.ts'))
      }
    })

    it('answers bad input with clear tool errors and keeps serving', async () => {
      const invalid = await client.call('search', {query: 'foo(', regex: true})
      expect(invalid.isError).to.equal(true)
      expect(invalid.text).to.contain('Invalid regex "foo("')
      const outside = await client.call('search', {query: 'x', path: '../'})
      expect(outside.isError).to.equal(true)
      expect(outside.text).to.contain('outside the workspace')
      const huge = await client.call('search', {query: 'x', max_results: SEARCH_MAX_RESULTS + 1})
      expect(huge.isError).to.equal(true)
      expect(huge.text).to.match(/max_results/)
      const empty = await client.call('search', {query: ''})
      expect(empty.isError).to.equal(true)
      expect((await client.call('search', {query: 'TODO', path: 'src/main.ts'})).isError).to.equal(false)
    })

    it('stops a runaway regex at the time limit while other calls are answered', async function () {
      this.timeout(TEST_TIME_LIMIT_MS * 5)
      let isSearchDone = false
      const runaway = client.call('search', {query: '(a+)+$', regex: true, path: 'runaway.txt'}).finally(() => (isSearchDone = true))
      const listing = await client.call('list', {path: 'src'})
      expect(listing.isError).to.equal(false)
      expect(isSearchDone).to.equal(false)
      const answer = await runaway
      expect(answer.isError).to.equal(true)
      expect(answer.text).to.contain(`time limit of ${TEST_TIME_LIMIT_MS} ms`)
      const after = await client.call('search', {query: 'wire', path: 'src'})
      expect(after.text.split('\n')[0]).to.equal('src/main.ts:2:// TODO: wire it')
    })
  })
}

describe('search over stdio on this repository', () => {
  it('finds the registerTool call of the server', async () => {
    const client = await connectStdio('v2 (2026-07-28)', ['exec', 'serve', '--workspace', REPO_ROOT])
    try {
      const answer = await client.call('search', {query: 'registerTool(', glob: 'src/**/*.ts'})
      expect(answer.text).to.match(/^src\/exec\/serving\/server\.ts:\d+:\s+(return )?server\.registerTool\($/m)
      expect(answer.text).not.to.match(/^(dist|node_modules)\//m)
    } finally {
      await client.close()
    }
  })
})

describe('ak exec serve with a search running', () => {
  it('exits 0 when stdin closes, stopping a runaway search', async function () {
    this.timeout(30_000)
    const workspace = await makeWorkspace()
    try {
      // A limit far beyond the test's timeout: only closing the pool can end the search in time.
      const child = spawn(process.execPath, [RUN_JS, 'exec', 'serve', '--workspace', workspace, '--quiet'], {
        env: {...process.env, AK_SEARCH_TIME_LIMIT_MS: '600000'},
        stdio: ['pipe', 'pipe', 'pipe'],
      })
      let stdout = ''
      child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()))
      const send = (message: object): void => void child.stdin.write(`${JSON.stringify(message)}\n`)
      send({jsonrpc: '2.0', id: 1, method: 'initialize', params: {protocolVersion: '2025-06-18', capabilities: {}, clientInfo: {name: 't', version: '1'}}})
      await waitFor(() => stdout.includes('"id":1'))
      send({jsonrpc: '2.0', method: 'notifications/initialized'})
      send({jsonrpc: '2.0', id: 2, method: 'tools/call', params: {name: 'search', arguments: {query: '(a+)+$', regex: true}}})
      send({jsonrpc: '2.0', id: 3, method: 'tools/call', params: {name: 'list', arguments: {}}})
      await waitFor(() => stdout.includes('"id":3'))
      const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)))
      child.stdin.end()
      expect(await exited).to.equal(0)
    } finally {
      await rm(workspace, {recursive: true, force: true})
    }
  })
})

async function waitFor(condition: () => boolean): Promise<void> {
  while (!condition()) await new Promise((resolve) => setTimeout(resolve, 20))
}
