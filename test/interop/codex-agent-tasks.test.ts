import {expect} from 'chai'
import {readFile} from 'node:fs/promises'
import path from 'node:path'

import {eventually, isAlive, tempDir, trustConfig, writeStandInCodex, writeTree} from '../helpers/codex-fixtures.js'
import {RawConnection} from '../helpers/raw-mcp.js'

/**
 * agent_<slug> calls as MCP tasks (DESIGN §4.11) through the built `ak codex-agent-runtime serve`
 * over stdio with a stand-in `codex` on PATH, for a client that declares the Tasks extension
 * (2026-07-28, per request): a run longer than AGENT_CALL_YIELD_MS becomes a task that completes
 * with the agent's answer, tasks/cancel stops the run, a quick failure answers at once.
 */
describe('agent calls as MCP tasks', function () {
  this.timeout(120_000)
  let dir: string
  let remove: () => Promise<void>
  let record: string
  let connection: RawConnection

  before(async () => {
    ;({dir, remove} = await tempDir('ak-agent-tasks-'))
    const project = path.join(dir, 'project')
    const codexHome = path.join(dir, 'codex-home')
    record = path.join(dir, 'runs.jsonl')
    await writeTree(project, {'.git/HEAD': '', '.codex/agents/helper.toml': 'description = "Helps."\n'})
    await writeTree(codexHome, {'config.toml': trustConfig({[project]: 'trusted'})})
    await writeStandInCodex(path.join(dir, 'bin'), record)
    connection = await RawConnection.open(project, '2026-07-28', true, ['codex-agent-runtime', 'serve', '--codex-home', codexHome], {
      PATH: `${path.join(dir, 'bin')}${path.delimiter}${process.env.PATH}`,
    })
  })
  after(async () => {
    await connection?.close()
    await remove?.()
  })

  it('answers a long run with a task that completes with the agent’s final message', async () => {
    const created = await connection.call({prompt: 'SLOW please'}, 'agent_helper')
    expect(created.resultType).to.equal('task')
    const ended = await connection.settle(String(created.taskId))
    expect(ended.status).to.equal('completed')
    expect(JSON.stringify(ended.result)).to.contain('answer: SLOW please')
  })

  it('answers a run that fails at once without a task', async () => {
    const answer = await connection.call({prompt: 'FAIL now'}, 'agent_helper')
    expect(answer).not.to.have.property('taskId')
    expect(answer.isError).to.equal(true)
    expect(JSON.stringify(answer.content)).to.contain('model exploded')
  })

  it('stops the run on tasks/cancel', async () => {
    const created = await connection.call({prompt: 'HANG here'}, 'agent_helper')
    expect(created.resultType).to.equal('task')
    const pids = JSON.parse(await readFile(`${record}.pids`, 'utf8')) as number[]
    await connection.request('tasks/cancel', {taskId: created.taskId})
    expect((await connection.request('tasks/get', {taskId: created.taskId})).result!.status).to.equal('cancelled')
    await eventually(() => pids.every((pid) => !isAlive(pid)))
  })
})
