import {expect} from 'chai'
import {spawnSync} from 'node:child_process'

import {DispatchFailedError} from '../../../../src/errors.js'
import {isSoundAfter, oneLine} from '../../../../src/exec/serving/process-guard.js'

/** Runs `body` in a Node process with the guard installed; `body` may use `keep` (an interval holding the process open). */
function guarded(body: string) {
  const script =
    `import {installProcessGuard} from ${JSON.stringify(new URL('../../../../src/exec/serving/process-guard.ts', import.meta.url).href)};` +
    `installProcessGuard({info() {}, warn(line) { process.stderr.write('ak exec: warning: ' + line + '\\n') }});` +
    `const keep = setInterval(() => {}, 1000);` +
    `process.once('SIGTERM', () => { console.log('stopping'); clearInterval(keep) });` +
    body
  return spawnSync(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', script], {encoding: 'utf8', timeout: 60_000})
}

describe('the process guard', function () {
  this.timeout(60_000)

  it('keeps serving after an unhandled rejection and after a resource shortage, with one line each', () => {
    const run = guarded(
      `Promise.reject(new TypeError('nobody awaited this'));` +
        `setTimeout(() => { throw Object.assign(new Error('EMFILE: too many open files'), {code: 'EMFILE'}) }, 10);` +
        `setTimeout(() => { console.log('alive'); clearInterval(keep) }, 200);`,
    )
    expect(run.status, run.stderr).to.equal(0)
    expect(run.stdout).to.equal('alive\n')
    const lines = run.stderr.trim().split('\n')
    expect(lines).to.have.length(2)
    expect(lines[0]).to.equal('ak exec: warning: an unexpected failure was dropped and the server goes on: TypeError: nobody awaited this')
    expect(lines[1]).to.match(/^ak exec: warning: an unexpected error was dropped and the server goes on: Error: EMFILE/)
  })

  it('stops the way SIGTERM does and exits with 1 after an exception that leaves the state unknown', () => {
    const run = guarded(`setTimeout(() => { null.boom }, 10);`)
    expect(run.status).to.equal(1)
    expect(run.stdout).to.equal('stopping\n')
    expect(run.stderr.trim().split('\n')).to.deep.equal([
      "ak exec: warning: an unexpected error left the server in an unknown state, so it stops every command and exits with 1: TypeError: Cannot read properties of null (reading 'boom')",
    ])
  })

  it('counts ak\'s own errors and shortages as sound, other errors not', () => {
    expect(isSoundAfter(new DispatchFailedError('x'))).to.equal(true)
    expect(isSoundAfter(Object.assign(new Error('x'), {code: 'EPIPE'}))).to.equal(true)
    expect(isSoundAfter(new RangeError('x'))).to.equal(false)
    expect(isSoundAfter(Object.assign(new Error('x'), {code: 'ERR_INTERNAL_ASSERTION'}))).to.equal(false)
    expect(oneLine(new Error('first\nsecond'))).to.equal('Error: first')
  })
})
