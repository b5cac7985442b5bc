import {expect} from 'chai'
import {execFileSync} from 'node:child_process'
import {mkdir, mkdtemp, rm, symlink, writeFile} from 'node:fs/promises'
import {tmpdir} from 'node:os'
import path from 'node:path'

import {displayName} from '../../../../src/exec/display-name.js'
import {walkedFiles} from '../../../helpers/walk.js'

/** Creates files (contents default to the path) under `root`; a name ending in `/` is a folder. */
async function makeTree(root: string, files: Record<string, string>): Promise<void> {
  for (const [name, contents] of Object.entries(files)) {
    const full = path.join(root, name)
    if (name.endsWith('/')) {
      await mkdir(full, {recursive: true})
      continue
    }
    await mkdir(path.dirname(full), {recursive: true})
    await writeFile(full, contents)
  }
}

/** A walk under test: the display-form paths it yields below `start` (workspace-relative, '.' for the root), in order. */
type WalkAll = (root: string, start?: string, globs?: string[]) => Promise<string[]>

/** The search walk on two workers, with a task budget (see walkedFiles). */
function walkOnWorkers(taskBudgetMs?: number): WalkAll {
  return async (root, start = '.', globs) =>
    (await walkedFiles(root, {start, ...(globs ? {globs} : {}), ...(taskBudgetMs === undefined ? {} : {taskBudgetMs})})).files
}

const WALKS: Array<[string, WalkAll]> = [
  ['the search walk (one folder per task)', walkOnWorkers(0)],
  ['the search walk (default task budgets)', walkOnWorkers()],
]

function hasGit(): boolean {
  try {
    execFileSync('git', ['--version'], {stdio: 'ignore'})
    return true
  } catch {
    return false
  }
}

