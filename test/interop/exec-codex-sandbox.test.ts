import {expect} from 'chai'
import {Client} from '@modelcontextprotocol/sdk/client/index.js'
import {StdioClientTransport} from '@modelcontextprotocol/sdk/client/stdio.js'
import {existsSync} from 'node:fs'
import {mkdir, mkdtemp, realpath, rm} from 'node:fs/promises'
import {tmpdir} from 'node:os'
import path from 'node:path'
import {pathToFileURL} from 'node:url'

import {CODEX_SANDBOX_STATE_META} from '../../src/exec/terminal/codex-sandbox-state.js'
import {checkSandbox} from '../../src/exec/terminal/sandbox.js'
import {REPO_ROOT, RUN_JS} from '../helpers/clients.js'

/** Where bubblewrap can run here; the tests need it and are skipped, saying why, where it cannot. */
const SANDBOX = await checkSandbox({mode: 'workspace-write', network: false}, {workspace: tmpdir()})
const SKIP_REASON = SANDBOX.ok ? '' : ` (skipped: ${SANDBOX.reason}; ${SANDBOX.fix})`

/** A folder outside the workspace and outside /tmp (which the sandbox hides), where writes must fail. */
const OUTSIDE_ROOT = '/var/tmp'

describe(`exec_command follows Codex's sandbox (_meta["${CODEX_SANDBOX_STATE_META}"])${SKIP_REASON}`, function () {
  this.timeout(120_000)
  let workspace: string
  let outside: string
  let client: Client
  let stderr = ''

  /** Codex's sandbox state for a call, in the shape Codex 0.171 sends: a permission profile, rooted at `cwd`. */
  const codexMeta = (permissionProfile: Record<string, unknown>, cwd = workspace) => ({
    [CODEX_SANDBOX_STATE_META]: {permissionProfile, sandboxCwd: pathToFileURL(cwd).href, codexLinuxSandboxExe: null, useLegacyLandlock: false, useMxc: false},
  })
  const special = (kind: string, access: string) => ({path: {type: 'special', value: {kind}}, access})
  const at = (where: string, access: string) => ({path: {type: 'path', path: where}, access, ...(access === 'read' ? {missing_path_behavior: 'skip'} : {})})
  const managed = (...entries: unknown[]) => ({type: 'managed', file_system: {type: 'restricted', entries: [special('root', 'read'), ...entries]}, network: 'restricted'})

  async function run(cmd: string, meta?: Record<string, unknown>) {
    const result = await client.callTool({name: 'exec_command', arguments: {cmd}, ...(meta ? {_meta: meta} : {})})
    const text = (result.content as Array<{type: string; text?: string}>).map((block) => block.text ?? '').join('')
    return {isError: result.isError === true, text, structured: result.structuredContent as {exit_code: number | 'running'}}
  }

  before(async function () {
    if (!SANDBOX.ok) this.skip()
    workspace = await realpath(await mkdtemp(path.join(tmpdir(), 'ak-codex-sandbox-ws-')))
    outside = await realpath(await mkdtemp(path.join(OUTSIDE_ROOT, 'ak-codex-sandbox-out-')))
    await mkdir(path.join(workspace, 'out'))
    // The server runs unsandboxed (--sandbox off, the default): only Codex's metadata confines its commands.
    const transport = new StdioClientTransport({
      command: process.execPath,
      args: [RUN_JS, 'exec', 'serve', '--workspace', workspace, '--level', 'terminal'],
      cwd: REPO_ROOT,
      env: {...(process.env as Record<string, string>), SHELL: '/bin/bash'},
      stderr: 'pipe',
    })
    transport.stderr?.on('data', (chunk: Buffer) => (stderr += chunk.toString()))
    client = new Client({name: 'codex-mcp-client', version: '0.171.0'})
    await client.connect(transport)
  })

  after(async () => {
    await client?.close()
    for (const folder of [workspace, outside]) if (folder) await rm(folder, {recursive: true, force: true})
  })

  it('declares the experimental capability Codex sends its sandbox state to', () => {
    expect(client.getServerCapabilities()?.experimental).to.have.property(CODEX_SANDBOX_STATE_META)
  })

  it('read-only: a write inside the workspace fails', async () => {
    const answer = await run('echo x > inside-ro.txt; echo "code=$?"', codexMeta(managed()))
    expect(answer.isError, answer.text).to.equal(false)
    expect(answer.text).to.match(/Read-only file system/)
    expect(existsSync(path.join(workspace, 'inside-ro.txt')), stderr).to.equal(false)
  })

  it('workspace-write: a write outside the workspace fails, one inside works', async () => {
    const meta = codexMeta(managed(at(workspace, 'write'), at(outside, 'write'), special('slash_tmp', 'write')))
    const target = path.join(outside, 'escaped.txt')
    const answer = await run(`echo x > ${target}; echo x > inside-ww.txt`, meta)
    expect(answer.isError, answer.text).to.equal(false)
    expect(answer.text).to.match(/Read-only file system/)
    expect(existsSync(target), 'a writable root outside the workspace must stay read-only').to.equal(false)
    expect(existsSync(path.join(workspace, 'inside-ww.txt'))).to.equal(true)
  })

  it('workspace-write: the paths Codex keeps read-only stay so', async () => {
    await mkdir(path.join(workspace, '.aws'), {recursive: true})
    const meta = codexMeta(managed(at(workspace, 'write'), at(path.join(workspace, '.aws'), 'read'), at(path.join(workspace, '.agents'), 'read')))
    const answer = await run('echo x > .aws/credentials; echo x > kept.txt', meta)
    expect(answer.isError, answer.text).to.equal(false)
    expect(answer.text).to.match(/Read-only file system/)
    expect(existsSync(path.join(workspace, '.aws', 'credentials'))).to.equal(false)
    expect(existsSync(path.join(workspace, 'kept.txt'))).to.equal(true)
  })

  it('workspace-write with its only writable root in a subfolder writes only there', async () => {
    const meta = codexMeta(managed(special('current_working_directory', 'write')), path.join(workspace, 'out'))
    const answer = await run('echo x > out/ok.txt; echo x > top.txt', meta)
    expect(answer.isError, answer.text).to.equal(false)
    expect(existsSync(path.join(workspace, 'out', 'ok.txt'))).to.equal(true)
    expect(existsSync(path.join(workspace, 'top.txt'))).to.equal(false)
  })

  it('no sandbox from Codex (disabled) runs as the server flags say', async () => {
    const answer = await run('echo x > free-disabled.txt', codexMeta({type: 'disabled'}))
    expect(answer.isError, answer.text).to.equal(false)
    expect(existsSync(path.join(workspace, 'free-disabled.txt'))).to.equal(true)
  })

  it('the older sandboxPolicy form is read too', async () => {
    const answer = await run('echo x > legacy-ro.txt', {[CODEX_SANDBOX_STATE_META]: {sandboxPolicy: {type: 'read-only'}, sandboxCwd: workspace}})
    expect(answer.isError, answer.text).to.equal(false)
    expect(existsSync(path.join(workspace, 'legacy-ro.txt'))).to.equal(false)
  })

  it('without the metadata the server flags apply (here: no sandbox)', async () => {
    const answer = await run('echo x > free.txt')
    expect(answer.isError, answer.text).to.equal(false)
    expect(existsSync(path.join(workspace, 'free.txt'))).to.equal(true)
  })

  it('refuses a command whose Codex sandbox state it does not understand', async () => {
    const answer = await run('echo x > future.txt', codexMeta({type: 'future-mode'}))
    expect(answer.isError).to.equal(true)
    expect(answer.text).to.match(/permissionProfile\.type "future-mode" is not one ak knows.*not run\. Update ak/)
    expect(existsSync(path.join(workspace, 'future.txt'))).to.equal(false)
  })
})
