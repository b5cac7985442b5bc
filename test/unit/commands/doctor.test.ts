import {expect} from 'chai'
import {spawnSync} from 'node:child_process'
import {mkdir, readFile, writeFile} from 'node:fs/promises'
import {tmpdir} from 'node:os'
import path from 'node:path'

import {checkSandbox} from '../../../src/exec/terminal/sandbox.js'
import {RUN_JS} from '../../helpers/clients.js'
import {type DoctorFixture, createDoctorFixture} from '../../helpers/doctor-fixture.js'

const SANDBOX = await checkSandbox({mode: 'workspace-write', network: false}, {workspace: tmpdir(), env: {PATH: '/usr/bin:/bin'}})

describe('ak doctor', () => {
  let fixture: DoctorFixture

  beforeEach(async () => {
    fixture = await createDoctorFixture()
  })

  afterEach(async () => {
    await fixture.cleanup()
  })

  /** A Codex home that trusts the project, registers the runtime as `register` does, and has one agent. */
  async function healthyHome(trustLevel = 'trusted') {
    const codexHome = path.join(fixture.home, '.codex')
    await mkdir(path.join(codexHome, 'agents'), {recursive: true})
    await mkdir(path.join(fixture.project, '.git'))
    await writeFile(path.join(codexHome, 'agents', 'reviewer.toml'), 'description = "Reviews a diff"\n')
    await writeFile(
      path.join(codexHome, 'config.toml'),
      `[projects.${JSON.stringify(fixture.project)}]\ntrust_level = "${trustLevel}"\n\n` +
        `[mcp_servers.agents]\ncommand = ${JSON.stringify(process.execPath)}\n` +
        `args = [${JSON.stringify(RUN_JS)}, "codex-agent-runtime", "serve"]\nrequired = true\nstartup_timeout_sec = 120\ntool_timeout_sec = 600\ndefault_tools_approval_mode = "approve"\n`,
    )
    return codexHome
  }

  function doctor(...args: string[]) {
    const run = spawnSync(process.execPath, [RUN_JS, 'doctor', ...args], {
      cwd: fixture.project,
      env: {PATH: fixture.path, HOME: fixture.home},
      encoding: 'utf8',
    })
    return {status: run.status, stdout: run.stdout, stderr: run.stderr, lines: run.stdout.split('\n').filter(Boolean)}
  }

  it('passes every check on a healthy machine and exits 0', async () => {
    await fixture.installCodex()
    const codexHome = await healthyHome()
    const {status, lines, stderr} = doctor()
    expect(stderr).to.equal('')
    expect(status).to.equal(0)
    const checks = lines.filter((line) => !line.startsWith(' ')).map((line) => line.split(':', 1)[0])
    expect(checks).to.deep.equal([
      'ak',
      'ok    node',
      'AgentExec (ak exec serve)',
      'ok    exec serve',
      // Whether the sandbox can run depends on the machine (bubblewrap, namespaces): ok or warn.
      SANDBOX.ok ? 'ok    sandbox' : 'warn  sandbox',
      'ok    protected paths',
      'ok    descriptors',
      'ok    codex entries',
      'ok    codex start-up',
      'ok    codex http tokens',
      'ok    client entries',
      'Codex agent runtime (ak codex-agent-runtime serve)',
      'ok    codex',
      'ok    codex home',
      'ok    codex config',
      'ok    project trust',
      'ok    agent runtime',
      'ok    plugin root',
      'ok    agents',
    ])
    expect(lines).to.include(`ok    codex: codex 0.171.0 at ${fixture.bin}/codex`)
    expect(lines).to.include(`ok    codex config: ${codexHome}/config.toml parses`)
    expect(lines).to.include('ok    agents: 1 agent: reviewer (user)')
    expect(lines.some((line) => line.startsWith(`ok    exec serve: starts on ${fixture.project}`))).to.equal(true)
  })

  it('fails and exits 1 when codex is missing while the agent runtime is registered', async () => {
    await healthyHome()
    const {status, stdout} = doctor()
    expect(status).to.equal(1)
    expect(stdout).to.match(/^fail {2}codex: codex is not on PATH.*the agent runtime is registered\n {6}fix: npm install -g @openai\/codex$/m)
  })

  it('warns about an AgentExec entry whose edits codex exec would decline, and still exits 0', async () => {
    await fixture.installCodex()
    const codexHome = await healthyHome()
    const entry = `\n[mcp_servers.work]\ncommand = "agentexec"\nargs = ["--workspace", ${JSON.stringify(fixture.project)}, "--level", "files"]\n`
    await writeFile(path.join(codexHome, 'config.toml'), (await readFile(path.join(codexHome, 'config.toml'), 'utf8')) + entry)
    const {status, stdout} = doctor()
    expect(status).to.equal(0)
    expect(stdout).to.contain(
      'warn  codex entries: [mcp_servers.work] has no default_tools_approval_mode, so codex exec declines edit (it cannot ask) and Codex asks before each call\n' +
        `      fix: set default_tools_approval_mode = "approve" in [mcp_servers.work] of ${codexHome}/config.toml\n`,
    )
    // Written by hand without required = true or a start-up timeout: Codex would run on without it.
    expect(stdout).to.contain(
      'warn  codex start-up: [mcp_servers.work] has no required, so Codex runs without it, silently, when it starts late or fails; ' +
        'and no startup_timeout_sec, so Codex waits 30 s for it to start, which a loaded machine can exceed\n' +
        `      fix: set required = true and startup_timeout_sec = 120 in [mcp_servers.work] of ${codexHome}/config.toml (the block "ak exec config --client codex" prints has them)\n`,
    )
  })

  it('fails and exits 1 when codex is missing, even while agent calls need approval', async () => {
    const codexHome = await healthyHome()
    await writeFile(path.join(codexHome, 'config.toml'), (await readFile(path.join(codexHome, 'config.toml'), 'utf8')).replace('default_tools_approval_mode = "approve"\n', ''))
    const {status, stdout} = doctor()
    expect(status).to.equal(1)
    expect(stdout).to.match(/^fail {2}codex: codex is not on PATH.*the agent runtime is registered$/m)
    expect(stdout).to.match(/^warn {2}agent runtime: \[mcp_servers\.agents\] has no default_tools_approval_mode, so codex exec declines agent_reviewer/m)
  })

  it('fails and exits 1 on a config.toml that does not parse, naming the line', async () => {
    await fixture.installCodex()
    const codexHome = await healthyHome()
    await writeFile(path.join(codexHome, 'config.toml'), 'model = "o3"\n[mcp_servers.agents\n')
    await mkdir(path.join(fixture.project, '.codex', 'agents'), {recursive: true})
    const {status, stdout} = doctor()
    expect(status).to.equal(1)
    expect(stdout).to.match(/^fail {2}codex config: .*config\.toml does not parse: line 2/m)
    expect(stdout).to.match(/^warn {2}project trust: cannot tell/m)
  })

  it('warns about an untrusted project with the fix, and still exits 0', async () => {
    await fixture.installCodex()
    await healthyHome('untrusted')
    await mkdir(path.join(fixture.project, '.codex', 'agents'), {recursive: true})
    const {status, stdout} = doctor()
    expect(status).to.equal(0)
    expect(stdout).to.contain(`warn  project trust: ${fixture.project} is marked untrusted`)
    expect(stdout).to.contain(`      fix: run "codex" in ${fixture.project} and trust the folder when asked`)
  })

  it('checks the Codex home given with --codex-home', async () => {
    const other = path.join(fixture.root, 'elsewhere')
    const {stdout} = doctor('--codex-home', other)
    expect(stdout).to.contain(`warn  codex home: ${other} does not exist`)
  })

  it('for a Codex home that does not exist, prints one fix that creates it and no register that would fail', async () => {
    const missing = path.join(fixture.root, 'no-such-home')
    const plugins = path.join(fixture.root, 'kits')
    const {stdout} = doctor('--codex-home', missing, '--plugin-root', plugins)
    const fixes = stdout.split('\n').filter((line) => line.startsWith('      fix: '))
    expect(fixes.filter((line) => line.includes(`mkdir -p ${missing}`)), stdout).to.deep.equal([`      fix: mkdir -p ${missing}, or pass --codex-home DIR or set CODEX_HOME`])
    expect(stdout).not.to.contain('codex-agent-runtime register')
    expect(new Set(fixes).size, stdout).to.equal(fixes.length)

    // Followed, the fix leads to the next one, which works too.
    expect(spawnSync('sh', ['-c', `mkdir -p ${missing}`]).status).to.equal(0)
    const again = doctor('--codex-home', missing, '--plugin-root', plugins)
    const register = again.lines.find((line) => line.startsWith('      fix: ak codex-agent-runtime register'))
    expect(register, again.stdout).to.equal(`      fix: ak codex-agent-runtime register --codex-home ${missing} --plugin-root ${plugins}`)
    const words = register!.replace('      fix: ak ', '').split(' ')
    const registered = spawnSync(process.execPath, [RUN_JS, ...words, '--yes'], {cwd: fixture.project, env: {PATH: fixture.path, HOME: fixture.home}, encoding: 'utf8'})
    expect(registered.status, registered.stderr).to.equal(0)
  })

  it('lays out every line as a status, or a fix under a problem', async () => {
    await fixture.installCodex({exitCode: 2})
    const {lines} = doctor()
    for (const line of lines) expect(line).to.match(/^(ok {4}|warn {2}|fail {2}| {6}fix: | {6}note: |ak$|AgentExec |Codex agent runtime )\S*/)
  })

  it('repeats the --codex-home and --plugin-root it was given in the commands it suggests', async () => {
    const other = path.join(fixture.root, 'other-home')
    const plugins = path.join(fixture.root, 'kits')
    await mkdir(other)
    const {stdout} = doctor('--codex-home', other, '--plugin-root', plugins)
    const suggested = stdout.split('\n').filter((line) => line.includes('fix: ak '))
    expect(suggested.length, stdout).to.be.at.least(1)
    for (const line of suggested) expect(line).to.contain(`--codex-home ${other}`)
    expect(stdout).to.contain(`fix: ak codex-agent-runtime register --codex-home ${other} --plugin-root ${plugins}`)
  })

  it('says nothing about trust where there are no project agents, and each note of discovery has its own line', async () => {
    await fixture.installCodex()
    const codexHome = await healthyHome('untrusted')
    await writeFile(path.join(codexHome, 'agents', 'typo.toml'), 'sandbox_mode = "read_only"\n')
    await writeFile(path.join(codexHome, 'agents', 'Bad Name.toml'), '')
    const {stdout, lines} = doctor()
    expect(stdout).to.match(/^ok {4}project trust: no project agents/m)
    const notes = lines.filter((line) => line.startsWith('      note: '))
    expect(notes).to.have.length(2)
    for (const note of notes) expect(note).not.to.contain('; warning')
  })

  it('prints the fix under a warning, and --quiet keeps only the problems', async () => {
    const {status, stdout} = doctor('--quiet')
    expect(status).to.equal(0)
    expect(stdout).to.contain('warn  codex home')
    expect(stdout).to.match(/^warn {2}codex: codex is not on PATH.*\n {6}fix: npm install -g @openai\/codex\n/m)
    expect(stdout).not.to.match(/^ok /m)
  })

  it('prints one JSON document with every check with --json', async () => {
    await fixture.installCodex()
    const {status, stdout} = doctor('--json')
    expect(status).to.equal(0)
    const report = JSON.parse(stdout) as {ok: boolean; checks: Array<{server: string; check: string; status: string}>}
    expect(report.ok).to.equal(true)
    expect(report.checks.map((check) => [check.server, check.check])).to.deep.equal([
      ['ak', 'node'],
      ['exec', 'exec serve'],
      ['exec', 'sandbox'],
      ['exec', 'protected paths'],
      ['exec', 'descriptors'],
      ['exec', 'codex entries'],
      ['exec', 'codex start-up'],
      ['exec', 'codex http tokens'],
      ['exec', 'client entries'],
      ['codex-agent-runtime', 'codex'],
      ['codex-agent-runtime', 'codex home'],
      ['codex-agent-runtime', 'codex config'],
      ['codex-agent-runtime', 'project trust'],
      ['codex-agent-runtime', 'agent runtime'],
      ['codex-agent-runtime', 'plugin root'],
      ['codex-agent-runtime', 'agents'],
    ])
  })

  it('exits 2 for an argument it does not take', () => {
    const {status, stderr} = doctor('now')
    expect(status).to.equal(2)
    expect(stderr).to.contain('"ak doctor" takes no argument "now"')
  })
})
