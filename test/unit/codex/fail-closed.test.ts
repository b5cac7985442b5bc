import {expect} from 'chai'
import {chmod, rm} from 'node:fs/promises'
import path from 'node:path'

import {planAgentCall} from '../../../src/codex/agent-call.js'
import {inspectAgent, renderAgentReport} from '../../../src/codex/inspect.js'
import {AGENT_FILE_MAX_BYTES} from '../../../src/codex/limits.js'
import {createCodexAgentRuntime} from '../../../src/codex/runtime.js'
import {DispatchFailedError} from '../../../src/errors.js'
import {tempDir, writeTree} from '../../helpers/codex-fixtures.js'

/** Restrictions never silently disappear: every way an agent file goes wrong fails closed. */
describe('an agent file that goes wrong', () => {
  let root: string
  let remove: () => Promise<void>
  let codexHome: string

  beforeEach(async () => {
    ;({dir: root, remove} = await tempDir('ak-fail-closed-'))
    codexHome = path.join(root, 'codex-home')
    await writeTree(root, {'home/.keep': '', 'work/.keep': ''})
  })
  afterEach(async () => {
    await chmod(path.join(codexHome, 'agents', 'reviewer.toml'), 0o644).catch(() => undefined)
    await remove()
  })

  const runtime = () =>
    createCodexAgentRuntime({codexHome, pluginRoot: path.join(root, 'plugins'), cwd: path.join(root, 'work'), homeDir: path.join(root, 'home'), env: {}})
  const agentFile = () => path.join(codexHome, 'agents', 'reviewer.toml')
  const restricted = 'description = "Reviews"\nsandbox_mode = "read-only"\ndeveloper_instructions = "Never edit files."\n'

  it('lists a readable file over the size limit as invalid, with the reason, and fails every call', async () => {
    await writeTree(codexHome, {'agents/reviewer.toml': restricted + `# ${'x'.repeat(AGENT_FILE_MAX_BYTES)}\n`})
    const served = await runtime()
    const [agent] = served.discovery.agents
    expect(agent?.state.status).to.equal('invalid')
    expect(agent?.state.status === 'invalid' && agent.state.reason).to.contain(`larger than ${AGENT_FILE_MAX_BYTES} bytes`)
    expect(served.discovery.notes.join('\n')).to.contain('Every call to agent_reviewer fails until it is fixed.')
    const error = await planAgentCall(served, agent!).catch((caught: unknown) => caught)
    expect(error).to.be.instanceOf(DispatchFailedError)
    expect((error as Error).message).to.contain(`larger than ${AGENT_FILE_MAX_BYTES} bytes`)
    const report = await inspectAgent(served, 'reviewer')
    expect(report.status).to.equal('invalid')
    expect(report.args).to.equal(undefined)
    expect(renderAgentReport(report)).not.to.contain('command:')
  })

  it('fails a call when the file is gone since the server started, saying so', async () => {
    await writeTree(codexHome, {'agents/reviewer.toml': restricted})
    const served = await runtime()
    await rm(agentFile())
    const error = await planAgentCall(served, served.discovery.agents[0]!).catch((caught: unknown) => caught)
    expect(error).to.be.instanceOf(DispatchFailedError)
    expect((error as Error).message).to.match(/agent_reviewer cannot run: its agent file .*reviewer\.toml no longer exists/)
  })

  // A folder where the file was cannot be read (EISDIR) even by root, unlike a file without read permission.
  it('keeps the discovered policy when the file became unreadable', async () => {
    await writeTree(codexHome, {'agents/reviewer.toml': restricted})
    const served = await runtime()
    await rm(agentFile())
    await writeTree(codexHome, {'agents/reviewer.toml/inner': ''}) // EISDIR when read: exists, cannot be read
    const plan = await planAgentCall(served, served.discovery.agents[0]!)
    expect(plan.args).to.include.members(['-s', 'read-only'])
    expect(plan.args.join(' ')).to.contain('developer_instructions="Never edit files."')
  })

  it('fails a call when a file discovered invalid became unreadable', async () => {
    await writeTree(codexHome, {'agents/reviewer.toml': 'sandbox_mode = "read_only"\n'})
    const served = await runtime()
    await rm(agentFile())
    await writeTree(codexHome, {'agents/reviewer.toml/inner': ''})
    const error = await planAgentCall(served, served.discovery.agents[0]!).catch((caught: unknown) => caught)
    expect(error).to.be.instanceOf(DispatchFailedError)
  })

  it('says what is wrong with a bad sandbox_mode in one sentence and what to do once', async () => {
    await writeTree(codexHome, {'agents/reviewer.toml': 'sandbox_mode = "read_only"\n'})
    const served = await runtime()
    const error = (await planAgentCall(served, served.discovery.agents[0]!).catch((caught: unknown) => caught)) as Error
    expect(error.message).not.to.match(/\.\./)
    expect(error.message.match(/Fix/g)).to.have.length(1)
    expect(error.message).to.match(/sandbox_mode = "read_only" is not one of read-only, workspace-write, danger-full-access\. Fix the agent file; the next call reads it again\.$/)
    expect(served.discovery.notes.join('\n').match(/Fix/g) ?? []).to.have.length.at.most(1)
  })
})

