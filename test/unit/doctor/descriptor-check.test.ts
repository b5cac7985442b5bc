import {expect} from 'chai'
import {spawnSync} from 'node:child_process'

import {checkDescriptorLimit} from '../../../src/doctor/descriptor-check.js'
import {FULL_SERVER_DESCRIPTORS, commandsWithin, descriptorsNeeded} from '../../../src/exec/descriptor-budget.js'
import {MAX_RUNNING_COMMANDS} from '../../../src/exec/terminal/limits.js'

describe('the descriptor limit check', () => {
  it('is ok when the limit leaves room for every command ak runs at once with a full search pool', () => {
    expect(checkDescriptorLimit(FULL_SERVER_DESCRIPTORS)).to.include({status: 'ok'})
    expect(checkDescriptorLimit(1_048_576).detail).to.equal(`ulimit -n is 1048576: room for the ${MAX_RUNNING_COMMANDS} commands ak runs at once (a full server needs ${FULL_SERVER_DESCRIPTORS})`)
    expect(checkDescriptorLimit(undefined)).to.include({status: 'ok'})
  })

  it('warns when it leaves room for fewer, saying for how many and how to raise it', () => {
    const result = checkDescriptorLimit(FULL_SERVER_DESCRIPTORS - 1)
    expect(result.status).to.equal('warn')
    expect(result.detail).to.match(new RegExp(`^ulimit -n is ${FULL_SERVER_DESCRIPTORS - 1}: room for about ${MAX_RUNNING_COMMANDS - 1} of the ${MAX_RUNNING_COMMANDS} commands`))
    expect(result.fix).to.contain('ulimit -n 1024')
    expect(checkDescriptorLimit(128).detail).to.contain('room for about 23 of the 64 commands')
    expect(checkDescriptorLimit(40).detail).to.contain('room for about 0 of the 64 commands')
  })

  it('counts each command, the search pool and each HTTP session', () => {
    expect(descriptorsNeeded(1) - descriptorsNeeded(0)).to.equal(2)
    expect(descriptorsNeeded(0, 1) - descriptorsNeeded(0)).to.equal(2)
    expect(commandsWithin(descriptorsNeeded(10))).to.equal(10)
    expect(commandsWithin(10)).to.equal(0)
  })

  it('reads the limit a server started from this shell gets', function () {
    const script = `import {descriptorLimit} from ${JSON.stringify(new URL('../../../src/doctor/descriptor-check.ts', import.meta.url).href)}; console.log(descriptorLimit())`
    const run = spawnSync('bash', ['-c', 'ulimit -n 128; exec "$@"', 'bash', process.execPath, '--import', 'tsx', '--input-type=module', '-e', script], {encoding: 'utf8'})
    expect(run.stdout.trim(), run.stderr).to.equal('128')
  })
})
