import {type ToolExecution, resultFromTaskOutcome} from '@modelcontextprotocol/ext-tasks/client'
import {expect} from 'chai'
import {mkdtemp, rm} from 'node:fs/promises'
import {tmpdir} from 'node:os'
import path from 'node:path'
import {z} from 'zod'

import {RawConnection} from '../helpers/raw-mcp.js'
import {pidsRunning} from '../helpers/server-process.js'
import {TASKS_EXTENSION_ID, type TasksConnection, connectTasksStdio} from '../helpers/tasks-client.js'

type CallToolResult = {content: Array<{type: string; text?: string}>; structuredContent?: Record<string, unknown>}

/** Calls exec_command through the ext-tasks session of `connection`. */
function execCommand(connection: TasksConnection, args: Record<string, unknown>): Promise<ToolExecution<CallToolResult>> {
  return connection.session!.callTool<CallToolResult>('exec_command', args as never)
}

/** The error a promise rejects with (fails the test when it resolves). */
async function rejection(promise: Promise<unknown>): Promise<{code?: number; message: string}> {
  try {
    await promise
  } catch (error) {
    return error as {code?: number; message: string}
  }
  throw new Error('expected a rejection')
}

/**
 * exec_command as an MCP task (DESIGN §4.11, the Tasks extension `io.modelcontextprotocol/tasks`)
 * through the built server over stdio.
 *
 * 2026-07-28 (the extension declared per request in `_meta`, as Claude Code 2.1.332 sends it):
 * through the official clients, `@modelcontextprotocol/client` with the extension's own requester
 * `@modelcontextprotocol/ext-tasks` (test/helpers/tasks-client.ts), which frames the requests,
 * follows the task with tasks/get and checks every answer against the extension's schemas.
 *
 * 2025-11-25 (the extension declared at `initialize`): through test/helpers/raw-mcp.ts, because no
 * official client declares the extension there: on a 2025-era connection ext-tasks 0.2.2 and the
 * 1.x SDK's experimental tasks speak the in-core 2025-11-25 tasks instead (`capabilities.tasks`,
 * `params.task`, `tasks/result`), which ak does not serve.
 */
