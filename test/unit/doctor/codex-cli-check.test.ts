import {expect} from 'chai'

import {checkCodexCli, versionOf} from '../../../src/doctor/codex-cli-check.js'
import {type DoctorFixture, createDoctorFixture} from '../../helpers/doctor-fixture.js'

describe('doctor: codex CLI check', () => {
  let fixture: DoctorFixture

  beforeEach(async () => {
    fixture = await createDoctorFixture()
  })

  afterEach(async () => {
    await fixture.cleanup()
  })

  const environment = () => ({cwd: fixture.project, env: {PATH: fixture.path, HOME: fixture.home}, homeDir: fixture.home})

  it('reports the version and path of codex on PATH', async () => {
    const codex = await fixture.installCodex()
    expect(await checkCodexCli(environment())).to.deep.equal({check: 'codex', status: 'ok', detail: `codex 0.171.0 at ${codex}`})
  })

  it('warns with the install command when codex is not on PATH', async () => {
    const result = await checkCodexCli(environment())
    expect(result.status).to.equal('warn')
    expect(result.fix).to.equal('npm install -g @openai/codex')
  })

  it('warns when codex is on PATH but does not answer --version', async () => {
    await fixture.installCodex({exitCode: 3})
    const result = await checkCodexCli(environment())
    expect(result.status).to.equal('warn')
    expect(result.detail).to.contain('did not answer --version')
  })

  it('reads the version out of the CLI banner', () => {
    expect(versionOf('codex-cli 0.171.0\n')).to.equal('codex 0.171.0')
    expect(versionOf('something else')).to.equal('codex (version output: "something else")')
  })
})
