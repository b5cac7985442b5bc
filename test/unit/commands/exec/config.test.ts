import {runCommand} from '@oclif/test'
import {expect} from 'chai'
import {mkdtemp, realpath, rm} from 'node:fs/promises'
import {tmpdir} from 'node:os'
import path from 'node:path'
import {parse as parseToml} from 'smol-toml'

import {REPO_ROOT, RUN_JS} from '../../../helpers/clients.js'

describe('ak exec config', () => {
  let workspace: string

  before(async () => {
    workspace = await realpath(await mkdtemp(path.join(tmpdir(), 'ak-config-')))
  })

  after(async () => {
    await rm(workspace, {recursive: true, force: true})
  })

  it('prints only the Codex block on stdout and where to paste it on stderr', async () => {
    const {stdout, stderr} = await runCommand(['exec', 'config', '--client', 'codex', '--workspace', workspace], {root: REPO_ROOT})
    expect(parseToml(stdout)).to.deep.equal({
      mcp_servers: {'ak-exec': {command: process.execPath, args: [RUN_JS, 'exec', 'serve', '--workspace', workspace, '--level', 'read'], required: true, startup_timeout_sec: 120}},
    })
    expect(stderr).to.contain('config.toml')
  })

  it('prints nothing on stderr with --quiet', async () => {
    const {stdout, stderr} = await runCommand(['exec', 'config', '-c', 'claude', '-w', workspace, '-q'], {root: REPO_ROOT})
    expect(JSON.parse(stdout)).to.have.property('mcpServers')
    expect(stderr).to.equal('')
  })

  it('prints one JSON document with the block and its launch line with --json', async () => {
    const {stdout} = await runCommand(['exec', 'config', '-c', 'vscode', '-w', workspace, '--level', 'files', '--json'], {root: REPO_ROOT})
    const document = JSON.parse(stdout)
    expect(document).to.include({client: 'vscode', name: 'ak-exec', format: 'json'})
    expect(document.server.args).to.include('files')
    expect(JSON.parse(document.text).servers['ak-exec'].type).to.equal('stdio')
  })

  for (const [client, key] of [['claude', 'mcpServers'], ['vscode', 'servers']] as const) {
    it(`gives as "server" with --json the very entry the ${client} block holds`, async () => {
      const {stdout} = await runCommand(['exec', 'config', '-c', client, '-w', workspace, '--json'], {root: REPO_ROOT})
      const document = JSON.parse(stdout)
      expect(document.server).to.deep.equal(JSON.parse(document.text)[key]['ak-exec'])
    })
  }

  it('says before the Gemini CLI block to trust the folder, then where to paste it', async () => {
    const {stdout, stderr} = await runCommand(['exec', 'config', '-c', 'gemini', '-w', workspace], {root: REPO_ROOT})
    expect(JSON.parse(stdout).mcpServers['ak-exec']).to.include({trust: true})
    const lines = stderr.trimEnd().split('\n')
    expect(lines.at(-2)).to.contain('does not trust').and.contain(workspace)
    expect(lines.at(-1)).to.match(/^Paste into \.gemini\/settings\.json/)
  })

  it('prints the client\'s own add command with --as-command, and refuses it for a client without one', async () => {
    const {stdout} = await runCommand(['exec', 'config', '-c', 'opencode', '-w', workspace, '--as-command', '-q'], {root: REPO_ROOT})
    expect(stdout.trim()).to.equal(`opencode mcp add ak-exec -- ${process.execPath} ${RUN_JS} exec serve --workspace ${workspace} --level read`)
    const zed = await runCommand(['exec', 'config', '-c', 'zed', '-w', workspace, '--as-command'], {root: REPO_ROOT})
    expect(zed.error?.oclif?.exit).to.equal(2)
    expect(zed.stderr).to.contain('Zed has no command that adds an MCP server')
  })

  it('exits 2 without --client or with an unknown client', async () => {
    expect((await runCommand(['exec', 'config'], {root: REPO_ROOT})).error?.oclif?.exit).to.equal(2)
    expect((await runCommand(['exec', 'config', '--client', 'emacs'], {root: REPO_ROOT})).error?.oclif?.exit).to.equal(2)
  })

  it('exits 2 for a workspace that does not exist', async () => {
    const {error, stderr} = await runCommand(['exec', 'config', '-c', 'codex', '-w', path.join(workspace, 'missing')], {root: REPO_ROOT})
    expect(error?.oclif?.exit).to.equal(2)
    expect(stderr).to.contain('does not exist')
  })
})
