/**
 * The fixture server the MCP conformance suite's `tasks-*` scenarios need (each scenario names
 * its fixture tools), built on ak's own task layer: src/mcp/tasks (TaskStore, serveTasks), the
 * code AgentExec's exec_command and the agent runtime's agent_<slug> tools run on. Only the tools
 * are fixtures; negotiation, tasks/get, tasks/cancel, tasks/update, ownership and the
 * CreateTaskResult are ak's. Served over Streamable HTTP, 2026-07-28 (stateless: every request
 * gets a fresh server instance, all sharing one TaskStore, as AgentExec's HTTP endpoint does).
 */
import {type Server, createServer} from 'node:http'
import type {AddressInfo} from 'node:net'

import {McpServer, ProtocolError, ProtocolErrorCode, acceptedContent, createMcpHandler, inputRequired} from '@modelcontextprotocol/server'
import {z} from 'zod'

import {toNodeBridge} from '../../../src/exec/http/node-bridge.js'
import {type TaskOffer, serveTasks} from '../../../src/mcp/tasks/serve-tasks.js'
import {TaskStore, type TaskWork} from '../../../src/mcp/tasks/task-store.js'

/** A running fixture server. */
export interface TasksFixture {
  url: string
  store: TaskStore
  close(): Promise<void>
}

/** Tools that only run as tasks: a call from a client without the extension is refused with -32021. */
const REQUIRED = new Set(['failing_job', 'test_tool_with_task'])

function text(value: string): Record<string, unknown> {
  return {content: [{type: 'text', text: value}]}
}

/** Work that settles after `ms` with `settle()`, stopped by cancel. */
function timedWork(ms: number, settle: () => Record<string, unknown>): TaskWork {
  let timer: NodeJS.Timeout | undefined
  let stop!: () => void
  const outcome = new Promise<Record<string, unknown>>((resolve, reject) => {
    stop = () => reject(new Error('cancelled'))
    timer = setTimeout(() => {
      try {
        resolve(settle())
      } catch (error) {
        reject(error as Error)
      }
    }, ms)
  })
  outcome.catch(() => undefined)
  return {
    outcome,
    cancel: () => {
      clearTimeout(timer)
      stop()
      return Promise.resolve()
    },
  }
}

/** Work that asks its client for input (elicitations, one per key) and settles once every key is answered. */
function inputWork(keys: string[], settle: (answers: Record<string, unknown>) => Record<string, unknown>): TaskWork {
  const pending = new Map(
    keys.map((key) => [
      key,
      {
        method: 'elicitation/create',
        params: {
          mode: 'form',
          message: `Confirm ${key}?`,
          requestedSchema: {type: 'object', properties: {confirm: {type: 'boolean'}, name: {type: 'string'}}},
        },
      },
    ]),
  )
  const answers: Record<string, unknown> = {}
  let resolve!: (result: Record<string, unknown>) => void
  let reject!: (error: Error) => void
  const outcome = new Promise<Record<string, unknown>>((ok, fail) => ((resolve = ok), (reject = fail)))
  outcome.catch(() => undefined)
  return {
    outcome,
    cancel: () => {
      reject(new Error('cancelled'))
      return Promise.resolve()
    },
    inputRequests: () => (pending.size === 0 ? undefined : Object.fromEntries(pending)),
    update(responses) {
      for (const [key, response] of Object.entries(responses)) {
        if (!pending.delete(key)) continue
        answers[key] = response
      }
      if (pending.size === 0) resolve(settle(answers))
    },
  }
}

function createFixtureServer(store: TaskStore): McpServer {
  const server = new McpServer({name: 'ak-tasks-fixture', version: '1.0.0'}, {capabilities: {tools: {}}})
  let offerFor: ((ctx: Parameters<ReturnType<typeof serveTasks>['offerFor']>[0]) => TaskOffer | undefined) | undefined
  const startTask = (ctx: Parameters<NonNullable<typeof offerFor>>[0], work: TaskWork, placeholder: string) => {
    const offer = offerFor?.(ctx)
    if (!offer?.start(work)) return work.outcome
    return Promise.resolve(text(placeholder))
  }

  server.registerTool('greet', {description: 'Greets by name, at once.', inputSchema: z.object({name: z.string()})}, ({name}) =>
    Promise.resolve(text(`Hello, ${name}!`)) as never,
  )
  server.registerTool(
    'slow_compute',
    {description: 'Sleeps `seconds` then answers; a task when it takes time.', inputSchema: z.object({seconds: z.number(), label: z.string().optional()})},
    ({seconds, label}, ctx) => {
      const settle = () => text(`computed ${label ?? ''} after ${seconds}s`)
      if (seconds <= 0) return Promise.resolve(settle()) as never
      return startTask(ctx, timedWork(seconds * 1000, settle), 'started') as never
    },
  )
  server.registerTool('failing_job', {description: 'Fails as a tool after about a second; only runs as a task.', inputSchema: z.object({})}, (_args, ctx) =>
    startTask(ctx, timedWork(1000, () => ({...text('The job failed: nothing to process.'), isError: true})), 'started') as never,
  )
  server.registerTool('protocol_error_job', {description: 'Fails with a JSON-RPC error; a task.', inputSchema: z.object({})}, (_args, ctx) =>
    startTask(
      ctx,
      timedWork(300, () => {
        throw new ProtocolError(ProtocolErrorCode.InternalError, 'The job broke at the protocol level.')
      }),
      'started',
    ) as never,
  )
  server.registerTool('confirm_delete', {description: 'Asks to confirm, then deletes; a task.', inputSchema: z.object({filename: z.string()})}, ({filename}, ctx) =>
    startTask(ctx, inputWork(['confirm'], () => text(`Deleted ${filename}.`)), 'asking') as never,
  )
  server.registerTool('multi_input', {description: 'Asks two things at once; a task.', inputSchema: z.object({})}, (_args, ctx) =>
    startTask(ctx, inputWork(['first', 'second'], (answers) => text(`Got ${Object.keys(answers).join(' and ')}.`)), 'asking') as never,
  )
  server.registerTool('test_tool_with_task', {description: 'Asks for a name, then greets it as a task.', inputSchema: z.object({})}, (_args, ctx) => {
    const answer = acceptedContent(ctx.mcpReq.inputResponses, 'user_name')
    const name = typeof answer?.name === 'string' ? answer.name : undefined
    if (name === undefined) {
      return Promise.resolve(
        inputRequired({
          inputRequests: {user_name: inputRequired.elicit({message: 'Your name?', requestedSchema: z.object({name: z.string()})})},
        }),
      ) as never
    }
    return startTask(ctx, timedWork(300, () => text(`Hello, ${name}, from a task.`)), 'greeting') as never
  })
  const served = serveTasks(server, store, undefined, {requiredFor: REQUIRED})
  offerFor = (ctx) => served.offerFor(ctx)
  return server
}

/** Starts the fixture on 127.0.0.1 with a free port. */
export async function startTasksFixture(): Promise<TasksFixture> {
  const store = new TaskStore({pollIntervalMs: 200})
  const handler = createMcpHandler(() => createFixtureServer(store), {legacy: 'reject'})
  const node = toNodeBridge((request) => handler.fetch(request), {maxBodyBytes: 1024 * 1024, onerror: () => undefined})
  const server: Server = createServer((req, res) => void node(req, res))
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  return {
    url: `http://localhost:${(server.address() as AddressInfo).port}/mcp`,
    store,
    async close() {
      await store.close()
      await handler.close()
      server.closeAllConnections()
      await new Promise((resolve) => server.close(resolve))
    },
  }
}
