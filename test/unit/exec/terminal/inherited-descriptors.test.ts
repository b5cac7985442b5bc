import {expect} from 'chai'
import {spawnSync} from 'node:child_process'
import {closeSync, openSync} from 'node:fs'

import {inheritableDescriptors, withoutInheritedDescriptors} from '../../../../src/exec/terminal/inherited-descriptors.js'

describe('descriptors a child would inherit', () => {
  it('finds none of Node\'s own, close-on-exec descriptors', function () {
    if (process.platform !== 'linux') this.skip()
    const own = openSync(process.execPath, 'r')
    try {
      expect(inheritableDescriptors()).to.not.include(own)
    } finally {
      closeSync(own)
    }
  })

  it('finds a descriptor the parent left open without close-on-exec', function () {
    if (process.platform !== 'linux') this.skip()
    const script = `import {inheritableDescriptors} from ${JSON.stringify(new URL('../../../../src/exec/terminal/inherited-descriptors.ts', import.meta.url).href)}; console.log(JSON.stringify(inheritableDescriptors()))`
    const run = spawnSync('bash', ['-c', 'exec 57</dev/null; exec "$@"', 'bash', process.execPath, '--import', 'tsx', '--input-type=module', '-e', script], {encoding: 'utf8'})
    expect(run.stderr).to.equal('')
    expect(JSON.parse(run.stdout)).to.include(57)
  })

  it('closes them in a server\'s own process, also one above the descriptor limit that no spawn could mask', function () {
    if (process.platform !== 'linux') this.skip()
    const module = JSON.stringify(new URL('../../../../src/exec/terminal/inherited-descriptors.ts', import.meta.url).href)
    const script = `import {closeInheritedDescriptors, inheritableDescriptors} from ${module}; const closed = closeInheritedDescriptors(); console.log(JSON.stringify({closed, left: inheritableDescriptors()}))`
    const run = spawnSync('bash', ['-c', 'exec 57</dev/null 250</dev/null; ulimit -n 128; exec "$@"', 'bash', process.execPath, '--import', 'tsx', '--input-type=module', '-e', script], {encoding: 'utf8'})
    expect(run.stderr).to.equal('')
    const {closed, left} = JSON.parse(run.stdout) as {closed: number; left: number[]}
    expect(closed).to.be.at.least(2)
    expect(left).to.deep.equal([])
  })

  it('points each one the spawn does not set at /dev/null, keeping the ones it sets', () => {
    const masked = withoutInheritedDescriptors(['pipe', 'pipe', 'pipe', 'pipe', 'pipe'], [3, 4, 7, 9])
    expect(masked.slice(0, 5)).to.deep.equal(['pipe', 'pipe', 'pipe', 'pipe', 'pipe'])
    expect(masked.slice(5, 7)).to.deep.equal(['ignore', 'ignore'])
    expect(masked[7]).to.be.a('number').and.equal(masked[9])
    expect(masked[8]).to.equal('ignore')
    expect(masked).to.have.length(10)
  })

  it('replaces an ignored slot below the ones the spawn sets', () => {
    const masked = withoutInheritedDescriptors(['ignore', 'pipe', 'pipe', 'ignore', 'pipe'], [3])
    expect(masked[3]).to.be.a('number')
    expect(masked[4]).to.equal('pipe')
  })
})
