import {expect} from 'chai'
import {writeFile} from 'node:fs/promises'
import path from 'node:path'

import {checkExecServe} from '../../../src/doctor/exec-serve-check.js'
import {clientEnvironment} from '../../../src/doctor/stdio-probe.js'
import {type DoctorFixture, createDoctorFixture} from '../../helpers/doctor-fixture.js'

describe('doctor: exec serve check', () => {
  let fixture: DoctorFixture

  before(async () => {
    fixture = await createDoctorFixture()
  })

  after(async () => {
    await fixture.cleanup()
  })

  it('starts the server on the folder and lists its tools', async () => {
    const result = await checkExecServe({cwd: fixture.project, env: {PATH: fixture.path, HOME: fixture.home}, homeDir: fixture.home})
    expect(result.status).to.equal('ok')
    expect(result.detail).to.match(/^starts on .* and lists \d+ tools? \(.*list.*\)$/)
  })

  it('fails with the server\'s own error and a command to see it when it cannot start', async () => {
    const file = path.join(fixture.root, 'not-a-folder')
    await writeFile(file, '')
    const result = await checkExecServe({cwd: file, env: {PATH: fixture.path, HOME: fixture.home}, homeDir: fixture.home})
    expect(result.status).to.equal('fail')
    expect(result.detail, result.detail).to.contain('is not a folder')
    expect(result.fix).to.equal(`run "ak exec serve --workspace ${file}" to see the whole error`)
  })

  it('passes the server only the variables a client keeps', () => {
    expect(clientEnvironment({PATH: '/bin', HOME: '/h', AGENTEXEC_TOKEN: 'secret', NODE_OPTIONS: '--x'})).to.deep.equal({
      PATH: '/bin',
      HOME: '/h',
    })
  })
})
