import {expect} from 'chai'
import {execFileSync, spawn, spawnSync} from 'node:child_process'
import {cpSync, existsSync, mkdirSync, mkdtempSync, readFileSync} from 'node:fs'
import {loadavg, tmpdir} from 'node:os'
import path from 'node:path'

import {REPO_ROOT} from '../helpers/clients.js'

/** The shell block under a README heading, as a reader would copy it. */
function readmeBlock(heading: string): string {
  const readme = readFileSync(path.join(REPO_ROOT, 'README.md'), 'utf8')
  const section = readme.slice(readme.indexOf(`\n${heading}\n`))
  const block = /```sh\n([\s\S]*?)```/.exec(section)
  if (!block?.[1]) throw new Error(`README.md has no sh block under "${heading}"`)
  return block[1]
}

/** PATH without this clone's node_modules folders: the machine's own tools, as a new user has them. */
function machinePath(): string {
  return (process.env.PATH ?? '')
    .split(path.delimiter)
    .filter((dir) => dir && !dir.includes('node_modules'))
    .join(path.delimiter)
}

/** The environment of a new user: no npm script variables, the machine's PATH, a home of its own. */
function newUserEnv(home: string, pathValue: string): NodeJS.ProcessEnv {
  const env = Object.fromEntries(Object.entries(process.env).filter(([name]) => !/^npm_/i.test(name)))
  // The npm cache stays where it is, so the install reuses what is already downloaded.
  return {...env, HOME: home, PATH: pathValue, npm_config_cache: path.join(process.env.HOME ?? home, '.npm'), npm_config_audit: 'false', npm_config_fund: 'false'}
}

describe('a fresh clone', function () {
  // npm ci unpacks a few hundred packages, and the first ak run builds dist/: minutes on a busy machine.
  this.timeout(15 * 60_000)
  let scratch: string
  let clone: string
  let home: string

  before(() => {
    scratch = mkdtempSync(path.join(tmpdir(), 'ak-fresh-clone-'))
    clone = path.join(scratch, 'ak')
    home = path.join(scratch, 'home')
    mkdirSync(home)
    // The files a clone of this tree would hold: tracked and new files, as they are now.
    const files = execFileSync('git', ['ls-files', '-z', '--cached', '--others', '--exclude-standard'], {cwd: REPO_ROOT, encoding: 'utf8'})
    for (const file of files.split('\0')) {
      if (file && existsSync(path.join(REPO_ROOT, file))) cpSync(path.join(REPO_ROOT, file), path.join(clone, file), {recursive: true})
    }
  })

  // Removing several hundred MB of node_modules can take a minute on a slow disk: it runs on after the test.
  after(() => spawn('rm', ['-rf', scratch], {detached: true, stdio: 'ignore'}).unref())

  it("installs with npm ci and runs `ak --version` on Node.js 22 through the README's PATH set-up", () => {
    const started = Date.now()
    const install = spawnSync('npm', ['ci'], {cwd: clone, env: newUserEnv(home, machinePath()), encoding: 'utf8'})
    // For the README's figure (no assertion: machines differ).
    console.log(`      (npm ci took ${Math.round((Date.now() - started) / 1000)} s; load average ${loadavg()[0]!.toFixed(1)})`)
    expect(install.status, install.stderr).to.equal(0)
    expect(install.stderr).not.to.match(/npm (error|ERR!)/)
    // No install script of ak's own: npm has nothing to flag, and dist/ is not built yet.
    expect(install.stdout + install.stderr).not.to.match(/allowScripts|install-scripts/)
    expect(existsSync(path.join(clone, 'dist'))).to.equal(false)

    const setUp = spawnSync('bash', ['-euc', readmeBlock('### Put `ak` on PATH')], {cwd: clone, env: newUserEnv(home, machinePath()), encoding: 'utf8'})
    expect(setUp.status, setUp.stderr).to.equal(0)

    const pathValue = [path.join(home, '.local', 'bin'), machinePath()].join(path.delimiter)
    // The first run builds dist/, saying so in one line on stderr; the next has nothing to add.
    for (const stderr of [/^ak: building dist\/ .*\n$/, /^$/]) {
      const version = spawnSync('bash', ['-c', 'cd / && ak --version'], {env: newUserEnv(home, pathValue), encoding: 'utf8'})
      expect(version.stderr).to.match(stderr)
      expect(version.status).to.equal(0)
      expect(version.stdout).to.match(/^@agentorg\/ak\/\S+ \S+ node-v(2[2-9]|[3-9]\d)\./)
    }

    // The README's first command (npm ci already ran) serves a folder on the machine's Node.js.
    const folder = path.join(scratch, 'served')
    mkdirSync(folder)
    const serve = readmeBlock('## Quick start').trim().replace(/^npm ci && /, '').replace('/path/to/folder', folder)
    const initialize = {jsonrpc: '2.0', id: 1, method: 'initialize', params: {protocolVersion: '2025-06-18', capabilities: {}, clientInfo: {name: 'readme', version: '1'}}}
    const served = spawnSync('bash', ['-c', serve], {cwd: clone, env: newUserEnv(home, machinePath()), input: `${JSON.stringify(initialize)}\n`, encoding: 'utf8'})
    expect(served.status, served.stderr).to.equal(0)
    expect(JSON.parse(served.stdout.split('\n')[0]!)).to.nested.include({'result.serverInfo.name': 'ak-exec'})
    expect(served.stderr).to.contain(`serving ${folder} at level files over stdio`)
  })
})
