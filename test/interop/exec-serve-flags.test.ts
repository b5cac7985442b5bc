import {expect} from 'chai'
import {spawnSync} from 'node:child_process'
import {mkdir, mkdtemp, rm} from 'node:fs/promises'
import {tmpdir} from 'node:os'
import path from 'node:path'

import {STANDALONE_SERVER} from '../helpers/bundle.js'
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
    expect(run.stderr, 'stdin is a pipe, as from a client').to.not.contain('waiting for an MCP client')
    const tilde = spawnSync(process.execPath, [RUN_JS, 'exec', 'serve', '-w', '~'], {input: '', encoding: 'utf8'})
    expect(tilde.status).to.equal(2)
    expect(tilde.stderr).to.contain('ak does not expand "~"')
  })

  it('tells someone who started it in a terminal that it waits for an MCP client, and ends on Ctrl-D', function () {
    // A terminal for the server's stdin, from Python's pty module (no native Node.js addon needed).
    const script = [
      'import os, pty, sys, time',
      'pid, fd = pty.fork()',
      'if pid == 0:',
      '    os.execv(sys.argv[1], sys.argv[1:])',
      'out = b""',
      'end = time.time() + 30',
      'while b"Ctrl-D" not in out and time.time() < end:',
      '    out += os.read(fd, 4096)',
      'os.write(fd, b"\\x04")',
      'status = os.waitpid(pid, 0)[1]',
      'sys.stdout.write(out.decode() + "\\nEXIT %d" % os.waitstatus_to_exitcode(status))',
    ].join('\n')
    const run = spawnSync('python3', ['-c', script, process.execPath, RUN_JS, 'exec', 'serve', '-w', workspace], {encoding: 'utf8', timeout: 60_000})
    if (run.error) this.skip() // no python3 here
    expect(run.stdout).to.contain('waiting for an MCP client on stdin').and.contain('Ctrl-C or Ctrl-D ends it')
    expect(run.stdout).to.match(/EXIT 0$/)
  })
})

describe('a flag given twice', () => {
  for (const [entry, args, flag] of [
    ['ak exec serve', [RUN_JS, 'exec', 'serve', '--level', 'read', '--level', 'terminal'], '--level'],
    ['ak exec serve', [RUN_JS, 'exec', 'serve', '-w', '.', '--workspace', '/'], '--workspace'],
    ['ak exec serve', [RUN_JS, 'exec', 'serve', '--sandbox-network', '--sandbox-network', '--sandbox', 'read-only'], '--sandbox-network'],
    ['agentexec', [STANDALONE_SERVER, '--level', 'read', '-l', 'terminal'], '--level'],
    ['ak exec config', [RUN_JS, 'exec', 'config', '--client', 'codex', '--quiet', '-q'], '--quiet'],
    ['ak exec tools', [RUN_JS, 'exec', 'tools', '--json', '--json'], '--json'],
    ['ak doctor', [RUN_JS, 'doctor', '--json', '--json'], '--json'],
  ] as const) {
    it(`is refused by ${entry} with exit 2 naming ${flag}, before anything is served: ${args.slice(1).join(' ')}`, () => {
      const run = spawnSync(process.execPath, [...args], {input: '', encoding: 'utf8'})
      expect(run.status, run.stderr).to.equal(2)
      expect(run.stdout).to.equal('')
      expect(run.stderr).to.contain(`Flag ${flag} can only be given once`)
      expect(run.stderr).to.not.contain('serving')
    })
  }
})