describe('the recursion guard', () => {
  let root: string
  let remove: () => Promise<void>
  let codexHome: string
  let repo: string

  const runtimeLine = (name: string) => `[mcp_servers.${name}]\ncommand = "node"\nargs = ["/opt/ak/bin/run.js", "codex-agent-runtime", "serve"]\n`
  beforeEach(async () => {
    ;({dir: root, remove} = await tempDir('ak-guard-'))
    codexHome = path.join(root, 'codex-home')
    repo = path.join(root, 'repo')
    await writeTree(root, {'home/.keep': '', 'repo/.git/HEAD': '', 'repo/src/.keep': '', 'codex-home/agents/reviewer.toml': 'description = "Reviews"\n'})
  })
  afterEach(() => remove())

  const plan = async (cwd: string) => {
    const served = await createCodexAgentRuntime({
      codexHome,
      pluginRoot: path.join(root, 'plugins'),
      cwd,
      homeDir: path.join(root, 'home'),
      env: {},
      systemConfig: path.join(root, 'etc-codex', 'config.toml'),
    })
    return planAgentCall(served, served.discovery.agents[0]!)
  }
  const trust = (level: string) => `[projects.${JSON.stringify(repo)}]\ntrust_level = "${level}"\n`

  it("disables the runtime registered in a trusted project's .codex/config.toml, at the project root and below it", async () => {
    await writeTree(root, {
      'codex-home/config.toml': trust('trusted'),
      'repo/.codex/config.toml': runtimeLine('project_agents'),
      'repo/src/.codex/config.toml': runtimeLine('nested_agents'),
    })
    const args = (await plan(path.join(repo, 'src'))).args
    expect(args).to.include('mcp_servers.project_agents.enabled=false')
    expect(args).to.include('mcp_servers.nested_agents.enabled=false')
  })

  it("disables the runtime registered in Codex's system config", async () => {
    await writeTree(root, {'etc-codex/config.toml': runtimeLine('system_agents')})
    expect((await plan(repo)).args).to.include('mcp_servers.system_agents.enabled=false')
  })

  it("leaves an untrusted project's config alone, as Codex does not load it", async () => {
    await writeTree(root, {'codex-home/config.toml': trust('untrusted'), 'repo/.codex/config.toml': runtimeLine('project_agents')})
    expect((await plan(repo)).args.join(' ')).not.to.contain('project_agents')
  })

  it("fails the call when a trusted project's config does not parse", async () => {
    await writeTree(root, {'codex-home/config.toml': trust('trusted'), 'repo/.codex/config.toml': '[mcp_servers\n'})
    const error = await plan(repo).catch((caught: unknown) => caught)
    expect(error).to.be.instanceOf(DispatchFailedError)
    expect((error as Error).message).to.contain(path.join(repo, '.codex', 'config.toml'))
  })
})
