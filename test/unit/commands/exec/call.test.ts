import {runCommand} from '@oclif/test'
import {expect} from 'chai'
import {mkdir, mkdtemp, rm, writeFile} from 'node:fs/promises'
import {tmpdir} from 'node:os'
import path from 'node:path'

import {REPO_ROOT} from '../../../helpers/clients.js'

describe('ak exec call', () => {
  let workspace: string

  before(async () => {
    workspace = await mkdtemp(path.join(tmpdir(), 'ak-call-'))
    await mkdir(path.join(workspace, 'src'))
    await writeFile(path.join(workspace, 'src', 'a.txt'), 'abc')
  })

  after(async () => {
    await rm(workspace, {recursive: true, force: true})
  })

  const call = (args: string[]) => runCommand(['exec', 'call', ...args, '--workspace', workspace], {root: REPO_ROOT})

  it('prints the text of the answer on stdout and logs the call on stderr', async () => {
    const {error, stdout, stderr} = await call(['list', '--arg', 'path=src'])
    expect(error).to.equal(undefined)
    expect(stdout).to.equal('src/ (1 entry)\na.txt  3 bytes\n')
    expect(stderr).to.match(/list "src" \d+ms ok/)
  })

  it('prints the whole MCP result with --json, and nothing on stderr with --quiet', async () => {
    const {stdout, stderr} = await call(['list', '--arg', 'path=src', '--json', '--quiet'])
    expect(JSON.parse(stdout)).to.deep.equal({
      content: [{type: 'text', text: 'src/ (1 entry)\na.txt  3 bytes'}],
      structuredContent: {
        path: 'src',
        entries: [{name: 'a.txt', kind: 'file', size_bytes: 3}],
        total: 1,
        first: 1,
        last: 1,
        more: 0,
        next_offset: null,
      },
    })
    expect(stderr).to.equal('')
  })

  it('exits 1 with the tool error on stderr when the result is an error', async () => {
    const {error, stdout, stderr} = await call(['list', '--arg', 'path=..', '--quiet'])
    expect(error?.oclif?.exit).to.equal(1)
    expect(stdout).to.equal('')
    expect(stderr).to.contain('outside the workspace')
  })

  it('exits 1 and still prints the JSON result of a failed call with --json', async () => {
    const {error, stdout} = await call(['list', '--arg', 'path=missing', '--json', '--quiet'])
    expect(error?.oclif?.exit).to.equal(1)
    expect(JSON.parse(stdout)).to.include({isError: true})
  })

  it('prints a failed call once on stderr: the error, without the call\'s log line', async () => {
    const {error, stdout, stderr} = await call(['list', '--arg', 'path=missing'])
    expect(error?.oclif?.exit).to.equal(1)
    expect(stdout).to.equal('')
    expect(stderr.split('\n').filter((line) => line.includes('missing'))).to.have.length(1)
    expect(stderr).not.to.match(/list "missing" \d+ms/)
  })

  it('passes JSON values through, so a wrongly typed argument is refused by the schema', async () => {
    const {error, stderr} = await call(['list', '--arg', 'path=42', '--quiet'])
    expect(error?.oclif?.exit).to.equal(1)
    expect(stderr).to.contain('path must be a string')
  })

  it('says on stderr that a command still running when the call answered was stopped with it', async function () {
    this.timeout(30_000)
    const {error, stdout, stderr} = await call(['exec_command', '--level', 'terminal', '--arg', 'cmd=sleep${IFS}30', '--arg', 'yield_time_ms=300', '--quiet'])
    expect(error).to.equal(undefined)
    expect(stdout).to.match(/^exit_code: running\n/)
    expect(stderr).to.contain('the command was still running when the call answered, and ak exec call stopped it on exit')
    const done = await call(['exec_command', '--level', 'terminal', '--arg', 'cmd=echo', '--quiet'])
    expect(done.stderr).to.equal('')
  })

  it('exits 2 for a tool the level does not offer', async () => {
    const {error, stderr} = await call(['no_such_tool'])
    expect(error?.oclif?.exit).to.equal(2)
    expect(stderr).to.contain('There is no tool "no_such_tool"')
  })

  it('exits 2 for a malformed --arg', async () => {
    const {error, stderr} = await call(['list', '--arg', 'path'])
    expect(error?.oclif?.exit).to.equal(2)
    expect(stderr).to.contain('key=value')
  })
})
