import {expect} from 'chai'

import {mkdir, mkdtemp, realpath, rm, symlink} from 'node:fs/promises'
import {tmpdir} from 'node:os'
import path from 'node:path'

import {BadInputError} from '../../../../src/errors.js'
import {CommandSessions} from '../../../../src/exec/terminal/command-sessions.js'
import {SandboxUnavailableError, bwrapArguments} from '../../../../src/exec/terminal/sandbox.js'
import {
  CODEX_SANDBOX_STATE_META,
  parseCodexSandboxState,
  realCodexRequest,
  sandboxForCall,
} from '../../../../src/exec/terminal/codex-sandbox-state.js'

const WS = '/srv/ws'
const OFF = {mode: 'off', network: true} as const
const WRITE = {mode: 'workspace-write', network: false} as const
const WRITE_NET = {mode: 'workspace-write', network: true} as const

/** Codex 0.171's `_meta` entry, as logged from `codex exec` (only the fields ak reads vary). */
const state = (permissionProfile: unknown, sandboxCwd = `file://${WS}`) => ({
  [CODEX_SANDBOX_STATE_META]: {
    permissionProfile,
    codexLinuxSandboxExe: '/opt/codex/bin/codex',
    sandboxCwd,
    useLegacyLandlock: false,
    useMxc: false,
  },
})
const special = (kind: string, access: string) => ({path: {type: 'special', value: {kind}}, access})
const at = (where: string, access: string, skip = false) => ({path: {type: 'path', path: where}, access, ...(skip ? {missing_path_behavior: 'skip'} : {})})
const managed = (entries: unknown[], network = 'restricted') => ({type: 'managed', file_system: {type: 'restricted', entries}, network})

/** `codex exec -s read-only`, as Codex 0.171 sent it. */
const READ_ONLY = managed([special('root', 'read')])
/** `codex exec -s workspace-write`, as Codex 0.171 sent it. */
const WORKSPACE_WRITE = managed([
  special('root', 'read'),
  at(WS, 'write'),
  special('slash_tmp', 'write'),
  special('tmpdir', 'write'),
  at(`${WS}/.git`, 'read', true),
  at(`${WS}/.agents`, 'read', true),
  at(`${WS}/.codex`, 'read', true),
  at(`${WS}/.aws`, 'read', true),
])
/** `codex exec --dangerously-bypass-approvals-and-sandbox`, as Codex 0.171 sent it. */
const DISABLED = {type: 'disabled'}

