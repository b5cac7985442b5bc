import {expect} from 'chai'
import {Client} from '@modelcontextprotocol/client'
import {InMemoryTransport} from '@modelcontextprotocol/server'
import {mkdtemp, rm} from 'node:fs/promises'
import {tmpdir} from 'node:os'
import path from 'node:path'

import {BadInputError} from '../../../../src/errors.js'
import {createExecConnection, createExecRuntime} from '../../../../src/exec/runtime.js'
import {createExecServer} from '../../../../src/exec/serving/server.js'
import {describeSandbox, parseSandboxPolicy} from '../../../../src/exec/terminal/sandbox-policy.js'
import {
  MIN_BWRAP_VERSION,
  SECCOMP_FD,
  bwrapArguments,
  checkSandbox,
  isBwrapRecentEnough,
  openSandbox,
  parseBwrapVersion,
  withSeccompPipe,
} from '../../../../src/exec/terminal/sandbox.js'
import {Workspace} from '../../../../src/exec/workspace.js'

describe('sandbox settings', () => {
  it('defaults to off, with the network only when asked for inside a sandbox', () => {
    expect(parseSandboxPolicy({})).to.deep.equal({mode: 'off', network: true})
    expect(parseSandboxPolicy({sandbox: 'workspace-write'})).to.deep.equal({mode: 'workspace-write', network: false})
    expect(parseSandboxPolicy({sandbox: 'read-only', sandboxNetwork: true})).to.deep.equal({mode: 'read-only', network: true})
  })

  it('refuses an unknown mode naming the valid ones, and network access without a sandbox', () => {
    expect(() => parseSandboxPolicy({sandbox: 'danger-full-access'})).to.throw(BadInputError, 'off, workspace-write, read-only')
    expect(() => parseSandboxPolicy({sandboxNetwork: true})).to.throw(BadInputError, 'only applies inside a sandbox')
  })

  it('lays out workspace-write: read-only root, own /dev and /proc, private /tmp, the workspace writable, no network', () => {
    const args = bwrapArguments({mode: 'workspace-write', network: false}, {workspace: '/tmp/ws', readOnlyPaths: ['/tmp/snap']})
    expect(args).to.deep.equal([
      '--die-with-parent', '--unshare-user', '--disable-userns', '--cap-drop', 'ALL', '--unshare-pid', '--unshare-ipc', '--unshare-net',
      '--ro-bind', '/', '/', '--dev', '/dev', '--proc', '/proc',
      '--ro-bind-try', '/proc/sys', '/proc/sys', '--ro-bind-try', '/proc/sysrq-trigger', '/proc/sysrq-trigger',
      '--ro-bind-try', '/proc/fs', '/proc/fs', '--tmpfs', '/tmp',
      '--bind', '/tmp/ws', '/tmp/ws', '--ro-bind', '/tmp/snap', '/tmp/snap',
      '--seccomp', String(SECCOMP_FD), '--setenv', 'TMPDIR', '/tmp', '--',
    ])
  })

  it('drops every capability and further user namespaces, and installs the seccomp filter, in every mode', () => {
    for (const policy of [{mode: 'workspace-write', network: true}, {mode: 'read-only', network: false}] as const) {
      const line = bwrapArguments(policy, {workspace: '/srv/ws'}).join(' ')
      expect(line).to.contain('--unshare-user --disable-userns --cap-drop ALL').and.contain(`--seccomp ${SECCOMP_FD}`)
    }
  })

  it('gives bubblewrap a pipe on the seccomp descriptor after the ones the spawn already has', () => {
    expect(withSeccompPipe(['ignore', 'pipe', 'pipe'])).to.deep.equal(['ignore', 'pipe', 'pipe', 'ignore', 'pipe'])
    expect(withSeccompPipe(['pipe', 'pipe', 'pipe', 'pipe'])).to.deep.equal(['pipe', 'pipe', 'pipe', 'pipe', 'pipe'])
  })

  it(`needs bubblewrap ${MIN_BWRAP_VERSION} or later`, () => {
    expect(parseBwrapVersion('bubblewrap 0.8.0\n')).to.deep.equal([0, 8, 0])
    expect(parseBwrapVersion('bubblewrap 0.0')).to.equal(undefined)
    for (const old of ['0.4.1', '0.6.1', '0.7.0']) expect(isBwrapRecentEnough(parseBwrapVersion(old)!), old).to.equal(false)
    for (const recent of ['0.8.0', '0.8.1', '0.11.0', '1.0.0']) expect(isBwrapRecentEnough(parseBwrapVersion(recent)!), recent).to.equal(true)
  })

  it('quotes the bubblewrap version needed in the docs, the README and the flag\'s help from the same constant', async () => {
    const {readFile} = await import('node:fs/promises')
    const {REPO_ROOT} = await import('../../../helpers/clients.js')
    const {SANDBOX_FLAG_HELP} = await import('../../../../src/exec/terminal/sandbox-policy.js')
    for (const file of ['docs/terminal.md', 'README.md']) {
      expect(await readFile(path.join(REPO_ROOT, file), 'utf8'), file).to.contain(`bubblewrap ${MIN_BWRAP_VERSION} or later`)
    }
    expect(SANDBOX_FLAG_HELP).to.contain(`bubblewrap ${MIN_BWRAP_VERSION} or later`)
  })

  it('refuses a machine whose system call numbers the seccomp filter does not know', async () => {
    const check = await checkSandbox({mode: 'workspace-write', network: false}, {workspace: tmpdir(), platform: 'linux', arch: 'riscv64'})
    expect(check.ok === false && check.reason).to.equal('the sandbox\'s system call filter knows x64 and arm64 only; this machine is riscv64')
  })

  it('lays out read-only: the workspace bound read-only and /tmp remounted read-only, network kept when allowed', () => {
    const args = bwrapArguments({mode: 'read-only', network: true}, {workspace: '/srv/ws'})
    expect(args).to.not.include('--unshare-net').and.not.include('--bind')
    expect(args.join(' ')).to.contain('--tmpfs /tmp --ro-bind /srv/ws /srv/ws --remount-ro /tmp')
  })

  it('says the sandbox is Linux-only elsewhere, and how to install bubblewrap when it is missing', async () => {
    const policy = {mode: 'workspace-write', network: false} as const
    const mac = await checkSandbox(policy, {workspace: tmpdir(), platform: 'darwin'})
    expect(mac).to.include({ok: false})
    expect(mac.ok === false && mac.reason).to.contain('Linux-only')
    const missing = await checkSandbox(policy, {workspace: tmpdir(), env: {PATH: '/nonexistent'}, platform: 'linux'})
    expect(missing.ok === false && missing.fix).to.contain('apt-get install bubblewrap')
    const error = await openSandbox(policy, {workspace: tmpdir(), level: 'terminal', env: {PATH: '/nonexistent'}}).catch((caught: Error) => caught)
    expect(error).to.be.instanceOf(BadInputError)
    expect((error as Error).message).to.match(/^The sandbox workspace-write cannot run: bubblewrap \(bwrap\) is not on PATH\. Install bubblewrap/)
  })

  it('opens no sandbox below the terminal level, saying it has no effect', async () => {
    const lines: string[] = []
    const sandbox = await openSandbox({mode: 'read-only', network: false}, {workspace: tmpdir(), level: 'files', log: {info() {}, warn: (line) => lines.push(line)}})
    expect(sandbox.mode).to.equal('off')
    expect(lines).to.deep.equal(['the sandbox (read-only) has no effect at level files: only the terminal level runs commands'])
  })

  it('names the mode in force in the server instructions and in exec_command\'s description', async () => {
    const folder = await mkdtemp(path.join(tmpdir(), 'ak-sandbox-instructions-'))
    try {
      for (const sandbox of [{mode: 'off', network: true}, {mode: 'read-only', network: false, bwrap: '/usr/bin/bwrap'}] as const) {
        const runtime = createExecRuntime({workspace: await Workspace.open(folder), level: 'terminal', sandbox})
        const server = createExecServer(runtime, createExecConnection())
        const [clientSide, serverSide] = InMemoryTransport.createLinkedPair()
        await server.connect(serverSide)
        const client = new Client({name: 'test', version: '1'})
        await client.connect(clientSide)
        const description = (await client.listTools()).tools.find((tool) => tool.name === 'exec_command')?.description
        expect(client.getInstructions()).to.contain(describeSandbox(sandbox))
        expect(description).to.contain(describeSandbox(sandbox))
        await client.close()
        await runtime.close()
      }
    } finally {
      await rm(folder, {recursive: true, force: true})
    }
  })
})

describe('sandbox options without oclif', () => {
  it('parses --sandbox and --sandbox-network with node:util parseArgs into the shared settings', async () => {
    const {parseArgs} = await import('node:util')
    const {SANDBOX_PARSE_ARGS_OPTIONS} = await import('../../../../src/exec/terminal/sandbox-policy.js')
    const {values} = parseArgs({args: ['--sandbox', 'read-only', '--sandbox-network'], options: SANDBOX_PARSE_ARGS_OPTIONS})
    expect(parseSandboxPolicy({sandbox: values.sandbox, sandboxNetwork: values['sandbox-network']})).to.deep.equal({mode: 'read-only', network: true})
  })
})
