import {expect} from 'chai'

import {BadInputError} from '../../../../src/errors.js'
import {configSandbox} from '../../../../src/exec/serving/config-sandbox.js'
import type {SandboxCheck} from '../../../../src/exec/terminal/sandbox.js'

const where = {workspace: '/ws', env: {}}
const works = async (): Promise<SandboxCheck> => ({ok: true, bwrap: '/usr/bin/bwrap', version: 'bubblewrap 0.9.0'})
const missing = async (): Promise<SandboxCheck> => ({ok: false, reason: 'bubblewrap (bwrap) is not on PATH', fix: 'install bubblewrap'})

describe('configSandbox: the sandbox a printed block asks for', () => {
  it('confines a terminal block to the workspace where bubblewrap works, and says so', async () => {
    const chosen = await configSandbox('terminal', {sandboxNetwork: false}, where, works)
    expect(chosen.policy).to.deep.equal({mode: 'workspace-write', network: false})
    expect(chosen.note).to.contain('--sandbox workspace-write').and.contain('--sandbox off')
    expect(chosen.warning).to.equal(undefined)
  })

  it('keeps --sandbox-network with the default sandbox', async () => {
    expect((await configSandbox('terminal', {sandboxNetwork: true}, where, works)).policy).to.deep.equal({mode: 'workspace-write', network: true})
  })

  it('falls back to no sandbox where bubblewrap cannot run, with a warning saying why and how to fix it', async () => {
    const chosen = await configSandbox('terminal', {sandboxNetwork: false}, where, missing)
    expect(chosen.policy.mode).to.equal('off')
    expect(chosen.warning).to.contain('without a sandbox, because bubblewrap (bwrap) is not on PATH').and.contain('install bubblewrap')
  })

  it('prints off only when asked, with a warning', async () => {
    const chosen = await configSandbox('terminal', {sandbox: 'off', sandboxNetwork: false}, where, works)
    expect(chosen.policy.mode).to.equal('off')
    expect(chosen.warning).to.contain('--sandbox off').and.contain('anything your user can')
  })

  it('keeps a sandbox given, and checks nothing below terminal', async () => {
    const never = async (): Promise<SandboxCheck> => {
      throw new Error('checked')
    }
    expect((await configSandbox('terminal', {sandbox: 'read-only', sandboxNetwork: false}, where, never)).policy.mode).to.equal('read-only')
    const files = await configSandbox('files', {sandboxNetwork: false}, where, never)
    expect(files).to.deep.equal({policy: {mode: 'off', network: true}})
    await configSandbox('files', {sandboxNetwork: true}, where, never).then(
      () => expect.fail('accepted --sandbox-network without a sandbox'),
      (error: Error) => expect(error).to.be.instanceOf(BadInputError),
    )
  })
})