describe('Codex sandbox state (codex/sandbox-state-meta)', () => {
  it('is absent without the metadata: the server flags apply', () => {
    expect(parseCodexSandboxState(undefined)).to.equal(undefined)
    expect(parseCodexSandboxState({'x-codex-turn-metadata': {sandbox_mode: 'read-only'}})).to.equal(undefined)
    expect(sandboxForCall(OFF, undefined, WS)).to.deep.equal({mode: 'off', network: true, writableRoots: [], readOnlyPaths: []})
    expect(sandboxForCall(WRITE, undefined, WS)).to.deep.equal({mode: 'workspace-write', network: false, writableRoots: [WS], readOnlyPaths: []})
  })

  it('reads the permission profiles Codex 0.171 sends for -s read-only, -s workspace-write and no sandbox', () => {
    expect(parseCodexSandboxState(state(READ_ONLY))).to.deep.equal({mode: 'read-only', network: false, writableRoots: [], readOnlyPaths: []})
    expect(parseCodexSandboxState(state(WORKSPACE_WRITE))).to.deep.equal({
      mode: 'workspace-write',
      network: false,
      writableRoots: [WS],
      readOnlyPaths: ['.git', '.agents', '.codex', '.aws'].map((name) => ({path: `${WS}/${name}`, skipIfMissing: true})),
    })
    expect(parseCodexSandboxState(state(DISABLED))).to.deep.equal({mode: 'off', network: true, writableRoots: [], readOnlyPaths: []})
    expect(parseCodexSandboxState(state(managed([special('root', 'read'), at('/var/tmp', 'write')], 'enabled')))).to.include({network: true})
  })

  it('reads the other forms: an outer sandbox, unrestricted files, the cwd and project roots as paths', () => {
    expect(parseCodexSandboxState(state({type: 'external', network: 'restricted'}))?.mode).to.equal('off')
    const unrestricted = (network: string) => state({type: 'managed', file_system: {type: 'unrestricted'}, network})
    expect(parseCodexSandboxState(unrestricted('enabled'))?.mode).to.equal('off')
    // Writes anywhere but no network: only ak's sandbox cuts the network, and it keeps writes in the workspace.
    expect(sandboxForCall(OFF, parseCodexSandboxState(unrestricted('restricted')), WS)).to.deep.equal({mode: 'workspace-write', network: false, writableRoots: [WS], readOnlyPaths: []})
    const roots = parseCodexSandboxState(state(managed([special('root', 'read'), special('current_working_directory', 'write'), {path: {type: 'special', value: {kind: 'project_roots', subpath: 'out'}}, access: 'write'}]), `${WS}/sub`))
    expect(roots?.writableRoots).to.deep.equal([`${WS}/sub`, `${WS}/sub/out`])
  })

  it('reads the older sandboxPolicy when there is no permissionProfile', () => {
    const legacy = (sandboxPolicy: unknown) => ({[CODEX_SANDBOX_STATE_META]: {sandboxPolicy, sandboxCwd: WS}})
    expect(parseCodexSandboxState(legacy({type: 'read-only'}))).to.include({mode: 'read-only'})
    expect(parseCodexSandboxState(legacy({type: 'danger-full-access'}))).to.include({mode: 'off'})
    expect(parseCodexSandboxState(legacy({type: 'workspace-write', writable_roots: ['/srv/ws/out'], network_access: true}))).to.deep.equal({
      mode: 'workspace-write',
      network: true,
      writableRoots: [WS, '/srv/ws/out'],
      readOnlyPaths: [],
    })
    // The permission profile wins over the older field when both come.
    expect(parseCodexSandboxState({[CODEX_SANDBOX_STATE_META]: {permissionProfile: READ_ONLY, sandboxPolicy: {type: 'danger-full-access'}, sandboxCwd: WS}})?.mode).to.equal('read-only')
  })

  it('refuses metadata it does not understand, saying what was wrong and what to do', () => {
    const refusal = (meta: Record<string, unknown>, what: RegExp) =>
      expect(() => parseCodexSandboxState(meta)).to.throw(BadInputError).with.property('message').that.matches(what).and.matches(/not run\. Update ak, or run Codex with/)
    refusal(state({type: 'future-mode'}), /permissionProfile\.type "future-mode" is not one ak knows/)
    refusal({[CODEX_SANDBOX_STATE_META]: {sandboxCwd: WS}}, /neither permissionProfile nor sandboxPolicy/)
    refusal(state(READ_ONLY, 'relative/dir'), /sandboxCwd must be an absolute path/)
    refusal(state(managed([special('root', 'read')], 'sometimes')), /network "sometimes"/)
    refusal(state(managed([{path: {type: 'glob', pattern: '**'}, access: 'read'}])), /path\.type "glob"/)
    refusal(state(managed([{...special('root', 'read'), access: 'append'}])), /access "append"/)
  })

  it('refuses what ak cannot enforce rather than run weaker: confined reads, hidden paths', () => {
    expect(() => parseCodexSandboxState(state(managed([special('minimal', 'read'), at(WS, 'write')])))).to.throw(BadInputError, /limits what commands may read.*not run/)
    expect(() => parseCodexSandboxState(state(managed([special('root', 'read'), at(`${WS}/secret`, 'none')])))).to.throw(BadInputError, /hides a path from reading.*not run/)
  })

  it('read-only from Codex makes an unsandboxed or workspace-write server read-only', () => {
    const codex = parseCodexSandboxState(state(READ_ONLY))
    expect(sandboxForCall(OFF, codex, WS)).to.deep.equal({mode: 'read-only', network: false, writableRoots: [], readOnlyPaths: []})
    expect(sandboxForCall(WRITE_NET, codex, WS)).to.deep.equal({mode: 'read-only', network: false, writableRoots: [], readOnlyPaths: []})
  })

  it('workspace-write from Codex keeps its writable roots inside the workspace and its read-only paths there', () => {
    expect(sandboxForCall(OFF, parseCodexSandboxState(state(WORKSPACE_WRITE)), WS)).to.deep.equal({
      mode: 'workspace-write',
      network: false,
      writableRoots: [WS],
      readOnlyPaths: ['.agents', '.aws', '.codex', '.git'].map((name) => `${WS}/${name}`),
    })
    const codex = parseCodexSandboxState(state(managed([special('root', 'read'), at('/var/tmp', 'write'), at(`${WS}/out`, 'write'), at('/srv/ws_evil', 'write')])))
    expect(sandboxForCall(OFF, codex, WS).writableRoots).to.deep.equal([`${WS}/out`])
  })

  it('a Codex root around the workspace narrows to the workspace; none meeting it means read-only', () => {
    const around = parseCodexSandboxState(state(managed([special('root', 'write')])))
    expect(sandboxForCall(OFF, around, WS).writableRoots).to.deep.equal([WS])
    const elsewhere = parseCodexSandboxState(state(managed([special('root', 'read'), at('/home/other', 'write')])))
    expect(sandboxForCall(OFF, elsewhere, WS).mode).to.equal('read-only')
  })

  it('never widens the server: the stricter mode and network win', () => {
    const full = parseCodexSandboxState(state(DISABLED))
    expect(sandboxForCall({mode: 'read-only', network: false}, full, WS)).to.deep.equal({mode: 'read-only', network: false, writableRoots: [], readOnlyPaths: []})
    expect(sandboxForCall(WRITE, full, WS)).to.deep.equal({mode: 'workspace-write', network: false, writableRoots: [WS], readOnlyPaths: []})
    const netWrite = parseCodexSandboxState(state(managed([special('root', 'read'), at(WS, 'write')], 'enabled')))
    expect(sandboxForCall(WRITE, netWrite, WS).network).to.equal(false)
    expect(sandboxForCall(OFF, netWrite, WS).network).to.equal(true)
  })
})

