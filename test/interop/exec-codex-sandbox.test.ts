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

  /** Codex's sandbox state for a call whose turn runs in `sandboxPolicy`, rooted at the workspace. */
  const codexMeta = (sandboxPolicy: Record<string, unknown>) => ({
    [CODEX_SANDBOX_STATE_META]: {sandboxPolicy, sandboxCwd: pathToFileURL(workspace).href, useLegacyLandlock: false},
  })

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
    const answer = await run('echo x > inside-ro.txt; echo "code=$?"', codexMeta({type: 'read-only'}))
    expect(answer.isError, answer.text).to.equal(false)
    expect(answer.text).to.match(/Read-only file system/)
    expect(existsSync(path.join(workspace, 'inside-ro.txt')), stderr).to.equal(false)
  })

  it('workspace-write: a write outside the workspace fails, one inside works', async () => {
    const meta = codexMeta({type: 'workspace-write', writable_roots: [outside], network_access: false})
    const target = path.join(outside, 'escaped.txt')
    const answer = await run(`echo x > ${target}; echo x > inside-ww.txt`, meta)
    expect(answer.isError, answer.text).to.equal(false)
    expect(answer.text).to.match(/Read-only file system/)
    expect(existsSync(target), 'a writable root outside the workspace must stay read-only').to.equal(false)
    expect(existsSync(path.join(workspace, 'inside-ww.txt'))).to.equal(true)
  })

  it("workspace-write with sandboxCwd in a subfolder writes only there", async () => {
    const meta = {
      [CODEX_SANDBOX_STATE_META]: {sandboxPolicy: {type: 'workspace-write', network_access: false}, sandboxCwd: path.join(workspace, 'out')},
    }
    const answer = await run('echo x > out/ok.txt; echo x > top.txt', meta)
    expect(answer.isError, answer.text).to.equal(false)
    expect(existsSync(path.join(workspace, 'out', 'ok.txt'))).to.equal(true)
    expect(existsSync(path.join(workspace, 'top.txt'))).to.equal(false)
  })

  it('without the metadata the server flags apply (here: no sandbox)', async () => {
    const answer = await run('echo x > free.txt')
    expect(answer.isError, answer.text).to.equal(false)
    expect(existsSync(path.join(workspace, 'free.txt'))).to.equal(true)
  })

  it('refuses a command whose Codex sandbox state it does not understand', async () => {
    const answer = await run('echo x > future.txt', codexMeta({type: 'future-mode'}))
    expect(answer.isError).to.equal(true)
    expect(answer.text).to.match(/future-mode.*not run/)
    expect(existsSync(path.join(workspace, 'future.txt'))).to.equal(false)
  })
})
