import {expect} from 'chai'
import {mkdtemp, rm} from 'node:fs/promises'
import {tmpdir} from 'node:os'
import path from 'node:path'

import {RUN_JS} from '../helpers/clients.js'
import {type HttpServerProcess, startHttpServer} from '../helpers/http-server.js'
import {pidsRunning} from '../helpers/server-process.js'

/**
 * exec_command as an MCP task over Streamable HTTP, 2026-07-28 (stateless: the random task id is
 * the capability), through `ak exec serve --http`: each request carries the extension in its
 * `_meta` clientCapabilities (or not) and the routing headers the revision asks for
 * (`Mcp-Method`, and `Mcp-Name` = the tool's name or the task id).
 */
const TOKEN = 'tasks-http-token'
let nextId = 0

async function post(url: string, method: string, params: Record<string, unknown>, declares = true): Promise<{result?: Record<string, unknown>; error?: {code: number}}> {
  const name = typeof params.taskId === 'string' ? params.taskId : typeof params.name === 'string' ? params.name : undefined
  const body = {
    jsonrpc: '2.0',
    id: ++nextId,
    method,
    params: {
      ...params,
      _meta: {
        'io.modelcontextprotocol/protocolVersion': '2026-07-28',
        'io.modelcontextprotocol/clientInfo': {name: 'ak-tests', version: '1'},
        'io.modelcontextprotocol/clientCapabilities': declares ? {extensions: {'io.modelcontextprotocol/tasks': {}}} : {},
      },
    },
  }
  const response = await fetch(url, {
    method: 'POST',
    headers: {
      authorization: `Bearer ${TOKEN}`,
      'content-type': 'application/json',
      accept: 'application/json, text/event-stream',
      'mcp-protocol-version': '2026-07-28',
      'mcp-method': method,
      ...(name === undefined ? {} : {'mcp-name': name}),
    },
    body: JSON.stringify(body),
  })
  const text = await response.text()
  const json = text.startsWith('{') ? text : (/^data: (.*)$/m.exec(text)?.[1] ?? text)
  return JSON.parse(json) as {result?: Record<string, unknown>; error?: {code: number}}
}

describe('exec_command as an MCP task over HTTP (2026-07-28, stateless)', function () {
  this.timeout(120_000)
  let workspace: string
  let server: HttpServerProcess

  before(async () => {
    workspace = await mkdtemp(path.join(tmpdir(), 'ak-tasks-http-'))
    server = await startHttpServer(RUN_JS, ['exec', 'serve', '--workspace', workspace, '--level', 'terminal', '--http', '127.0.0.1:0'], {env: {AGENTEXEC_TOKEN: TOKEN}})
  })
  after(async () => {
    await server?.stop()
    await rm(workspace, {recursive: true, force: true})
  })

  it('answers a command that outlives its yield with a task that completes with its output', async () => {
    const created = await post(server.url, 'tools/call', {name: 'exec_command', arguments: {cmd: 'sleep 2; echo over-http', yield_time_ms: 250}})
    expect(created.result!.resultType).to.equal('task')
    let task: Record<string, unknown> = {}
    for (let tries = 0; tries < 100; tries++) {
      task = (await post(server.url, 'tasks/get', {taskId: created.result!.taskId})).result!
      if (task.status !== 'working') break
      await new Promise((resolve) => setTimeout(resolve, 200))
    }
    expect(task.status).to.equal('completed')
    expect(JSON.stringify(task.result)).to.contain('over-http')
  })

  it('answers a quick command at once, and a client without the extension as before', async () => {
    const quick = await post(server.url, 'tools/call', {name: 'exec_command', arguments: {cmd: 'echo quick'}})
    expect(quick.result).not.to.have.property('taskId')
    const plain = await post(server.url, 'tools/call', {name: 'exec_command', arguments: {cmd: 'sleep 1; echo later', yield_time_ms: 250}}, false)
    expect(plain.result).not.to.have.property('taskId')
    expect((plain.result!.structuredContent as Record<string, unknown>).exit_code).to.equal('running')
    expect((await post(server.url, 'tasks/get', {taskId: 'any'}, false)).error?.code).to.equal(-32021)
  })

  it('stops the command on tasks/cancel', async () => {
    const marker = `ak-task-http-cancel-${Date.now()}`
    const created = await post(server.url, 'tools/call', {name: 'exec_command', arguments: {cmd: `sh -c 'sleep 300; : ${marker}'`, yield_time_ms: 250}})
    expect(pidsRunning(marker).length).to.be.greaterThan(0)
    await post(server.url, 'tasks/cancel', {taskId: created.result!.taskId})
    expect((await post(server.url, 'tasks/get', {taskId: created.result!.taskId})).result!.status).to.equal('cancelled')
    expect(pidsRunning(marker)).to.deep.equal([])
  })
})
