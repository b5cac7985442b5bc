import {type ToolExecution, resultFromTaskOutcome} from '@modelcontextprotocol/ext-tasks/client'
import {expect} from 'chai'
import {readFile} from 'node:fs/promises'
import path from 'node:path'

import {eventually, isAlive, tempDir, trustConfig, writeStandInCodex, writeTree} from '../helpers/codex-fixtures.js'
import {type TasksConnection, connectTasksStdio} from '../helpers/tasks-client.js'

type CallToolResult = {content: Array<{type: string; text?: string}>; isError?: boolean}

/**
 * agent_<slug> calls as MCP tasks (DESIGN §4.11) through the built `ak codex-agent-runtime serve`
 * over stdio with a stand-in `codex` on PATH, for a client that declares the Tasks extension
 * (2026-07-28, per request: the official `@modelcontextprotocol/client` with the extension's
 * requester `@modelcontextprotocol/ext-tasks`, test/helpers/tasks-client.ts): a run longer than AGENT_CALL_YIELD_MS becomes a task that completes
 * with the agent's answer, tasks/cancel stops the run, a quick failure answers at once.
 */
describe('agent calls as MCP tasks', function () {
  this.timeout(120_000)
  let dir: string
  let remove: () => Promise<void>
  let record: string
  let connection: TasksConnection
  const callAgent = (prompt: string): Promise<ToolExecution<CallToolResult>> =>
    connection.session!.callTool<CallToolResult>('agent_helper', {prompt})

  before(async () => {
    ;({dir, remove} = await tempDir('ak-agent-tasks-'))
    const project = path.join(dir, 'project')
    const codexHome = path.join(dir, 'codex-home')
    record = path.join(dir, 'runs.jsonl')
    await writeTree(project, {'.git/HEAD': '', '.codex/agents/helper.toml': 'description = "Helps."\n'})
    await writeTree(codexHome, {'config.toml': trustConfig({[project]: 'trusted'})})
    await writeStandInCodex(path.join(dir, 'bin'), record)
    connection = await connectTasksStdio(project, true, {
      args: ['codex-agent-runtime', 'serve', '--codex-home', codexHome],
      env: {PATH: `${path.join(dir, 'bin')}${path.delimiter}${process.env.PATH}`},
    })
  })
  after(async () => {
    await connection?.close()
    await remove?.()
  })

  it('answers a long run with a task that completes with the agent’s final message', async () => {
    const execution = await callAgent('SLOW please')
    expect(execution.kind).to.equal('task')
    const {outcome} = await execution.settle()
    expect(outcome.status).to.equal('completed')
    expect(JSON.stringify(resultFromTaskOutcome(outcome).content)).to.contain('answer: SLOW please')
  })

  it('answers a run that fails at once without a task', async () => {
    const execution = await callAgent('FAIL now')
    expect(execution.kind).to.equal('immediate')
    const answer = resultFromTaskOutcome(await execution.result())
    expect(answer.isError).to.equal(true)
    expect(JSON.stringify(answer.content)).to.contain('model exploded')
  })

  it('stops the run on tasks/cancel', async () => {
    const execution = await callAgent('HANG here')
    expect(execution.kind).to.equal('task')
    const pids = JSON.parse(await readFile(`${record}.pids`, 'utf8')) as number[]
    await execution.cancel()
    expect((await execution.result()).status).to.equal('cancelled')
    expect((await connection.session!.task(execution.handle!.taskId).snapshot()).status).to.equal('cancelled')
    await eventually(() => pids.every((pid) => !isAlive(pid)))
  })
})
