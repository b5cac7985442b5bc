import {expect} from 'chai'
import {spawnSync} from 'node:child_process'
import {mkdtemp, rm} from 'node:fs/promises'
import {tmpdir} from 'node:os'
import path from 'node:path'

import {DispatchFailedError, LimitReachedError} from '../../src/errors.js'
import {spawnFailure, startProcess} from '../../src/process-start.js'

function systemError(code: string): NodeJS.ErrnoException {
  return Object.assign(new Error(`spawn /opt/host/bin/sh ${code}`), {code, path: '/opt/host/bin/sh'})
}

describe('starting a process', () => {
  let dir: string
  before(async () => (dir = await mkdtemp(path.join(tmpdir(), 'ak-start-'))))
  after(() => rm(dir, {recursive: true, force: true}))

  for (const code of ['EMFILE', 'ENFILE']) {
    it(`reads as every descriptor shortage does when the spawn fails with ${code}`, () => {
      const error = spawnFailure(systemError(code), 'the command', '/opt/host/bin/sh', 'Check workdir.')
      expect(error).to.be.instanceOf(LimitReachedError)
      expect(error.message).to.match(/^The server has too many files open to start the command now\. Retry in a moment\./)
      expect(error.message).to.not.contain(code).and.not.contain('/opt/host')
    })
  }

  for (const [code, ranOut] of [
    ['EAGAIN', 'as many processes as it may'],
    ['ENOMEM', 'out of memory'],
  ] as const) {
    it(`says what ran out and to retry when the spawn fails with ${code}, as a limit reached`, () => {
      const error = spawnFailure(systemError(code), 'the command', '/opt/host/bin/sh', 'Check workdir.')
      expect(error).to.be.instanceOf(LimitReachedError)
      expect(error.message).to.match(/^Could not start the command: /).and.contain(ranOut).and.contain('Retry in a moment')
      expect(error.message).to.not.contain(code).and.not.contain('/opt/host')
    })
  }

  for (const code of ['ENOENT', 'EACCES', 'EINVAL', 'E2BIG']) {
    it(`says what failed and what to do when the spawn fails with ${code}, naming the program by its base name only`, () => {
      const error = spawnFailure(systemError(code), 'the agent', '/opt/host/bin/codex', 'Install the Codex CLI.')
      expect(error).to.be.instanceOf(DispatchFailedError)
      expect(error.message).to.match(/^Could not start the agent: /)
      expect(error.message).to.not.contain(code).and.not.contain('/opt/host')
      if (code !== 'EINVAL') expect(error.message).to.contain('"codex"').and.contain('Install the Codex CLI.')
    })
  }

  it('says the program was not found on PATH when a bare name is missing, and that the folder is gone when that is what ENOENT meant', async () => {
    const missingProgram = await startProcess('no-such-program-ak', [], {cwd: dir, stdio: 'ignore', what: 'the agent', fix: 'Install it.'}).catch((caught: unknown) => caught)
    expect((missingProgram as Error).message).to.equal(`Could not start the agent: "no-such-program-ak" was not found on the server's PATH. Install it.`)
    const missingFolder = await startProcess('/bin/sh', ['-c', 'true'], {cwd: path.join(dir, 'gone'), stdio: 'ignore', what: 'the command', fix: 'Check workdir.'}).catch((caught: unknown) => caught)
    expect((missingFolder as Error).message).to.equal('Could not start the command: the folder it should run in no longer exists. Check workdir.')
  })

  it('resolves with a started child whose stdio is set up', async () => {
    const child = await startProcess('/bin/sh', ['-c', 'echo ok'], {stdio: ['ignore', 'pipe', 'ignore'], what: 'the test', fix: ''})
    const out: Buffer[] = []
    child.stdout!.on('data', (chunk: Buffer) => out.push(chunk))
    await new Promise((resolve) => child.once('close', resolve))
    expect(Buffer.concat(out).toString()).to.equal('ok\n')
  })

  it('rejects with the clear error when the program is missing, instead of an error event nothing hears', async () => {
    const error = await startProcess(path.join(dir, 'missing'), [], {stdio: 'ignore', what: 'the test', fix: 'Install it.'}).catch((caught: unknown) => caught)
    expect(error).to.be.instanceOf(DispatchFailedError)
    expect((error as Error).message).to.contain('"missing"').and.not.contain(dir)
  })

  it('rejects, without throwing, when making the stdio fails or spawn itself throws', async () => {
    const thrown = await startProcess('/bin/sh', [], {
      stdio: () => {
        throw systemError('EMFILE')
      },
      what: 'the test',
      fix: '',
    }).catch((caught: unknown) => caught)
    expect(thrown).to.be.instanceOf(LimitReachedError)
  })

  it('keeps serving when spawn fails with EMFILE in a process under a low limit', function () {
    // Descriptors 0-2 and Node's own take most of 24: the child's pipes cannot be made.
    const script =
      `import {startProcess} from ${JSON.stringify(new URL('../../src/process-start.ts', import.meta.url).href)};` +
      `const tries = await Promise.allSettled(Array.from({length: 8}, () => startProcess('/bin/sleep', ['1'], {stdio: ['pipe', 'pipe', 'pipe', 'pipe'], what: 'the command', fix: ''})));` +
      `console.log(JSON.stringify(tries.map((t) => t.status === 'fulfilled' ? 'started' : t.reason.message)));` +
      `for (const t of tries) if (t.status === 'fulfilled') t.value.kill();`
    const run = spawnSync('bash', ['-c', 'ulimit -n 40; exec "$@"', 'bash', process.execPath, '--import', 'tsx', '--input-type=module', '-e', script], {encoding: 'utf8'})
    expect(run.status, run.stderr).to.equal(0)
    const outcomes = JSON.parse(run.stdout) as string[]
    expect(outcomes.filter((outcome) => outcome !== 'started').length, run.stdout).to.be.greaterThan(0)
    for (const outcome of outcomes) if (outcome !== 'started') expect(outcome).to.match(/^The server has too many files open to start the command now\. Retry in a moment\./)
  })
})
