import {expect} from 'chai'
import {mkdtemp, rm, writeFile} from 'node:fs/promises'
import {tmpdir} from 'node:os'
import path from 'node:path'

import {checkExecSandbox} from '../../../src/doctor/sandbox-check.js'
import {MIN_BWRAP_VERSION, checkSandbox} from '../../../src/exec/terminal/sandbox.js'

describe('doctor: sandbox check', () => {
  let fakeBin: string
  before(async () => {
    fakeBin = await mkdtemp(path.join(tmpdir(), 'ak-doctor-bwrap-'))
  })
  after(async () => {
    await rm(fakeBin, {recursive: true, force: true})
  })

  const environment = (PATH: string) => ({cwd: tmpdir(), env: {PATH}, homeDir: tmpdir()})

  it(`warns that a bubblewrap older than ${MIN_BWRAP_VERSION} is too old, naming the version needed`, async () => {
    await writeFile(path.join(fakeBin, 'bwrap'), '#!/bin/sh\necho "bubblewrap 0.7.0"\n', {mode: 0o755})
    const result = await checkExecSandbox(environment(fakeBin))
    expect(result.status).to.equal('warn')
    expect(result.detail).to.contain('is bubblewrap 0.7.0, too old').and.contain(`needs bubblewrap ${MIN_BWRAP_VERSION} or later`)
    expect(result.fix).to.contain(`Install bubblewrap ${MIN_BWRAP_VERSION} or later`)
  })

  it('warns when bubblewrap is missing, saying how to install it', async () => {
    const result = await checkExecSandbox(environment('/nonexistent'))
    expect(result.status).to.equal('warn')
    expect(result.fix).to.contain('apt-get install bubblewrap')
    // What that means for a Codex client, whose sandbox a terminal-level server follows per call.
    expect(result.detail).to.contain("Codex's sandbox cannot be followed").and.contain('codex/sandbox-state-meta').and.contain('refused, not run unsandboxed')
  })

  it('reports the bubblewrap that can run the sandbox, as the server would find it', async function () {
    const check = await checkSandbox({mode: 'workspace-write', network: false}, {workspace: tmpdir()})
    if (!check.ok) {
      console.log(`      skipped: ${check.reason}`)
      this.skip()
    }
    const result = await checkExecSandbox(environment(process.env.PATH ?? ''))
    expect(result.status).to.equal('ok')
    expect(result.detail).to.contain(check.bwrap).and.contain('without capabilities')
    expect(result.detail).to.contain("Codex's sandbox is followed too").and.contain('codex/sandbox-state-meta')
  })
})
