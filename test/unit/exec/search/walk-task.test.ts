import {expect} from 'chai'
import {writeFileSync} from 'node:fs'
import {mkdir, mkdtemp, realpath, rm, stat, symlink, writeFile} from 'node:fs/promises'
import {tmpdir} from 'node:os'
import path from 'node:path'

import {CAN_VERIFY_DESCRIPTORS} from '../../../../src/exec/files/confined-open.js'
import {LIST_SMALL_FOLDER_BYTES} from '../../../../src/exec/limits.js'
import {compileGlobs} from '../../../../src/exec/search/glob-filter.js'
import {createScanner} from '../../../../src/exec/search/scanner.js'
import {MAX_HANDED_OVER_PATH_BYTES, createWalker, type WalkFolder, type WalkRequest} from '../../../../src/exec/search/walk-task.js'

describe('walk tasks (search workers)', () => {
  let scratch: string
  let workspace: string

  beforeEach(async () => {
    scratch = await realpath(await mkdtemp(path.join(tmpdir(), 'ak-walk-task-')))
    workspace = path.join(scratch, 'ws')
    await mkdir(workspace)
  })

  afterEach(async () => {
    await rm(scratch, {recursive: true, force: true})
  })

  function request(folders: WalkFolder[], overrides: Partial<WalkRequest> = {}): WalkRequest {
    return {
      searchId: 1,
      taskId: 7,
      folders,
      ignoreFiles: [],
      scan: {query: {kind: 'literal', text: 'needle'}, maxMatches: 100, maxLineChars: 200, maxFileBytes: 1024 * 1024, binarySniffBytes: 8000},
      budgetMs: 60_000,
      ...overrides,
    }
  }

  const rootFolder = (): WalkFolder => ({prefix: `${workspace}/`, shown: '', ruled: '', rules: []})

  it('never walks a folder handed over by a path that now leads outside through a link', async function () {
    if (!CAN_VERIFY_DESCRIPTORS) this.skip()
    const outside = path.join(scratch, 'outside')
    await mkdir(path.join(outside, 'sub'), {recursive: true})
    await writeFile(path.join(outside, 'sub', 'secret.txt'), 'needle outside\n')
    // `ws/link` was a folder when it was listed; it is a link to the outside now.
    await symlink(outside, path.join(workspace, 'link'))
    const walker = createWalker(createScanner())
    const handedOver = [{prefix: `${workspace}/link/sub/`, shown: 'link/sub', ruled: 'link/sub', rules: []}]
    // Listing (no query) names every file without opening it: only the folder's check keeps the outside's names out.
    const listed = walker.walk(request(handedOver, {scan: {...request([]).scan, query: undefined}}))
    expect(listed.matches).to.deep.equal([])
    // Only the folder itself is named, as no longer the folder it was.
    expect(listed.paths).to.deep.equal(['link/sub/'])
    expect(listed.unreadable).to.deep.equal([[0, 'no longer a folder']])
    const searched = walker.walk(request(handedOver))
    expect(searched.paths).to.deep.equal(['link/sub/'])
    expect(searched.matches).to.deep.equal([])
    expect(searched.frontier).to.deep.equal([])
  })

  it('lists the files of a large folder by glob in batches, with the paths and order a search of their contents gives', async function () {
    this.timeout(120_000) // 5000 files made and searched, on a busy machine
    const big = path.join(workspace, 'big')
    await mkdir(big)
    await writeFile(path.join(big, '.gitignore'), 'ignored-*\n')
    // Created in an order other than the sorted one; a name that is not UTF-8, ignored names, subfolders.
    for (let index = 4999; index >= 0; index--) {
      const name = index % 50 === 7 ? `ignored-${index}.txt` : index % 10 === 3 ? `f-${index}.log` : `f-${String(index).padStart(5, '0')}.txt`
      writeFileSync(path.join(big, name), 'needle\n')
    }
    await writeFile(Buffer.concat([Buffer.from(`${big}/`), Buffer.from([0xff]), Buffer.from('-odd.txt')]), 'needle\n')
    for (const name of ['sub-b', 'sub-a', 'node_modules']) {
      await mkdir(path.join(big, name))
      await writeFile(path.join(big, name, 'inner.txt'), 'needle\n')
    }
    expect((await stat(big)).size, 'a folder large enough to be read in batches').to.be.above(LIST_SMALL_FOLDER_BYTES)
    const walker = createWalker(createScanner())
    const scan = {...request([]).scan, maxMatches: 10_000, glob: compileGlobs(['*.txt'])}
    const listed = walker.walk(request([rootFolder()], {scan: {...scan, query: undefined}}))
    const searched = walker.walk(request([rootFolder()], {scan}))
    const pathsOf = (result: typeof listed) => result.matches.map(([index]) => result.paths[index])
    expect(pathsOf(listed)).to.deep.equal(pathsOf(searched))
    expect(pathsOf(listed)).to.have.length(4400 + 1 + 2)
    expect(pathsOf(listed).slice(0, 2)).to.deep.equal(['big/f-00000.txt', 'big/f-00001.txt'])
    expect(pathsOf(listed).slice(-3)).to.deep.equal(['big/\\xff-odd.txt', 'big/sub-a/inner.txt', 'big/sub-b/inner.txt'])
    expect(listed.stoppedEarly).to.equal(false)
    // Cut at maxMatches: the smallest names, and the walk stops there.
    const cut = walker.walk(request([rootFolder()], {scan: {...scan, query: undefined, maxMatches: 3}}))
    expect(pathsOf(cut)).to.deep.equal(['big/f-00000.txt', 'big/f-00001.txt', 'big/f-00002.txt'])
    expect(cut.stoppedEarly).to.equal(true)
  })

  it('hands back the folders it did not reach, in walk order, with the ignore files it read', async () => {
    await writeFile(path.join(workspace, '.gitignore'), '*.log\n')
    for (const name of ['a', 'b', 'c']) {
      await mkdir(path.join(workspace, name, 'inner'), {recursive: true})
      await writeFile(path.join(workspace, name, 'x.txt'), 'needle\n')
      await writeFile(path.join(workspace, name, 'x.log'), 'needle\n')
    }
    const walker = createWalker(createScanner())
    const first = walker.walk(request([rootFolder()], {budgetMs: 0}))
    expect(first.matches).to.deep.equal([])
    expect(first.ignoreFiles).to.deep.equal([{id: '7.0', folder: '', text: '*.log'}])
    expect(first.frontier.map((folder) => folder.shown)).to.deep.equal(['a', 'b', 'c'])
    expect(first.frontier.every((folder) => folder.rules.join() === '7.0')).to.equal(true)

    // Another worker takes the frontier with the ignore file sent along: the rules still apply.
    const other = createWalker(createScanner())
    const rest = other.walk(request(first.frontier, {taskId: 8, ignoreFiles: first.ignoreFiles}))
    expect(rest.matches.map(([index, line]) => `${rest.paths[index]}:${line}`)).to.deep.equal(['a/x.txt:1', 'b/x.txt:1', 'c/x.txt:1'])
    expect(rest.frontier).to.deep.equal([])
  })

  it('names a folder removed after it was listed, and walks a folder too deep to hand over itself', async () => {
    const walker = createWalker(createScanner())
    const gone = walker.walk(request([{prefix: `${workspace}/gone/`, shown: 'gone', ruled: 'gone', rules: []}]))
    expect(gone.paths).to.deep.equal(['gone/'])
    expect(gone.unreadable).to.deep.equal([[0, 'removed meanwhile']])
    // A chain of folders whose paths pass MAX_HANDED_OVER_PATH_BYTES: with no time budget at all,
    // the task still walks them all rather than hand back what another task could not open.
    let folder = workspace
    const name = 'd'.repeat(200)
    const depth = Math.ceil(MAX_HANDED_OVER_PATH_BYTES / (name.length + 1)) + 3
    for (let level = 0; level < depth; level++) folder = path.join(folder, name)
    await mkdir(folder, {recursive: true})
    await writeFile(path.join(folder, 'deep.txt'), 'needle\n')
    const found: string[] = []
    let folders = [rootFolder()]
    let tasks = 0
    while (folders.length > 0) {
      const result = walker.walk(request(folders, {budgetMs: 0}))
      tasks++
      found.push(...result.matches.map(([index]) => result.paths[index] as string))
      for (const next of result.frontier) expect(Buffer.byteLength(next.prefix as string)).to.be.at.most(MAX_HANDED_OVER_PATH_BYTES)
      folders = result.frontier
    }
    expect(found).to.deep.equal([`${Array(depth).fill(name).join('/')}/deep.txt`])
    expect(tasks, 'handed back level by level, then walked in one task').to.be.below(depth)
  })

  it('stops at maxMatches and still hands back what it did not reach', async () => {
    for (const name of ['a', 'b']) {
      await mkdir(path.join(workspace, name), {recursive: true})
      await writeFile(path.join(workspace, name, 'x.txt'), 'needle\nneedle\nneedle\n')
    }
    await writeFile(path.join(workspace, 'top.txt'), 'needle\n')
    const walker = createWalker(createScanner())
    const result = walker.walk(request([rootFolder()], {scan: {...request([]).scan, maxMatches: 2}}))
    expect(result.stoppedEarly).to.equal(true)
    expect(result.matches.map(([index, line]) => `${result.paths[index]}:${line}`)).to.deep.equal(['top.txt:1', 'a/x.txt:1'])
    expect(result.frontier.map((folder) => folder.shown)).to.deep.equal(['b'])
  })

  it('reports an ignore file with rules left out, under its workspace path', async () => {
    await mkdir(path.join(workspace, 'deep'))
    await writeFile(path.join(workspace, 'deep', '.gitignore'), `${'x'.repeat(5000)}\n*.tmp\n`)
    await writeFile(path.join(workspace, 'deep', 'a.tmp'), 'needle\n')
    await writeFile(path.join(workspace, 'deep', 'a.txt'), 'needle\n')
    const walker = createWalker(createScanner())
    const result = walker.walk(request([rootFolder()]))
    expect(result.notes).to.deep.equal([['deep/.gitignore', '1 line longer than 4096 bytes']])
    expect(result.matches.map(([index]) => result.paths[index])).to.deep.equal(['deep/a.txt'])
  })
})