for (const [walkName, walkAll] of WALKS) describe(walkName, () => {
  let scratch: string
  let workspace: string

  beforeEach(async () => {
    scratch = await mkdtemp(path.join(tmpdir(), 'ak-walk-'))
    workspace = path.join(scratch, 'ws')
    await mkdir(workspace)
  })

  afterEach(async () => {
    await rm(scratch, {recursive: true, force: true})
  })

  it('lists a folder\'s files by name, then its subfolders depth first', async () => {
    await makeTree(workspace, {'b.txt': '', 'a.txt': '', 'z/1.txt': '', 'c/2.txt': '', 'c/d/3.txt': ''})
    expect(await walkAll(workspace)).to.deep.equal(['a.txt', 'b.txt', 'c/2.txt', 'c/d/3.txt', 'z/1.txt'])
  })

  it('skips .git and node_modules folders at any depth', async () => {
    await makeTree(workspace, {
      '.git/config': '',
      'node_modules/x/index.js': '',
      'pkg/node_modules/y.js': '',
      'pkg/.git/HEAD': '',
      'pkg/main.js': '',
    })
    expect(await walkAll(workspace)).to.deep.equal(['pkg/main.js'])
  })

  it('applies nested .gitignore files, negation, anchored and folder-only patterns', async () => {
    await makeTree(workspace, {
      '.gitignore': '*.log\n/build\nout/\n',
      'a.log': '',
      'build/x.txt': '',
      'src/build/kept.txt': '',
      'src/out/gone.txt': '',
      'src/out.txt': '',
      'src/.gitignore': '!keep.log\n/local.txt\n',
      'src/keep.log': '',
      'src/drop.log': '',
      'src/local.txt': '',
      'src/deep/local.txt': '',
    })
    expect(await walkAll(workspace)).to.deep.equal([
      '.gitignore',
      'src/.gitignore',
      'src/keep.log',
      'src/out.txt',
      'src/build/kept.txt',
      'src/deep/local.txt',
    ])
  })

  it('applies .git/info/exclude below .gitignore files', async () => {
    await makeTree(workspace, {
      '.git/info/exclude': 'secret*\n',
      '.gitignore': '!secret-but-wanted.txt\n',
      'secret.txt': '',
      'secret-but-wanted.txt': '',
      'plain.txt': '',
    })
    expect(await walkAll(workspace)).to.deep.equal(['.gitignore', 'plain.txt', 'secret-but-wanted.txt'])
  })

  it('never applies a .gitignore of a folder above the workspace', async () => {
    await writeFile(path.join(scratch, '.gitignore'), '*.txt\nws/\n')
    await makeTree(workspace, {'a.txt': ''})
    expect(await walkAll(workspace)).to.deep.equal(['a.txt'])
  })

  it('applies the ignore files above a start folder inside the workspace', async () => {
    await makeTree(workspace, {'.gitignore': '*.log\n', 'sub/a.log': '', 'sub/a.txt': ''})
    expect(await walkAll(workspace, 'sub')).to.deep.equal(['sub/a.txt'])
  })

  it('walks a start folder that is ignored, since it was named, with the rules below it', async () => {
    await makeTree(workspace, {'.gitignore': 'dist/\n', 'dist/a.js': '', 'dist/.gitignore': '*.map\n', 'dist/a.js.map': ''})
    expect(await walkAll(workspace)).to.deep.equal(['.gitignore'])
    expect(await walkAll(workspace, 'dist')).to.deep.equal(['dist/.gitignore', 'dist/a.js'])
  })

  it('leaves out the subfolders a folder filter refuses', async () => {
    await makeTree(workspace, {'a.txt': '', 'src/b.txt': '', 'src/deep/c.txt': '', 'test/d.txt': ''})
    expect(await walkAll(workspace, '.', ['src/**'])).to.deep.equal(['a.txt', 'src/b.txt', 'src/deep/c.txt'])
  })

  it('skips symlinks to files and folders, inside or outside the workspace', async () => {
    await makeTree(workspace, {'real/a.txt': ''})
    await writeFile(path.join(scratch, 'outside.txt'), '')
    await symlink(path.join(scratch, 'outside.txt'), path.join(workspace, 'out-link.txt'))
    await symlink(scratch, path.join(workspace, 'out-dir'))
    await symlink('real', path.join(workspace, 'in-dir'))
    await symlink('real/a.txt', path.join(workspace, 'in-link.txt'))
    expect(await walkAll(workspace)).to.deep.equal(['real/a.txt'])
  })

  it('does not read a symlinked .gitignore', async () => {
    await writeFile(path.join(scratch, 'rules'), '*.txt\n')
    await symlink(path.join(scratch, 'rules'), path.join(workspace, '.gitignore'))
    await makeTree(workspace, {'a.txt': ''})
    expect(await walkAll(workspace)).to.deep.equal(['a.txt'])
  })

  it('keeps the same files as git ls-files on a tree of tricky rules', async function () {
    if (!hasGit()) this.skip()
    await makeTree(workspace, {
      '.gitignore': ['*.o', '!important.o', '/root-only.txt', 'cache/', 'docs/**/draft*', 'a/**/b', '\\#hash', 'trailing.txt   ', 'vendor/*', '!vendor/keep/'].join('\n'),
      'x.o': '',
      'important.o': '',
      'root-only.txt': '',
      'sub/root-only.txt': '',
      'cache/c.txt': '',
      'sub/cache/c.txt': '',
      'docs/guide/draft-1.md': '',
      'docs/guide/final.md': '',
      'a/x/y/b': '',
      'a/b': '',
      '#hash': '',
      'trailing.txt': '',
      'vendor/drop/v.js': '',
      'vendor/keep/v.js': '',
      'vendor/top.js': '',
      'logs/.gitignore': '*\n!.gitignore\n!wanted.log\n',
      'logs/wanted.log': '',
      'logs/other.log': '',
      'logs/nested/wanted.log': '',
      'app/.gitignore': '!cache/\n/local\n',
      'app/cache/kept.txt': '',
      'app/local/gone.txt': '',
      'app/x/local/kept.txt': '',
      'app/sub/.gitignore': '!*.o\n',
      'app/sub/keep.o': '',
      'app/sub/deeper/keep2.o': '',
    })
    const env = {...process.env, HOME: scratch, XDG_CONFIG_HOME: scratch, GIT_CONFIG_NOSYSTEM: '1', GIT_CONFIG_GLOBAL: '/dev/null'}
    execFileSync('git', ['init', '-q', '.'], {cwd: workspace, env})
    await writeFile(path.join(workspace, '.git', 'info', 'exclude'), 'trailing*\n')
    const gitFiles = execFileSync('git', ['ls-files', '--others', '--cached', '--exclude-standard', '-z'], {cwd: workspace, env})
      .toString()
      .split('\0')
      .filter(Boolean)
      .sort()
    const ours = (await walkAll(workspace)).sort()
    expect(ours).to.deep.equal(gitFiles)
  })

  it('walks names that are not UTF-8 by their bytes and shows them escaped', async () => {
    await mkdir(Buffer.concat([Buffer.from(`${workspace}/`), Buffer.from([0xff])]))
    await writeFile(Buffer.concat([Buffer.from(`${workspace}/`), Buffer.from([0xff]), Buffer.from('/in.txt')]), 'needle\n')
    await writeFile(Buffer.concat([Buffer.from(`${workspace}/caf`), Buffer.from([0xe9])]), 'needle\n')
    await writeFile(path.join(workspace, 'line\nbreak'), 'needle\n')
    await writeFile(path.join(scratch, 'outside.txt'), 'needle\n')
    await symlink(scratch, path.join(workspace, '\ufffd'))
    expect(await walkAll(workspace)).to.deep.equal(['caf\\xe9', 'line\\nbreak', '\\xff/in.txt'])
    // Each file is opened by the exact bytes of its path: all three are read.
    expect((await walkedFiles(workspace, {query: 'needle'})).files).to.deep.equal(['caf\\xe9', 'line\\nbreak', '\\xff/in.txt'])
  })

  it('orders names by their bytes, also where UTF-16 order differs (characters above U+FFFF against U+E000–U+FFFF)', async () => {
    for (const name of ['\u{1F600}.txt', '\uE000.txt', '\uFF21.txt', 'z.txt', '\u00E9.txt']) await writeFile(path.join(workspace, name), '')
    expect(await walkAll(workspace)).to.deep.equal(['z.txt', '\u00E9.txt', '\uE000.txt', '\uFF21.txt', '\u{1F600}.txt'])
  })

  it('walks a name that holds U+FFFD itself, and its valid neighbours, by their exact bytes', async () => {
    await mkdir(path.join(workspace, 'a\uFFFDb'))
    await writeFile(path.join(workspace, 'a\uFFFDb', 'in.txt'), 'needle\n')
    await writeFile(path.join(workspace, 'plain.txt'), 'needle\n')
    await writeFile(Buffer.concat([Buffer.from(`${workspace}/x`), Buffer.from([0xef, 0xbf])]), 'needle\n')
    expect(await walkAll(workspace)).to.deep.equal(['plain.txt', 'x\\xef\\xbf', 'a\uFFFDb/in.txt'])
    expect((await walkedFiles(workspace, {query: 'needle'})).files).to.deep.equal(['plain.txt', 'x\\xef\\xbf', 'a\uFFFDb/in.txt'])
  })

  it('walks a tree of 9 × 12 folders, ignore rules and a non-UTF-8 name in the same order whatever the task budget and the number of workers', async () => {
    const tree: Record<string, string> = {'.gitignore': 'skip*\n'}
    for (let top = 0; top < 9; top++) {
      for (let inner = 0; inner < 12; inner++) {
        tree[`t${top}/f${inner}.txt`] = ''
        tree[`t${top}/d${inner}/g.txt`] = ''
        tree[`t${top}/d${inner}/skip.txt`] = ''
        tree[`t${top}/d${inner}/e/h.txt`] = ''
      }
      tree[`t${top}/.gitignore`] = `f${top}.txt\n`
    }
    await makeTree(workspace, tree)
    await mkdir(Buffer.concat([Buffer.from(`${workspace}/t3/`), Buffer.from([0xfe])]))
    await writeFile(Buffer.concat([Buffer.from(`${workspace}/t3/`), Buffer.from([0xfe]), Buffer.from('/in.txt')]), '')
    const walked = await walkAll(workspace)
    expect(walked).to.have.length(1 + 9 * (1 + 11 + 12 * 2) + 1)
    expect(walked.slice(0, 6)).to.deep.equal(['.gitignore', 't0/.gitignore', 't0/f1.txt', 't0/f10.txt', 't0/f11.txt', 't0/f2.txt'])
    expect(walked.slice(13, 17)).to.deep.equal(['t0/d0/g.txt', 't0/d0/e/h.txt', 't0/d1/g.txt', 't0/d1/e/h.txt'])
    expect(walked).to.include('t3/\\xfe/in.txt')
    expect(walked).to.not.include('t3/f3.txt')
    expect(walked.filter((file) => file.endsWith('skip.txt'))).to.deep.equal([])
    expect((await walkedFiles(workspace, {poolSize: 1})).files).to.deep.equal(walked)
    expect((await walkedFiles(workspace, {poolSize: 4, taskBudgetMs: 0})).files).to.deep.equal(walked)
    expect(await walkAll(workspace, 't3')).to.deep.equal(walked.filter((file) => file.startsWith('t3/')))
  })

  it('matches ignore rules against names as git sees them, not their escaped display form', async function () {
    if (!hasGit()) this.skip()
    const names = ['tab\there', 'back\\slash', 'nl\nx', 'q\u0001', 'm\tm', 'keep.txt']
    await writeFile(path.join(workspace, '.gitignore'), 'tab?here\nback?slash\nbad?.txt\nnl?x\n*x*\n*t*\n!keep.txt\n')
    for (const name of names) await writeFile(path.join(workspace, name), '')
    await writeFile(Buffer.concat([Buffer.from(`${workspace}/bad`), Buffer.from([0xff]), Buffer.from('.txt')]), '')
    const env = {...process.env, HOME: scratch, XDG_CONFIG_HOME: scratch, GIT_CONFIG_NOSYSTEM: '1', GIT_CONFIG_GLOBAL: '/dev/null'}
    execFileSync('git', ['init', '-q', '.'], {cwd: workspace, env})
    const gitFiles = execFileSync('git', ['ls-files', '--others', '--exclude-standard', '-z'], {cwd: workspace, env})
      .toString('latin1')
      .split('\0')
      .filter(Boolean)
      .map((name) => displayName(Buffer.from(name, 'latin1')))
      .sort()
    expect(gitFiles).to.deep.equal(['keep.txt', 'm\\tm', 'q\\x01'])
    expect((await walkAll(workspace)).sort()).to.deep.equal(gitFiles)
  })
})
