import {expect} from 'chai'
import {execFileSync} from 'node:child_process'
import {mkdir, mkdtemp, rm, writeFile} from 'node:fs/promises'
import {tmpdir} from 'node:os'
import path from 'node:path'

import {compileIgnoreLine} from '../../../../src/exec/search/ignore-pattern.js'
import {SearchWorkerPool} from '../../../../src/exec/search/worker-pool.js'
import {walkedFiles} from '../../../helpers/walk.js'

/** Whether `line` matches `subject` (a name, or a relative path for a pattern with a slash), ignoring negation. */
function matches(line: string, subject: string): boolean {
  const pattern = compileIgnoreLine(line, false)
  if (!pattern) throw new Error(`no pattern in ${JSON.stringify(line)}`)
  return pattern.matches(subject)
}

function hasGit(): boolean {
  try {
    execFileSync('git', ['--version'], {stdio: 'ignore'})
    return true
  } catch {
    return false
  }
}

describe('compileIgnoreLine', () => {
  it('reads negation, folder-only and anchoring from the line', () => {
    expect(compileIgnoreLine('!a/', false)).to.include({isNegated: true, isFolderOnly: true, isOnPath: false})
    expect(compileIgnoreLine('/a', false)).to.include({isNegated: false, isFolderOnly: false, isOnPath: true})
    expect(compileIgnoreLine('a/b/', false)).to.include({isFolderOnly: true, isOnPath: true})
    expect(compileIgnoreLine('\\!a', false)).to.include({isNegated: false})
    expect(compileIgnoreLine('#a', false)).to.equal(undefined)
    expect(compileIgnoreLine('\\#a', false)?.matches('#a')).to.equal(true)
  })

  it('matches * and ? within one name, never across a slash', () => {
    expect(matches('*.map', 'a.map')).to.equal(true)
    expect(matches('*.map', '.map')).to.equal(true)
    expect(matches('*.map', 'a.map.js')).to.equal(false)
    expect(matches('a/*.map', 'a/b.map')).to.equal(true)
    expect(matches('a/*.map', 'a/x/b.map')).to.equal(false)
    expect(matches('a/?', 'a/b')).to.equal(true)
    expect(matches('a?b', 'a/b')).to.equal(false)
    expect(matches('a?', 'a😀')).to.equal(true)
  })

  it('matches ** only as a whole segment across folders, and as * elsewhere', () => {
    // `**/x` is `x` at any depth, so it is tested on the last name.
    expect(compileIgnoreLine('**/x', false)).to.include({isOnPath: false})
    expect(compileIgnoreLine('/**/x/', false)).to.include({isOnPath: false, isFolderOnly: true})
    expect(matches('**/x', 'x')).to.equal(true)
    expect(matches('**/*.map', 'a.map')).to.equal(true)
    expect(matches('**/x/y', 'a/x/y')).to.equal(true)
    expect(matches('**/x/y', 'x/y')).to.equal(true)
    expect(matches('a/**/x', 'a/x')).to.equal(true)
    expect(matches('a/**/x', 'a/b/c/x')).to.equal(true)
    expect(matches('a/**/x', 'ab/x')).to.equal(false)
    expect(matches('copy-2/**/test', 'copy-2/a/test')).to.equal(true)
    expect(matches('copy-2/**/test', 'copy-1/a/test')).to.equal(false)
    expect(matches('a/**', 'a/b/c')).to.equal(true)
    expect(matches('a/**', 'a')).to.equal(false)
    expect(matches('a/b**', 'a/bc')).to.equal(true)
    expect(matches('a/b**', 'a/b/c')).to.equal(false)
  })

  it('matches bracket classes with negation, ranges and named classes, never a slash', () => {
    expect(matches('[ab].txt', 'b.txt')).to.equal(true)
    expect(matches('[!ab].txt', 'b.txt')).to.equal(false)
    expect(matches('[^ab].txt', 'c.txt')).to.equal(true)
    expect(matches('[a-c]x', 'bx')).to.equal(true)
    expect(matches('[c-a]x', 'bx')).to.equal(false)
    expect(matches('[]]x', ']x')).to.equal(true)
    expect(matches('[a-]x', '-x')).to.equal(true)
    expect(matches('[[:digit:]]x', '7x')).to.equal(true)
    expect(matches('[[:digit:]]x', 'ax')).to.equal(false)
    expect(matches('a[!b]c', 'a/c')).to.equal(false)
    expect(matches('a[/]c', 'a/c')).to.equal(false)
  })

  it('matches nothing for a [ without its ], an unknown class or a lone trailing backslash, as git', () => {
    expect(matches('a[b', 'a[b')).to.equal(false)
    expect(matches('[[:nope:]]', 'a')).to.equal(false)
    expect(matches('a\\', 'a\\')).to.equal(false)
    expect(matches('a\\', 'a')).to.equal(false)
  })

  it('takes an escaped character literally and keeps an escaped trailing space', () => {
    expect(matches('\\*.txt', '*.txt')).to.equal(true)
    expect(matches('\\*.txt', 'a.txt')).to.equal(false)
    expect(matches('a\\ ', 'a ')).to.equal(true)
    expect(matches('a  ', 'a')).to.equal(true)
  })

  it('folds letter case when asked (macOS)', () => {
    expect(compileIgnoreLine('*.LOG', true)?.matches('a.log')).to.equal(true)
    expect(compileIgnoreLine('Build', true)?.matches('build')).to.equal(true)
  })
})

