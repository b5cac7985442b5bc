import {expect} from 'chai'
import {mkdir, mkdtemp, rm, writeFile} from 'node:fs/promises'
import {tmpdir} from 'node:os'
import path from 'node:path'

import {BadInputError, NotFoundError, OutsideWorkspaceError} from '../../../../src/errors.js'
import {type SearchRequest, runSearch} from '../../../../src/exec/search/run-search.js'
import {SearchWorkerPool} from '../../../../src/exec/search/worker-pool.js'
import {Workspace} from '../../../../src/exec/workspace.js'

describe('runSearch', () => {
  let scratch: string
  let workspace: Workspace
  let pool: SearchWorkerPool
  /** many/ holds MANY_FOLDERS folders of FILES_PER_FOLDER files each, spread over many walk tasks. */
  const MANY_FOLDERS = 40
  const FILES_PER_FOLDER = 10
  const manyFiles = MANY_FOLDERS * FILES_PER_FOLDER
  /** A cap that cuts inside a folder, past several others. */
  const cap = 137

  before(async () => {
    scratch = await mkdtemp(path.join(tmpdir(), 'ak-run-search-'))
    const root = path.join(scratch, 'ws')
    await mkdir(path.join(root, 'src', 'deep'), {recursive: true})
    await mkdir(path.join(root, 'many'))
    await writeFile(path.join(root, '.gitignore'), 'ignored.txt\n')
    await writeFile(path.join(root, 'ignored.txt'), 'needle\n')
    await writeFile(path.join(root, 'README.md'), '# Needle\nneedle in the readme\n')
    await writeFile(path.join(root, 'src', 'a.ts'), 'const needle = 1\nconst other = 2\n')
    await writeFile(path.join(root, 'src', 'deep', 'b.ts'), 'export {}\n// needle again\n')
    await writeFile(path.join(root, 'src', 'image.png'), Buffer.from([0x89, 0x50, 0, 0, 0x6e, 0x65, 0x65, 0x64, 0x6c, 0x65]))
    for (let index = 0; index < manyFiles; index++) {
      const folder = path.join(root, 'many', `d${String(Math.floor(index / FILES_PER_FOLDER)).padStart(2, '0')}`)
      await mkdir(folder, {recursive: true})
      await writeFile(path.join(folder, `f${String(index).padStart(4, '0')}.txt`), `line\nmatch ${index}\n`)
    }
    await writeFile(path.join(root, 'unicode.txt'), '\u{1F600}\nab\n\u{1F600}\u{1F600}x\nTHE KELVIN: 5 \u212A\nSt\u00E4dte\n')
    await writeFile(path.join(scratch, 'outside.txt'), 'needle\n')
    workspace = await Workspace.open(root)
    pool = new SearchWorkerPool({size: 2})
  })

  after(async () => {
    await pool.close()
    await rm(scratch, {recursive: true, force: true})
  })

  const search = (overrides: Omit<Partial<SearchRequest>, 'query'> & {query?: Partial<SearchRequest['query']>}) =>
    runSearch({
      workspace,
      pool,
      request: {
        path: '.',
        globs: [],
        maxResults: 1000,
        ...overrides,
        query: {query: 'needle', isRegex: false, isCaseSensitive: true, ...overrides.query},
      },
    })

  it('finds matching lines with workspace-relative paths in walk order, skipping ignored and binary files', async () => {
    const outcome = await search({})
    expect(outcome.matches.map((match) => `${match.path}:${match.line}:${match.text}`)).to.deep.equal([
      'README.md:2:needle in the readme',
      'src/a.ts:1:const needle = 1',
      'src/deep/b.ts:2:// needle again',
    ])
    expect(outcome.binaryFiles).to.equal(1)
    expect(outcome.isCut).to.equal(false)
  })

  it('ignores case when asked', async () => {
    const outcome = await search({query: {isCaseSensitive: false}, path: 'README.md'})
    expect(outcome.matches.map((match) => match.line)).to.deep.equal([1, 2])
  })

  it('filters files with globs on workspace-relative paths', async () => {
    expect((await search({globs: ['*.ts']})).matches.map((match) => match.path)).to.deep.equal(['src/a.ts', 'src/deep/b.ts'])
    expect((await search({globs: ['src/**', '!**/deep/**']})).matches.map((match) => match.path)).to.deep.equal(['src/a.ts'])
  })

  it('searches every folder but the excluded one when the only glob excludes a folder', async () => {
    expect((await search({globs: ['!src/**']})).matches.map((match) => match.path)).to.deep.equal(['README.md'])
    expect((await search({globs: ['!src/deep/**']})).matches.map((match) => match.path)).to.deep.equal(['README.md', 'src/a.ts'])
  })

  it('finds a file named by a glob without wildcards or slash in any folder', async () => {
    expect((await search({globs: ['b.ts']})).matches.map((match) => match.path)).to.deep.equal(['src/deep/b.ts'])
  })

  it('searches a subfolder or a single file named by path', async () => {
    expect((await search({path: 'src/deep'})).matches.map((match) => match.path)).to.deep.equal(['src/deep/b.ts'])
    const single = await search({path: path.join(workspace.root, 'src', 'a.ts')})
    expect(single.isFile).to.equal(true)
    expect(single.matches.map((match) => match.path)).to.deep.equal(['src/a.ts'])
  })

  it('returns exactly the first matches in walk order when the cap cuts, across walk tasks', async () => {
    for (let round = 0; round < 3; round++) {
      const outcome = await search({query: {query: 'match', isRegex: false, isCaseSensitive: true}, path: 'many', maxResults: cap})
      expect(outcome.isCut).to.equal(true)
      expect(outcome.matches).to.have.length(cap)
      expect(outcome.matches.map((match) => match.text)).to.deep.equal(Array.from({length: cap}, (_, index) => `match ${index}`))
    }
  })

  it('does not claim a cut when the matches fit the cap exactly', async () => {
    const outcome = await search({query: {query: 'match', isRegex: false, isCaseSensitive: true}, path: 'many', maxResults: manyFiles})
    expect(outcome.isCut).to.equal(false)
    expect(outcome.matches).to.have.length(manyFiles)
    expect(outcome.filesSearched).to.equal(manyFiles)
  })

  it('refuses an invalid regex before reading any file', async () => {
    const fresh = new SearchWorkerPool({size: 1})
    try {
      let failure: unknown
      await runSearch({workspace, pool: fresh, request: {path: '.', globs: [], maxResults: 5, query: {query: '(', isRegex: true, isCaseSensitive: true}}}).catch(
        (error: unknown) => (failure = error),
      )
      expect(failure).to.be.instanceOf(BadInputError)
      expect(fresh.workersStarted).to.equal(0)
    } finally {
      await fresh.close()
    }
  })

  it('refuses a path outside the workspace or missing', async () => {
    const failures: unknown[] = []
    for (const where of ['..', path.join(scratch, 'outside.txt'), 'nope']) await search({path: where}).catch((error: unknown) => failures.push(error))
    expect(failures[0]).to.be.instanceOf(OutsideWorkspaceError)
    expect(failures[1]).to.be.instanceOf(OutsideWorkspaceError)
    expect(failures[2]).to.be.instanceOf(NotFoundError)
  })

  it('matches regexes by code points and Unicode properties, and folds case as Unicode does', async () => {
    const lines = async (query: string, isRegex = true, isCaseSensitive = true) =>
      (await search({path: 'unicode.txt', query: {query, isRegex, isCaseSensitive}})).matches.map((match) => match.text)
    expect(await lines('^.$')).to.deep.equal(['\u{1F600}'])
    expect(await lines('^\u{1F600}{2}x$')).to.deep.equal(['\u{1F600}\u{1F600}x'])
    expect(await lines('\\p{Lu}\\p{Ll}+\\b')).to.deep.equal(['St\u00E4dte'])
    expect(await lines('\\p{So}')).to.deep.equal(['\u{1F600}', '\u{1F600}\u{1F600}x'])
    expect(await lines('5 k', false, false)).to.deep.equal(['THE KELVIN: 5 \u212A'])
    expect(await lines('^the kelvin: \\d k$', true, false)).to.deep.equal(['THE KELVIN: 5 \u212A'])
    expect(await lines('a\\-?b')).to.deep.equal(['ab'])
  })
})
