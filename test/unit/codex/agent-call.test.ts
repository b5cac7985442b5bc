import {expect} from 'chai'
import {readFile} from 'node:fs/promises'
import path from 'node:path'

import {agentAnswer, answerText, runAgentCall} from '../../../src/codex/agent-call.js'
import type {DispatchOutcome} from '../../../src/codex/dispatch.js'
import {createCodexAgentRuntime} from '../../../src/codex/runtime.js'
import {BadInputError, DispatchFailedError} from '../../../src/errors.js'
import {eventually, standInRuns, tempDir, writeStandInCodex, writeTree} from '../../helpers/codex-fixtures.js'

const agent = {slug: 'reviewer', file: '/agents/reviewer.toml', origin: {kind: 'user' as const}}
const outcome = (fields: Partial<DispatchOutcome>): DispatchOutcome => ({
  exitCode: 0,
  signal: null,
  stdout: '',
  stdoutDroppedBytes: 0,
  stderr: '',
  stderrDroppedBytes: 0,
  ...fields,
})

describe('the answer of an agent call', () => {
  it("is the agent's final message without its last newline", () => {
    expect(answerText(agent, outcome({stdout: 'Two problems.\n'}))).to.equal('Two problems.')
  })

  it('says when output was cut and how much', () => {
    expect(answerText(agent, outcome({stdout: 'x', stdoutDroppedBytes: 99}))).to.equal(
      "x\n[output cut: 99 more bytes of the agent's output were dropped]",
    )
  })

  it('says when the agent printed nothing', () => {
    expect(answerText(agent, outcome({stdout: ''}))).to.equal('(the agent finished without a final message)')
    expect(agentAnswer(agent, outcome({stdout: ''})).structured).to.deep.equal({final_message: '', output_dropped_bytes: 0})
    expect(agentAnswer(agent, outcome({stdout: 'x\n', stdoutDroppedBytes: 99})).structured).to.deep.equal({final_message: 'x', output_dropped_bytes: 99})
  })

  it('fails with the exit code and the captured stderr, noting a cut beginning', () => {
    const run = () => answerText(agent, outcome({exitCode: 1, stderr: 'quota exceeded\n', stderrDroppedBytes: 10}))
    expect(run).to.throw(DispatchFailedError, 'codex exec for agent_reviewer exited with code 1. Its stderr:\n[the first 10 bytes of stderr were dropped]\nquota exceeded')
  })

  it('fails with the signal when the process was killed', () => {
    expect(() => answerText(agent, outcome({exitCode: null, signal: 'SIGKILL'}))).to.throw(DispatchFailedError, 'was stopped by SIGKILL. Its stderr:\n(nothing on stderr)')
  })
})

describe('agent calls waiting for a dispatch slot', () => {
  let root: string
  let remove: () => Promise<void>
  let record: string

  beforeEach(async () => {
    ;({dir: root, remove} = await tempDir('ak-agent-call-'))
    record = path.join(root, 'runs.jsonl')
    await writeTree(root, {
      'home/.keep': '',
      'work/.keep': '',
      // The first agent's file is the largest (long comments), so it takes the longest to read and plan.
      'codex-home/agents/first.toml': `description = "First."\n${'# Be thorough, and quote the lines you mean.\n'.repeat(20_000)}`,
      'codex-home/agents/second.toml': '',
      'codex-home/agents/third.toml': '',
    })
  })
  afterEach(() => remove())

  async function runtime() {
    const codex = await writeStandInCodex(path.join(root, 'bin'), record)
    return createCodexAgentRuntime({
      codexHome: path.join(root, 'codex-home'),
      pluginRoot: path.join(root, 'plugins'),
      cwd: path.join(root, 'work'),
      homeDir: path.join(root, 'home'),
      env: {},
      maxDispatches: 1,
      codexCommand: codex,
    })
  }

  it('start in the order they arrived, however long each takes to plan', async () => {
    const served = await runtime()
    const agent = (slug: string) => served.discovery.agents.find((found) => found.slug === slug)!
    const signal = new AbortController().signal
    const order = ['first', 'second', 'third', 'second']
    await Promise.all(order.map((slug) => runAgentCall(served, agent(slug), {prompt: slug}, {signal})))
    expect((await standInRuns(record)).map((run) => run.stdin)).to.deep.equal(order)
  })

  it('leave the line when their plan is refused, and hold no slot', async () => {
    const served = await runtime()
    const agent = (slug: string) => served.discovery.agents.find((found) => found.slug === slug)!
    const running = new AbortController()
    const hanging = runAgentCall(served, agent('second'), {prompt: 'HANG'}, {signal: running.signal}).catch((error: unknown) => error)
    await eventually(async () => (await readFile(`${record}.pids`, 'utf8').catch(() => '')) !== '')
    const refused = await runAgentCall(served, agent('third'), {prompt: 'x', tools: ['nosuch']}, {signal: new AbortController().signal}).catch((error: unknown) => error)
    expect(refused).to.be.instanceOf(BadInputError)
    expect(served.limiter.waiting).to.equal(0)
    running.abort()
    expect(await hanging).to.be.instanceOf(DispatchFailedError)
    expect(await runAgentCall(served, agent('first'), {prompt: 'after'}, {signal: new AbortController().signal})).to.deep.equal({
      text: 'answer: after',
      structured: {final_message: 'answer: after', output_dropped_bytes: 0},
    })
    expect(served.limiter.active).to.equal(0)
  })
})