describe("Codex's paths made real", () => {
  let workspace: string
  before(async () => {
    workspace = await realpath(await mkdtemp(path.join(tmpdir(), 'ak-codex-real-')))
    await mkdir(path.join(workspace, '.git'))
    await symlink(workspace, path.join(workspace, 'via-link'))
  })
  after(() => rm(workspace, {recursive: true, force: true}))

  it('resolves links, drops missing roots and skippable read-only paths', async () => {
    const real = await realCodexRequest(
      {
        mode: 'workspace-write',
        network: false,
        writableRoots: [path.join(workspace, 'via-link'), path.join(workspace, 'gone')],
        readOnlyPaths: [{path: path.join(workspace, '.git'), skipIfMissing: true}, {path: path.join(workspace, '.aws'), skipIfMissing: true}],
      },
      workspace,
    )
    expect(real.writableRoots).to.deep.equal([workspace])
    expect(real.readOnlyPaths).to.deep.equal([{path: path.join(workspace, '.git'), skipIfMissing: true}])
  })

  it('refuses a missing read-only path Codex does not let skip, naming it inside the workspace', async () => {
    const request = {mode: 'workspace-write' as const, network: false, writableRoots: [workspace], readOnlyPaths: [{path: path.join(workspace, '.aws'), skipIfMissing: false}]}
    let error: unknown
    try {
      await realCodexRequest(request, workspace)
    } catch (caught) {
      error = caught
    }
    expect(error).to.be.instanceOf(BadInputError)
    expect((error as Error).message).to.match(/keeps "\.aws" read-only, which does not exist yet.*not run/)
    expect((error as Error).message).not.to.contain(workspace)
  })
})

describe('a command Codex asks to sandbox where bubblewrap cannot run', () => {
  it('is refused with a clear error, never run weaker', async () => {
    const workspace = await realpath(await mkdtemp(path.join(tmpdir(), 'ak-codex-nobwrap-')))
    // No bubblewrap on this PATH: the sandbox Codex asks for cannot be built.
    const sessions = new CommandSessions({workspace, env: {PATH: path.join(workspace, 'no-such-bin'), SHELL: '/bin/sh'}})
    try {
      const codex = parseCodexSandboxState(state(READ_ONLY, workspace))
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

  it('binds the whole workspace writable when it is one of the roots, and the read-only paths after it', () => {
    const args = bwrapArguments(WRITE, {workspace: WS, writableRoots: [WS], readOnlyPaths: ['/srv/ws/.aws']})
    expect(pairs(args, '--bind')).to.deep.equal([WS])
    expect(args.lastIndexOf('/srv/ws/.aws')).to.be.greaterThan(args.indexOf(WS))
    expect(pairs(args, '--ro-bind')).to.include('/srv/ws/.aws')
  })
})
