import {expect} from 'chai'
import {spawnSync} from 'node:child_process'

import {RUN_JS} from '../../helpers/clients.js'
import {type DoctorFixture, createDoctorFixture} from '../../helpers/doctor-fixture.js'

describe('ak doctor', () => {
  let fixture: DoctorFixture

  beforeEach(async () => {
    fixture = await createDoctorFixture()
  })

  afterEach(async () => {
    await fixture.cleanup()
  })

  function doctor(...args: string[]) {
    const run = spawnSync(process.execPath, [RUN_JS, 'doctor', ...args], {
      cwd: fixture.project,
      env: {PATH: fixture.path, HOME: fixture.home},
      encoding: 'utf8',
    })
    return {status: run.status, stdout: run.stdout, stderr: run.stderr, lines: run.stdout.split('\n').filter(Boolean)}
  }

  it('prints one status line per check and exits 0 on a healthy machine', async () => {
    await fixture.installCodex()
    const {status, lines, stderr} = doctor()
    expect(stderr).to.equal('')
    expect(status).to.equal(0)
    expect(lines.some((line) => /^ok {4}node: Node\.js \d+\.\d+\.\d+ at \//.test(line))).to.equal(true)
    expect(lines).to.include(`ok    codex: codex 0.171.0 at ${fixture.bin}/codex`)
    expect(lines.some((line) => line.startsWith(`ok    exec serve: starts on ${fixture.project}`))).to.equal(true)
    for (const line of lines) expect(line).to.match(/^(ok {4}|warn {2}|fail {2}| {6}fix: )\S/)
  })

  it('prints the fix under a warning, and --quiet keeps only the problems', async () => {
    const {status, stdout} = doctor('--quiet')
    expect(status).to.equal(0)
    expect(stdout).to.match(/^warn {2}codex: codex is not on PATH.*\n {6}fix: npm install -g @openai\/codex\n/)
    expect(stdout).not.to.match(/^ok /m)
  })

  it('prints one JSON document with every check with --json', async () => {
    await fixture.installCodex()
    const {status, stdout} = doctor('--json')
    expect(status).to.equal(0)
    const report = JSON.parse(stdout) as {ok: boolean; checks: Array<{check: string; status: string}>}
    expect(report.ok).to.equal(true)
    expect(report.checks.map((check) => check.check)).to.include.members(['node', 'codex', 'exec serve'])
  })

  it('exits 2 for an argument it does not take', () => {
    const {status, stderr} = doctor('now')
    expect(status).to.equal(2)
    expect(stderr).to.contain('"ak doctor" takes no argument "now"')
  })
})
