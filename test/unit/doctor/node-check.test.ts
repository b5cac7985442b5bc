import {expect} from 'chai'
import {readFileSync} from 'node:fs'
import path from 'node:path'

import {MINIMUM_NODE_VERSION, checkNode, isSupportedNodeVersion} from '../../../src/doctor/node-check.js'
import {REPO_ROOT} from '../../helpers/clients.js'

describe('doctor: Node.js check', () => {
  it('uses the same minimum as package.json engines and the start-up check', async () => {
    const pkg = JSON.parse(readFileSync(path.join(REPO_ROOT, 'package.json'), 'utf8'))
    expect(pkg.engines.node).to.equal(`>=${MINIMUM_NODE_VERSION}`)
    const startup = (await import(path.join(REPO_ROOT, 'bin', 'node-version.js'))) as {MINIMUM_NODE_VERSION: string}
    expect(startup.MINIMUM_NODE_VERSION).to.equal(MINIMUM_NODE_VERSION)
  })

  it('accepts 22.15 and later, refuses older', () => {
    expect(isSupportedNodeVersion('22.15.0')).to.equal(true)
    expect(isSupportedNodeVersion('v24.1.0')).to.equal(true)
    expect(isSupportedNodeVersion('22.14.9')).to.equal(false)
    expect(isSupportedNodeVersion('20.20.0')).to.equal(false)
  })

  it('fails an old Node.js with the step that fixes it', () => {
    const result = checkNode('20.20.0', '/usr/bin/node')
    expect(result.status).to.equal('fail')
    expect(result.detail).to.contain('20.20.0 at /usr/bin/node')
    expect(result.fix).to.match(/Node\.js 22/)
  })
})
