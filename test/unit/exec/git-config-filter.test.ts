import {expect} from 'chai'
import {execFileSync} from 'node:child_process'
import {mkdtempSync, readFileSync, rmSync, writeFileSync} from 'node:fs'
import {tmpdir} from 'node:os'
import path from 'node:path'

import {filterGitConfig} from '../../../src/exec/git-config-filter.js'
import {NEW_REPOSITORY_CONFIG_KEYS} from '../../../src/exec/protected-paths.js'

const GIT_ENV = {...process.env, GIT_CONFIG_NOSYSTEM: '1', GIT_CONFIG_GLOBAL: '/dev/null'}

/** The keys git itself reads from the config text `text` (`git config --file … --list`), as `name=value` lines. */
function gitReads(folder: string, text: string): string[] {
  const file = path.join(folder, 'config')
  writeFileSync(file, text)
  return execFileSync('git', ['config', '--file', file, '--list'], {env: GIT_ENV, encoding: 'utf8'}).split('\n').filter(Boolean)
}

function isAllowedKey(line: string): boolean {
  const name = line.slice(0, line.indexOf('=') < 0 ? undefined : line.indexOf('='))
  const parts = name.split('.')
  const section = parts[0]!.toLowerCase()
  const key = parts.at(-1)!.toLowerCase()
  return NEW_REPOSITORY_CONFIG_KEYS.some((pattern) => {
    const wanted = pattern.split('.')
    return wanted.length === 2 ? parts.length === 2 && wanted[0] === section && wanted[1] === key : parts.length > 2 && wanted[0] === section && wanted[2] === key
  })
}

describe('the config kept of a repository a sandboxed command made (filterGitConfig)', () => {
  let folder: string
  before(() => {
    folder = mkdtempSync(path.join(tmpdir(), 'ak-config-filter-'))
  })
  after(() => rmSync(folder, {recursive: true, force: true}))

  it('leaves what git init and git clone write untouched', () => {
    for (const args of [['init', '-q', 'a'], ['init', '-q', '--bare', 'b'], ['clone', '-q', 'a', 'c'], ['init', '-q', '--object-format=sha256', 'd']]) {
      execFileSync('git', args, {cwd: folder, env: GIT_ENV, stdio: 'ignore'})
    }
    execFileSync('git', ['-C', 'c', 'config', 'user.email', 'a@example.com'], {cwd: folder, env: GIT_ENV})
    for (const config of ['a/.git/config', 'b/config', 'c/.git/config', 'd/.git/config']) {
      const text = readFileSync(path.join(folder, config), 'utf8')
      expect(filterGitConfig(text, NEW_REPOSITORY_CONFIG_KEYS), config).to.deep.equal({isUnchanged: true, text, dropped: [], unreadLines: 0})
    }
  })

  it('drops every key that runs a program or reads another file, and keeps the rest as git reads it', () => {
    const text = [
      '[core]',
      '\trepositoryformatversion = 0',
      '\tfsmonitor = "touch /tmp/x; false"',
      '\tbare = false',
      '[core] hooksPath = .githooks',
      '[remote "origin"]',
      '\turl = "https://example.com/a b.git" ; a comment',
      '\tuploadpack = touch /tmp/x',
      '[alias]',
      '\tst = !touch /tmp/x',
      '[include]',
      '\tpath = ../evil',
      '[branch.main]',
      '\tremote = origin',
    ].join('\n')
    const filtered = filterGitConfig(text, NEW_REPOSITORY_CONFIG_KEYS)
    expect(filtered.isUnchanged).to.equal(false)
    expect(filtered.dropped).to.deep.equal(['core.fsmonitor', 'core.hookspath', 'remote.origin.uploadpack', 'alias.st', 'include.path'])
    expect(gitReads(folder, filtered.text)).to.deep.equal([
      'core.repositoryformatversion=0',
      'core.bare=false',
      'remote.origin.url=https://example.com/a b.git',
      'branch.main.remote=origin',
    ])
  })

  it('writes nothing git reads as another key, whatever the input holds', () => {
    const tricky = [
      '[core]\n\turl = a\\\n\tfsmonitor = evil\n',
      '[core]\n\tbare = "false\n[alias]\n\tx = !evil"\n',
      '[remote "a\\"b"]\n\turl = x\n\tfetch = "+refs/*:refs/*\\n[core]\\n\\tfsmonitor = evil"\n',
      '[user]\n\tname = "a\\tb"\n\temail = "e\u0001"\n',
      '\uFEFF[core]\r\n\tbare = true\r\n\tpager = evil\r\n',
      '[remote "x"] url = y\n[ core ]\n\tfsmonitor = evil\n',
      '[includeIf "gitdir:/"]\n\tpath = /etc/evil\n[core]\n\tsshCommand = evil\n',
      'fsmonitor = evil\n[core]\n',
    ]
    for (const text of tricky) {
      const filtered = filterGitConfig(text, NEW_REPOSITORY_CONFIG_KEYS)
      const read = gitReads(folder, filtered.text)
      expect(read.filter((line) => !isAllowedKey(line)), JSON.stringify(text)).to.deep.equal([])
      expect(read.join('\n'), JSON.stringify(text)).to.not.match(/evil|fsmonitor/)
    }
  })
})
