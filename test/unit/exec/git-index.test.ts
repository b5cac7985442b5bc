import {expect} from 'chai'
import {execFileSync} from 'node:child_process'
import {mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync} from 'node:fs'
import {tmpdir} from 'node:os'
import path from 'node:path'

import {gitlinksOf} from '../../../src/exec/git-index.js'

const GIT_ENV = {
  ...process.env,
  GIT_CONFIG_NOSYSTEM: '1',
  GIT_CONFIG_GLOBAL: '/dev/null',
  GIT_AUTHOR_NAME: 'a',
  GIT_AUTHOR_EMAIL: 'a@example.com',
  GIT_COMMITTER_NAME: 'a',
  GIT_COMMITTER_EMAIL: 'a@example.com',
}

describe('the nested repositories a git index holds (gitlinksOf)', () => {
  let folder: string
  before(() => {
    folder = mkdtempSync(path.join(tmpdir(), 'ak-git-index-'))
  })
  after(() => rmSync(folder, {recursive: true, force: true}))

  /** A repository with files and the nested repositories `links`, its index in `version`. */
  const indexOf = (name: string, version: number, format: 'sha1' | 'sha256') => {
    const repo = path.join(folder, name)
    const git = (...args: string[]) => execFileSync('git', args, {cwd: repo, env: GIT_ENV, stdio: 'pipe'})
    mkdirSync(repo)
    git('init', '-q', `--object-format=${format}`)
    for (const file of ['a.txt', 'src/deep/b.txt', 'src/deep/c.txt']) {
      mkdirSync(path.dirname(path.join(repo, file)), {recursive: true})
      writeFileSync(path.join(repo, file), file)
    }
    for (const link of ['node_modules/x', 'src/deep/nested-repository-with-a-long-name']) {
      mkdirSync(path.join(repo, link), {recursive: true})
      execFileSync('git', ['init', '-q', `--object-format=${format}`], {cwd: path.join(repo, link), env: GIT_ENV})
      execFileSync('git', ['commit', '-q', '--allow-empty', '-m', 'x'], {cwd: path.join(repo, link), env: GIT_ENV})
    }
    git('add', '-f', '.')
    // An intent-to-add entry sets the extended flags (version 3 and later).
    if (version >= 3) {
      writeFileSync(path.join(repo, 'later.txt'), 'x')
      git('add', '-N', 'later.txt')
    }
    git('update-index', '--index-version', String(version))
    return readFileSync(path.join(repo, '.git', 'index'))
  }

  for (const version of [3, 4]) {
    for (const format of ['sha1', 'sha256'] as const) {
      it(`reads the gitlinks of a version ${version} index of a ${format} repository`, () => {
        const index = indexOf(`v${version}-${format}`, version, format)
        const links = gitlinksOf(index, format === 'sha1' ? 20 : 32).map(String)
        expect(links).to.deep.equal(['node_modules/x', 'src/deep/nested-repository-with-a-long-name'])
      })
    }
  }

  it('reads a version 2 index, and nothing of what is not an index', () => {
    const index = indexOf('v2', 2, 'sha1')
    expect(index.readUInt32BE(4)).to.equal(2)
    expect(gitlinksOf(index, 20).map(String)).to.deep.equal(['node_modules/x', 'src/deep/nested-repository-with-a-long-name'])
    expect(gitlinksOf(Buffer.from('not an index at all'), 20)).to.deep.equal([])
    expect(gitlinksOf(index.subarray(0, 100), 20)).to.deep.equal([])
  })
})
