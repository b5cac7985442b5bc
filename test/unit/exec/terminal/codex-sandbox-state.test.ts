import {expect} from 'chai'

import {mkdtemp, realpath, rm} from 'node:fs/promises'
import {tmpdir} from 'node:os'
import path from 'node:path'

import {BadInputError} from '../../../../src/errors.js'
import {CommandSessions} from '../../../../src/exec/terminal/command-sessions.js'
import {SandboxUnavailableError, bwrapArguments} from '../../../../src/exec/terminal/sandbox.js'
import {
  CODEX_SANDBOX_STATE_META,
  parseCodexSandboxState,
  sandboxForCall,
} from '../../../../src/exec/terminal/codex-sandbox-state.js'

const WS = '/srv/ws'
const meta = (sandboxPolicy: unknown, sandboxCwd: unknown = WS) => ({[CODEX_SANDBOX_STATE_META]: {sandboxPolicy, sandboxCwd}})
const OFF = {mode: 'off', network: true} as const
const WRITE = {mode: 'workspace-write', network: false} as const
const WRITE_NET = {mode: 'workspace-write', network: true} as const

describe('Codex sandbox state (codex/sandbox-state-meta)', () => {
  it('is absent without the metadata: the server flags apply', () => {
    expect(parseCodexSandboxState(undefined)).to.equal(undefined)
    expect(parseCodexSandboxState({other: 1})).to.equal(undefined)
    expect(sandboxForCall(OFF, undefined, WS)).to.deep.equal({mode: 'off', network: true, writableRoots: []})
    expect(sandboxForCall(WRITE, undefined, WS)).to.deep.equal({mode: 'workspace-write', network: false, writableRoots: [WS]})
  })

  it('reads each Codex policy type, sandboxCwd as a path or a file URL', () => {
    expect(parseCodexSandboxState(meta({type: 'read-only'}))).to.deep.equal({mode: 'read-only', network: false, writableRoots: []})
    expect(parseCodexSandboxState(meta({type: 'danger-full-access'}))).to.deep.equal({mode: 'off', network: true, writableRoots: []})
    expect(parseCodexSandboxState(meta({type: 'workspace-write', writable_roots: ['/srv/ws/out'], network_access: true}, 'file:///srv/ws'))).to.deep.equal({
      mode: 'workspace-write',
      network: true,
      writableRoots: [WS, '/srv/ws/out'],
    })
  })

  it('refuses metadata it does not understand rather than run weaker', () => {
    expect(() => parseCodexSandboxState(meta({type: 'future-mode'}))).to.throw(BadInputError, /future-mode.*not run/)
    expect(() => parseCodexSandboxState({[CODEX_SANDBOX_STATE_META]: {sandboxCwd: WS}})).to.throw(BadInputError, /sandboxPolicy is missing/)
    expect(() => parseCodexSandboxState(meta({type: 'workspace-write'}, 'relative'))).to.throw(BadInputError, /sandboxCwd/)
  })

  it('read-only from Codex makes an unsandboxed or workspace-write server read-only', () => {
    const codex = parseCodexSandboxState(meta({type: 'read-only'}))
    expect(sandboxForCall(OFF, codex, WS)).to.deep.equal({mode: 'read-only', network: false, writableRoots: []})
    expect(sandboxForCall(WRITE_NET, codex, WS)).to.deep.equal({mode: 'read-only', network: false, writableRoots: []})
  })

  it('workspace-write from Codex keeps only its writable roots inside the workspace', () => {
    const codex = parseCodexSandboxState(meta({type: 'workspace-write', writable_roots: ['/tmp/x', '/srv/ws/out', '/srv/ws_evil'], network_access: false}, '/srv/ws/sub'))
    expect(sandboxForCall(OFF, codex, WS)).to.deep.equal({mode: 'workspace-write', network: false, writableRoots: ['/srv/ws/out', '/srv/ws/sub']})
  })

  it('a Codex root around the workspace narrows to the workspace; none meeting it means read-only', () => {
    const around = parseCodexSandboxState(meta({type: 'workspace-write', network_access: false}, '/srv'))
    expect(sandboxForCall(OFF, around, WS).writableRoots).to.deep.equal([WS])
    const elsewhere = parseCodexSandboxState(meta({type: 'workspace-write'}, '/home/other'))
    expect(sandboxForCall(OFF, elsewhere, WS).mode).to.equal('read-only')
  })

  it('never widens the server: the stricter mode and network win', () => {
    const full = parseCodexSandboxState(meta({type: 'danger-full-access'}))
    expect(sandboxForCall({mode: 'read-only', network: false}, full, WS)).to.deep.equal({mode: 'read-only', network: false, writableRoots: []})
    expect(sandboxForCall(WRITE, full, WS)).to.deep.equal({mode: 'workspace-write', network: false, writableRoots: [WS]})
    const netWrite = parseCodexSandboxState(meta({type: 'workspace-write', network_access: true}))
    expect(sandboxForCall(WRITE, netWrite, WS).network).to.equal(false)
    expect(sandboxForCall(OFF, netWrite, WS).network).to.equal(true)
  })
})

describe('a command Codex asks to sandbox where bubblewrap cannot run', () => {
  it('is refused with a clear error, never run weaker', async () => {
    const workspace = await realpath(await mkdtemp(path.join(tmpdir(), 'ak-codex-nobwrap-')))
    // No bubblewrap on this PATH: the sandbox Codex asks for cannot be built.
    const sessions = new CommandSessions({workspace, env: {PATH: path.join(workspace, 'no-such-bin'), SHELL: '/bin/sh'}})
    try {
      const codex = parseCodexSandboxState(meta({type: 'read-only'}, workspace))
      let error: unknown
      try {
        await sessions.start('echo x > written.txt', workspace, 'owner', codex)
      } catch (caught) {
        error = caught
      }
      expect(error).to.be.instanceOf(SandboxUnavailableError)
      expect((error as Error).message).to.match(/Codex runs this turn in a read-only sandbox.*was not run.*bubblewrap/)
    } finally {
      await sessions.close()
      await rm(workspace, {recursive: true, force: true})
    }
  })
})

describe('the bubblewrap layout of narrowed writable roots', () => {
  const pairs = (args: string[], flag: string) => args.flatMap((arg, index) => (arg === flag ? [args[index + 1]] : []))

  it('binds the workspace read-only and only the roots inside it writable', () => {
    const args = bwrapArguments(WRITE, {workspace: WS, writableRoots: ['/srv/ws/out']})
    expect(pairs(args, '--bind')).to.deep.equal(['/srv/ws/out'])
    expect(pairs(args, '--ro-bind')).to.include(WS)
  })

  it('binds the whole workspace writable when it is one of the roots', () => {
    const args = bwrapArguments(WRITE, {workspace: WS, writableRoots: [WS]})
    expect(pairs(args, '--bind')).to.deep.equal([WS])
  })
})
