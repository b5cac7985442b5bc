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
