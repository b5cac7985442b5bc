import {resultFromTaskOutcome} from '@modelcontextprotocol/ext-tasks/client'
import {expect} from 'chai'
import {mkdtemp, rm} from 'node:fs/promises'
import {tmpdir} from 'node:os'
import path from 'node:path'
import {z} from 'zod'

import {RUN_JS} from '../helpers/clients.js'
import {type HttpServerProcess, startHttpServer} from '../helpers/http-server.js'
import {pidsRunning} from '../helpers/server-process.js'
import {type TasksConnection, connectTasksHttp} from '../helpers/tasks-client.js'

type CallToolResult = {content: Array<{type: string; text?: string}>; structuredContent?: Record<string, unknown>}

/**
 * exec_command as an MCP task over Streamable HTTP, 2026-07-28 (stateless: the random task id is
 * the capability), through `ak exec serve --http`, driven by the official clients:
 * `@modelcontextprotocol/client`'s Streamable HTTP transport (which sends the routing headers the
 * revision asks for, `Mcp-Method` and `Mcp-Name`) with the extension's requester
 * `@modelcontextprotocol/ext-tasks` (test/helpers/tasks-client.ts).
 */
const TOKEN = 'tasks-http-token'

describe('exec_command as an MCP task over HTTP (2026-07-28, stateless)', function () {
  this.timeout(120_000)
  let workspace: string
  let server: HttpServerProcess
  const open: TasksConnection[] = []
  const connect = async (declares = true) => {
    const connection = await connectTasksHttp(server.url, TOKEN, declares)
    open.push(connection)
    return connection
  }

  before(async () => {
    workspace = await mkdtemp(path.join(tmpdir(), 'ak-tasks-http-'))
    server = await startHttpServer(RUN_JS, ['exec', 'serve', '--workspace', workspace, '--level', 'terminal', '--http', '127.0.0.1:0'], {env: {AGENTEXEC_TOKEN: TOKEN}})
  })
  afterEach(async () => {
    await Promise.all(open.splice(0).map((connection) => connection.close()))
  })
  after(async () => {
    await server?.stop()
    await rm(workspace, {recursive: true, force: true})
  })

  it('answers a command that outlives its yield with a task that completes with its output', async () => {
    const connection = await connect()
    const execution = await connection.session!.callTool<CallToolResult>('exec_command', {cmd: 'sleep 2; echo over-http', yield_time_ms: 250})
    expect(execution.kind).to.equal('task')
    const {outcome} = await execution.settle()
    expect(outcome.status).to.equal('completed')
    expect(resultFromTaskOutcome(outcome).structuredContent).to.deep.include({exit_code: 0, text: 'over-http\n'})
  })

  it('answers a quick command at once', async () => {
    const connection = await connect()
    const execution = await connection.session!.callTool<CallToolResult>('exec_command', {cmd: 'echo quick'})
    expect(execution.kind).to.equal('immediate')
    expect(resultFromTaskOutcome(await execution.result()).structuredContent).to.deep.include({exit_code: 0, text: 'quick\n'})
  })

  it('answers a client without the extension as before', async () => {
    const connection = await connect(false)
    const plain = (await connection.client.callTool({name: 'exec_command', arguments: {cmd: 'sleep 1; echo later', yield_time_ms: 250}})) as CallToolResult
    expect(plain).not.to.have.property('taskId')
    expect(plain.structuredContent?.exit_code).to.equal('running')
    try {
      await connection.client.request({method: 'tasks/get', params: {taskId: 'any'}} as never, z.looseObject({}) as never)
      expect.fail('tasks/get without the extension was answered')
    } catch (error) {
      expect((error as {code?: number}).code).to.equal(-32021)
    }
  })

  it('stops the command on tasks/cancel', async () => {
    const connection = await connect()
    const marker = `ak-task-http-cancel-${Date.now()}`
    const execution = await connection.session!.callTool<CallToolResult>('exec_command', {cmd: `sh -c 'sleep 300; : ${marker}'`, yield_time_ms: 250})
    expect(execution.kind).to.equal('task')
    expect(pidsRunning(marker).length).to.be.greaterThan(0)
    await execution.cancel()
    expect((await execution.result()).status).to.equal('cancelled')
    expect((await connection.session!.task(execution.handle!.taskId).snapshot()).status).to.equal('cancelled')
    expect(pidsRunning(marker)).to.deep.equal([])
  })

  it('tells a client about a task id it was not given that no such task exists', async () => {
    const connection = await connect()
    try {
      await connection.session!.task('not-a-task-id' as never).snapshot()
      expect.fail('an unknown task id was answered')
    } catch (error) {
      expect((error as {code?: number}).code).to.equal(-32602)
    }
  })
})