describe('exec_command as an MCP task (the Tasks extension)', function () {
  this.timeout(120_000)
  let workspace: string
  const open: Array<{close(): Promise<void>}> = []
  const connect = async (era: '2025-11-25', declares = true) => {
    const connection = await RawConnection.open(workspace, era, declares)
    open.push(connection)
    return connection
  }
  const connectOfficial = async (declares = true) => {
    const connection = await connectTasksStdio(workspace, declares)
    open.push(connection)
    return connection
  }

  before(async () => {
    workspace = await mkdtemp(path.join(tmpdir(), 'ak-tasks-'))
  })
  afterEach(async () => {
    await Promise.all(open.splice(0).map((connection) => connection.close()))
  })
  after(async () => {
    await rm(workspace, {recursive: true, force: true})
  })

  describe('over stdio, protocol 2026-07-28, through @modelcontextprotocol/client with @modelcontextprotocol/ext-tasks', () => {
    it('offers the extension back to the client', async () => {
      const connection = await connectOfficial()
      expect(connection.client.getServerCapabilities()?.extensions).to.deep.include({[TASKS_EXTENSION_ID]: {}})
      expect(connection.session!.capabilities.execution).to.equal(true)
    })

    it('answers a command that outlives its yield with a task that completes with its output', async () => {
      const connection = await connectOfficial()
      const execution = await execCommand(connection, {cmd: 'echo first-line; sleep 2; echo task-done', yield_time_ms: 250})
      expect(execution.kind).to.equal('task')
      const {taskId} = execution.handle!
      const running = await connection.session!.task(taskId).snapshot()
      expect(running.status).to.equal('working')
      expect(running.retentionMs).to.equal(null)
      expect(running.statusMessage).to.match(/^session_id \w+/)
      const {outcome, lastTask} = await execution.settle()
      expect(outcome.status).to.equal('completed')
      const result = resultFromTaskOutcome(outcome)
      expect(result.content[0]!.text).to.match(/^exit_code: 0\nseconds: \d+\.\d{3}\nsession_id: none\ntext:\nfirst-line\ntask-done\n$/)
      expect(result.structuredContent).to.deep.include({exit_code: 0, session_id: 'none', text: 'first-line\ntask-done\n'})
      expect(lastTask?.retentionMs).to.be.a('number')
    })

    it('answers a quick command at once, without a task', async () => {
      const connection = await connectOfficial()
      const execution = await execCommand(connection, {cmd: 'echo quick', yield_time_ms: 10_000})
      expect(execution.kind).to.equal('immediate')
      expect(resultFromTaskOutcome(await execution.result()).content[0]!.text).to.match(/exit_code: 0[\s\S]*text:\nquick\n$/)
    })

    it('keeps the session_id usable with write_stdin while it is a task', async () => {
      const connection = await connectOfficial()
      const execution = await execCommand(connection, {cmd: 'read line; sleep 1; echo "got $line"', yield_time_ms: 250})
      const running = await connection.session!.task(execution.handle!.taskId).snapshot()
      const sessionId = /^session_id (\w+)/.exec(String(running.statusMessage))![1]!
      const typed = await connection.session!.callTool<CallToolResult>('write_stdin', {session_id: sessionId, chars: 'hello\n', yield_time_ms: 250})
      expect(typed.kind).to.equal('immediate')
      const result = resultFromTaskOutcome((await execution.settle()).outcome)
      expect(result.structuredContent?.text).to.contain('got hello')
    })

    it('stops the command’s processes on tasks/cancel and settles the task as cancelled', async () => {
      const connection = await connectOfficial()
      const marker = `ak-task-cancel-official-${Date.now()}`
      const execution = await execCommand(connection, {cmd: `sh -c 'sleep 300; : ${marker}' & sleep 300`, yield_time_ms: 250})
      expect(execution.kind).to.equal('task')
      expect(pidsRunning(marker).length).to.be.greaterThan(0)
      await execution.cancel()
      expect((await execution.result()).status).to.equal('cancelled')
      expect((await connection.session!.task(execution.handle!.taskId).snapshot()).status).to.equal('cancelled')
      expect(pidsRunning(marker)).to.deep.equal([])
    })

    it('lets no other connection get or cancel a task', async () => {
      const owner = await connectOfficial()
      const other = await connectOfficial()
      const execution = await execCommand(owner, {cmd: 'sleep 3; echo mine', yield_time_ms: 250})
      const foreign = other.session!.task(execution.handle!.taskId)
      expect((await rejection(foreign.snapshot())).code, 'tasks/get').to.equal(-32602)
      expect((await rejection(foreign.cancel())).code, 'tasks/cancel').to.equal(-32602)
      const {outcome} = await execution.settle()
      expect(outcome.status).to.equal('completed')
      expect(resultFromTaskOutcome(outcome).structuredContent?.text).to.equal('mine\n')
    })

    it('answers as before for a client that does not declare the extension', async () => {
      const connection = await connectOfficial(false)
      const answer = (await connection.client.callTool({name: 'exec_command', arguments: {cmd: 'sleep 2; echo later', yield_time_ms: 250}})) as CallToolResult
      expect(answer).not.to.have.property('taskId')
      expect(answer.structuredContent?.exit_code).to.equal('running')
      const refused = await rejection(connection.client.request({method: 'tasks/get', params: {taskId: 'any'}} as never, z.looseObject({}) as never))
      expect(refused.code).to.equal(-32021)
    })
  })

  for (const era of ['2025-11-25'] as const) {
    describe(`over stdio, protocol ${era} (raw JSON-RPC)`, () => {
      it('answers a command that outlives its yield with a task that completes with its output', async () => {
        const connection = await connect(era)
        const created = await connection.call({cmd: 'echo first-line; sleep 2; echo task-done', yield_time_ms: 250})
        expect(created.resultType).to.equal('task')
        expect(created.status).to.equal('working')
        expect(created).to.include.keys('taskId', 'createdAt', 'lastUpdatedAt', 'ttlMs', 'pollIntervalMs')
        expect(created).not.to.have.any.keys('content', 'task', 'result')
        expect(String(created.statusMessage)).to.match(/^session_id \w+/)
        const ended = await connection.settle(String(created.taskId))
        expect(ended.status).to.equal('completed')
        const result = ended.result as {content: Array<{text: string}>; structuredContent: Record<string, unknown>}
        expect(result.content[0]!.text).to.match(/^exit_code: 0\nseconds: \d+\.\d{3}\nsession_id: none\ntext:\nfirst-line\ntask-done\n$/)
        expect(result.structuredContent).to.deep.include({exit_code: 0, session_id: 'none', text: 'first-line\ntask-done\n'})
        // A 2025-era CallToolResult has no resultType (2026-07-28's carries "complete").
        expect(result).not.to.have.property('resultType')
        expect(ended.ttlMs).to.be.a('number')
      })

      it('answers a quick command at once, without a task', async () => {
        const connection = await connect(era)
        const answer = await connection.call({cmd: 'echo quick', yield_time_ms: 10_000})
        expect(answer.resultType ?? 'complete').to.equal('complete')
        expect(answer).not.to.have.property('taskId')
        expect((answer.content as Array<{text: string}>)[0]!.text).to.match(/exit_code: 0[\s\S]*text:\nquick\n$/)
      })

      it('keeps the session_id usable with write_stdin while it is a task', async () => {
        const connection = await connect(era)
        const created = await connection.call({cmd: 'read line; sleep 1; echo "got $line"', yield_time_ms: 250})
        const sessionId = /^session_id (\w+)/.exec(String(created.statusMessage))![1]!
        const typed = await connection.request('tools/call', {name: 'write_stdin', arguments: {session_id: sessionId, chars: 'hello\n', yield_time_ms: 250}})
        expect(typed.error).to.equal(undefined)
        const ended = await connection.settle(String(created.taskId))
        expect(ended.status).to.equal('completed')
        expect(JSON.stringify(ended.result)).to.contain('got hello')
      })

      it('stops the command’s processes on tasks/cancel and settles the task as cancelled', async () => {
        const connection = await connect(era)
        const marker = `ak-task-cancel-${era}-${Date.now()}`
        const created = await connection.call({cmd: `sh -c 'sleep 300; : ${marker}' & sleep 300`, yield_time_ms: 250})
        expect(pidsRunning(marker).length).to.be.greaterThan(0)
        const ack = await connection.request('tasks/cancel', {taskId: created.taskId})
        expect(ack.error).to.equal(undefined)
        expect(Object.keys(ack.result!).filter((key) => key !== 'resultType' && key !== '_meta')).to.deep.equal([])
        const got = await connection.request('tasks/get', {taskId: created.taskId})
        expect(got.result!.status).to.equal('cancelled')
        expect(pidsRunning(marker)).to.deep.equal([])
      })

      it('lets no other connection get or cancel a task', async () => {
        const owner = await connect(era)
        const other = await connect(era)
        const created = await owner.call({cmd: 'sleep 3; echo mine', yield_time_ms: 250})
        for (const method of ['tasks/get', 'tasks/cancel']) {
          const reply = await other.request(method, {taskId: created.taskId})
          expect(reply.error?.code, method).to.equal(-32602)
        }
        expect((await owner.settle(String(created.taskId))).status).to.equal('completed')
      })

      it('answers as before for a client that does not declare the extension', async () => {
        const connection = await connect(era, false)
        const answer = await connection.call({cmd: 'sleep 2; echo later', yield_time_ms: 250})
        expect(answer).not.to.have.property('taskId')
        expect((answer.structuredContent as Record<string, unknown>).exit_code).to.equal('running')
        const reply = await connection.request('tasks/get', {taskId: 'any'})
        expect(reply.error?.code).to.equal(-32021)
      })
    })
  }

  it('sends notifications/tasks/status on a 2025-era connection that declared the extension', async () => {
    const connection = await connect('2025-11-25')
    const created = await connection.call({cmd: 'echo status-one; sleep 3; echo status-two', yield_time_ms: 250})
    await new Promise((resolve) => setTimeout(resolve, 4_000))
    const statuses = connection.notifications.filter((note) => note.method === 'notifications/tasks/status' && note.params.taskId === created.taskId)
    expect(statuses.some((note) => note.params.status === 'completed')).to.equal(true)
  })
})
