import {expect} from 'chai'
import {spawnSync} from 'node:child_process'
import {readFile, rm} from 'node:fs/promises'
import path from 'node:path'

import {RUN_JS, type TestClient, connectStdio} from '../helpers/clients.js'
import {eventually, standInRuns, tempDir, writeStandInCodex, writeTree} from '../helpers/codex-fixtures.js'
import {killPids} from '../helpers/server-process.js'

/** Agents whose `model` cannot pass to codex exec exactly, and one that can. */
const AGENTS = {
  'agents/flagmodel.toml': 'description = "A model that is a flag."\nmodel = "--dangerously-bypass-approvals-and-sandbox"\n',
  'agents/nulmodel.toml': 'description = "A model with a NUL."\nmodel = "gpt\\u0000x"\n',
  'agents/plain.toml': 'description = "A plain agent."\nmodel = "gpt-test"\n',
}

describe('ak codex-agent-runtime: values that reach codex exec exactly or not at all', () => {
  let fixture: {dir: string; codexHome: string; pluginRoot: string; record: string; env: Record<string, string>; remove: () => Promise<void>}
  let client: TestClient | undefined

  before(async () => {
    const {dir, remove} = await tempDir('ak-agent-values-')
    const codexHome = path.join(dir, 'codex-home')
    const pluginRoot = path.join(dir, 'plugins')
    const record = path.join(dir, 'runs.jsonl')
    await writeTree(codexHome, {'config.toml': '', ...AGENTS})
    const binDir = path.join(dir, 'bin')
    await writeStandInCodex(binDir, record)
    fixture = {dir, codexHome, pluginRoot, record, remove, env: {PATH: `${binDir}${path.delimiter}${process.env.PATH}`, AGENTEXEC_TOKEN: 'token-of-agentexec'}}
  })

  after(async () => {
    await client?.close()
    await fixture?.remove()
  })

  const ak = (args: string[]) =>
    spawnSync(process.execPath, [RUN_JS, 'codex-agent-runtime', ...args, '--codex-home', fixture.codexHome, '--plugin-root', fixture.pluginRoot], {
      cwd: fixture.dir,
      env: {...process.env, ...fixture.env},
      encoding: 'utf8',
      input: '',
    })

  it('lists an agent whose model starts with "-" or holds a NUL as invalid, with the reason', () => {
    const result = ak(['serve', '--list-only'])
    expect(result.status).to.equal(0)
    expect(result.stdout).to.contain('\nflagmodel  [invalid]\nnulmodel  [invalid]\nplain\n')
    expect(result.stderr).to.contain('model = "--dangerously-bypass-approvals-and-sandbox" starts with "-", so codex exec would read it as a flag instead of the model')
    expect(result.stderr).to.contain('model = "gpt\\u0000x" holds a NUL character')
  })

  it('inspects such an agent as invalid, with the reason and no command', () => {
    for (const [slug, reason] of [
      ['flagmodel', 'starts with "-"'],
      ['nulmodel', 'holds a NUL character'],
    ]) {
      const result = ak(['inspect', slug as string, '--json'])
      expect(result.status, result.stderr).to.equal(0)
      const report = JSON.parse(result.stdout) as {status: string; reason: string; args?: string[]}
      expect(report.status).to.equal('invalid')
      expect(report.reason).to.contain(reason)
      expect(report.args).to.equal(undefined)
    }
  })

  it('answers a call to such an agent with the reason, without running codex, and runs a plain one without AGENTEXEC_TOKEN', async () => {
    client = await connectStdio('v2 (2026-07-28)', ['codex-agent-runtime', 'serve', '--codex-home', fixture.codexHome, '--plugin-root', fixture.pluginRoot], {
      cwd: fixture.dir,
      env: fixture.env,
    })
    for (const slug of ['flagmodel', 'nulmodel']) {
      const answer = await client.call(`agent_${slug}`, {prompt: 'go'})
      expect(answer.isError, answer.text).to.equal(true)
      expect(answer.text).to.match(/is invalid: its policy cannot be enforced: model = /)
      expect(answer.text).to.not.contain('Internal error')
    }
    expect(await standInRuns(fixture.record)).to.deep.equal([])
    const answer = await client.call('agent_plain', {prompt: 'go'})
    expect(answer.isError, answer.text).to.equal(false)
    const runs = await standInRuns(fixture.record)
    expect(runs).to.have.length(1)
    expect(runs[0]?.argv).to.include.members(['-m', 'gpt-test'])
    expect(runs[0]).to.not.have.property('agentexecToken')
  })
})

describe('ak codex-agent-runtime: a codex that leaves a daemon holding its output', () => {
  let fixture: {dir: string; codexHome: string; record: string; env: Record<string, string>; remove: () => Promise<void>}
  let client: TestClient | undefined
  const daemons: number[] = []

  before(async () => {
    const {dir, remove} = await tempDir('ak-agent-daemon-')
    const codexHome = path.join(dir, 'codex-home')
    const record = path.join(dir, 'runs.jsonl')
    await writeTree(codexHome, {'config.toml': '', 'agents/plain.toml': 'description = "A plain agent."\n'})
    const binDir = path.join(dir, 'bin')
    await writeStandInCodex(binDir, record)
    fixture = {dir, codexHome, record, remove, env: {PATH: `${binDir}${path.delimiter}${process.env.PATH}`}}
    // One dispatch at a time: a call that never ends would hold the only slot.
    client = await connectStdio('v2 (2026-07-28)', ['codex-agent-runtime', 'serve', '--codex-home', codexHome, '--plugin-root', path.join(dir, 'plugins'), '--max-dispatches', '1'], {
      cwd: dir,
      env: fixture.env,
    })
  })

  after(async () => {
    killPids(daemons)
    await client?.close()
    await fixture?.remove()
  })

  /** The pid of the daemon the latest run left, once it wrote it. */
  async function daemonOfLatestRun(): Promise<number> {
    const file = `${fixture.record}.daemon`
    let pid = 0
    await eventually(async () => (pid = Number(await readFile(file, 'utf8').catch(() => ''))) > 0)
    await rm(file)
    daemons.push(pid)
    return pid
  }

  it('answers once the run ends, without waiting for the daemon to close the output', async () => {
    const answer = await (client as TestClient).call('agent_plain', {prompt: 'DAEMON'})
    await daemonOfLatestRun()
    expect(answer.isError, answer.text).to.equal(false)
    expect(answer.text).to.contain('answer: DAEMON')
  })

  it('ends a cancelled call and frees its dispatch slot', async () => {
    const controller = new AbortController()
    const call = (client as TestClient).call('agent_plain', {prompt: 'DAEMON STAY'}, {signal: controller.signal}).catch((error: unknown) => error)
    await daemonOfLatestRun()
    controller.abort()
    await call
    const next = await (client as TestClient).call('agent_plain', {prompt: 'after the cancel'})
    expect(next.isError, next.text).to.equal(false)
    expect(next.text).to.contain('answer: after the cancel')
  })
})