describe('ignore rules against git', () => {
  let scratch: string
  let workspace: string

  before(async () => {
    scratch = await mkdtemp(path.join(tmpdir(), 'ak-ignore-'))
    workspace = path.join(scratch, 'ws')
  })

  after(async () => {
    await rm(scratch, {recursive: true, force: true})
  })

  /** A tree of names that the generated patterns below can tell apart. */
  const FILES = [
    'ab', 'a.log', 'b.map', 'x.min.js', '.hidden', 'a b', '[x]', '*', 'A.LOG', 'e',
    'a/a', 'a/b/c', 'a/b/c.log', 'a/b/a', 'a/x/b', 'docs/a.log', 'docs/b/b.map', 'x/docs/y/b.map',
    'x/a', 'x/ab', 'x/b/a.log', 'x/b/keep.map', 'b/docs/x', 'c/a.log', 'c/d/e/f.map',
  ]
  const PIECES = ['a', 'b', 'x', 'docs', '*', '**', '?', '[ab]', '[!a]', '[a-c]', '[[:alpha:]]', '.log', '.map', '/', '\\*', '.', 'c', 'e']

  /** A small deterministic generator (mulberry32), so a failure names a reproducible seed. */
  function generator(seed: number): () => number {
    let state = seed
    return () => {
      state = (state + 0x6d2b79f5) | 0
      let t = Math.imul(state ^ (state >>> 15), 1 | state)
      t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t
      return ((t ^ (t >>> 14)) >>> 0) / 4294967296
    }
  }

  function randomLine(random: () => number): string {
    const pick = <T>(list: readonly T[]): T => list[Math.floor(random() * list.length)] as T
    let line = ''
    const length = 1 + Math.floor(random() * 4)
    for (let index = 0; index < length; index++) line += pick(PIECES)
    if (random() < 0.2) line = `/${line}`
    if (random() < 0.2) line = `${line}/`
    if (random() < 0.25) line = `!${line}`
    return line
  }

  it('keeps the same files as git ls-files for hundreds of generated ignore files', async function () {
    if (!hasGit()) this.skip()
    this.timeout(120_000)
    for (const file of FILES) {
      await mkdir(path.dirname(path.join(workspace, file)), {recursive: true})
      await writeFile(path.join(workspace, file), '')
    }
    const env = {...process.env, HOME: scratch, XDG_CONFIG_HOME: scratch, GIT_CONFIG_NOSYSTEM: '1', GIT_CONFIG_GLOBAL: '/dev/null'}
    execFileSync('git', ['init', '-q', '.'], {cwd: workspace, env})
    const pool = new SearchWorkerPool({size: 2})
    try {
      for (let seed = 1; seed <= 300; seed++) {
        const random = generator(seed)
        const lines = (count: number) => Array.from({length: count}, () => randomLine(random)).join('\n')
        const files = {'.gitignore': lines(4), 'x/.gitignore': lines(2), 'a/b/.gitignore': lines(1)}
        for (const [name, text] of Object.entries(files)) await writeFile(path.join(workspace, name), `${text}\n`)
        const git = execFileSync('git', ['ls-files', '--others', '--exclude-standard', '-z'], {cwd: workspace, env})
          .toString()
          .split('\0')
          .filter(Boolean)
          .sort()
        const ours = (await walkedFiles(workspace, {pool})).files
        expect(ours.sort(), `seed ${seed}: ${JSON.stringify(files)}`).to.deep.equal(git)
      }
    } finally {
      await pool.close()
    }
  })
})
