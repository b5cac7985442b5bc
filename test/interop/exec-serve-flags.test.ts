import {expect} from 'chai'
import {spawnSync} from 'node:child_process'
import {mkdir, mkdtemp, rm} from 'node:fs/promises'
import {tmpdir} from 'node:os'
import path from 'node:path'

import {RUN_JS} from '../helpers/clients.js'

describe('ak exec serve and the shared flags', () => {
  let workspace: string

  before(async () => {
    workspace = await mkdtemp(path.join(tmpdir(), 'ak-serve-flags-'))
  })

  after(async () => {
    await rm(workspace, {recursive: true, force: true})
  })

  it('says on stderr that --json, --yes and --no-interactive do not change serve, and keeps stdout for MCP', () => {
    const run = spawnSync(process.execPath, [RUN_JS, 'exec', 'serve', '-w', workspace, '--json', '--yes', '--no-interactive'], {
      input: '',
      encoding: 'utf8',
    })
    expect(run.status).to.equal(0)
    expect(run.stdout).to.equal('')
    expect(run.stderr).to.contain('ak: note: --json, --yes, --no-interactive do not change ak exec serve')
  })

  it('adds no note when none of them is given', () => {
    const run = spawnSync(process.execPath, [RUN_JS, 'exec', 'serve', '-w', workspace, '--quiet'], {input: '', encoding: 'utf8'})
    expect(run.status).to.equal(0)
    expect(run.stderr).to.equal('')
  })

  it('refuses an empty --workspace with exit 2 instead of serving the current folder', () => {
    for (const args of [['--workspace', ''], ['--workspace='], ['-w', '']]) {
      const run = spawnSync(process.execPath, [RUN_JS, 'exec', 'serve', ...args], {input: '', encoding: 'utf8', cwd: workspace})
      expect(run.status, args.join(' ')).to.equal(2)
      expect(run.stdout).to.equal('')
      expect(run.stderr).to.contain('The workspace path is empty')
    }
  })

  it('escapes a workspace name with a line break in its "serving" line, and explains "~"', async () => {
    const odd = path.join(workspace, 'two\nlines')
    await mkdir(odd)
    const run = spawnSync(process.execPath, [RUN_JS, 'exec', 'serve', '-w', odd], {input: '', encoding: 'utf8'})
    expect(run.status).to.equal(0)
    expect(run.stderr.split('\n')[0]).to.equal(`ak exec: serving ${workspace}/two\\nlines at level read over stdio`)
    const tilde = spawnSync(process.execPath, [RUN_JS, 'exec', 'serve', '-w', '~'], {input: '', encoding: 'utf8'})
    expect(tilde.status).to.equal(2)
    expect(tilde.stderr).to.contain('ak does not expand "~"')
  })
})
