import {type McpServer, PROTOCOL_VERSION_META_KEY, type ServerContext} from '@modelcontextprotocol/server'
import {z} from 'zod'

import {TASKS_EXTENSION_ID, capabilitiesDeclareTasks, requestDeclaresTasks, tasksNotDeclaredError} from './task-extension.js'
import type {DetailedTask, TaskStore, TaskWork} from './task-store.js'

/** What a tool call whose client declared the Tasks extension may do: become a task. */
export interface TaskOffer {
  /**
   * Turns the call into a task running `work`: the call is then answered with the task's
   * CreateTaskResult instead of what its handler returns, and its client follows it with
   * tasks/get. Returns false, starting nothing, when no task can start now (MAX_RUNNING_TASKS):
   * the call then answers as it would without the extension.
   */
  start(work: TaskWork): boolean
}

/** The tasks side of one server instance: see serveTasks. */
export interface ServedTasks {
  /** The offer for the `tools/call` being handled with `ctx`, when its client declared the extension; undefined otherwise. */
  offerFor(ctx: ServerContext): TaskOffer | undefined
}

const taskIdParams = z.looseObject({taskId: z.string()})

/** A request handler as the SDK's Protocol stores it. */
type StoredHandler = (request: {id?: unknown; params?: unknown}, ctx: ServerContext) => Promise<unknown>

/**
 * Serves the MCP Tasks extension (`io.modelcontextprotocol/tasks`, modelcontextprotocol/ext-tasks
 * specification/2026-07-28/tasks.md) on `server`, whose tasks live in `store` under `owner` (the
 * connection; undefined for stateless requests):
 * - offers the extension under `capabilities.extensions` (initialize and server/discover);
 * - answers `tasks/get` (the task with its result, error or input requests), `tasks/cancel` and
 *   `tasks/update` (empty acknowledgements) for a request that declares the extension, -32021
 *   naming it for one that does not, -32602 for a task this owner does not have;
 * - lets a tool call whose request declares the extension become a task (`offerFor`), answered
 *   with the flat CreateTaskResult (`resultType: "task"` and the Task fields); a call to a tool
 *   of `options.requiredFor` (tools that only run as tasks) from a request that does not declare
 *   it is refused with -32021 before the tool runs, as the extension requires;
 * - on a 2025-era connection that declared the extension at `initialize`, sends
 *   `notifications/tasks/status` with each change of its tasks (the 2026-07-28 revision delivers
 *   them on a `subscriptions/listen` stream, which is not offered: clients poll there).
 *
 * Call once every tool is registered and before the server connects. `tools/call` is wrapped in
 * the low-level server's handler table (`Protocol._requestHandlers`), as answerToolsNotOffered
 * does: the SDK has no public hook around a tool call's result, and its McpServer would check a
 * CreateTaskResult against the tool's outputSchema.
 * @throws Error when the SDK no longer keeps that table or that handler (an SDK upgrade changed it).
 */
export function serveTasks(
  server: McpServer,
  store: TaskStore,
  owner: string | undefined,
  options: {requiredFor?: ReadonlySet<string>} = {},
): ServedTasks {
  const lowLevel = server.server
  lowLevel.registerCapabilities({extensions: {[TASKS_EXTENSION_ID]: {}}})
  const declares = (ctx: ServerContext) =>
    requestDeclaresTasks({meta: ctx.mcpReq._meta, envelope: ctx.mcpReq.envelope, connectionCapabilities: lowLevel.getClientCapabilities()})
  const checkDeclared = (method: string, ctx: ServerContext) => {
    if (!declares(ctx)) throw tasksNotDeclaredError(method)
  }
  lowLevel.setRequestHandler('tasks/get', {params: taskIdParams}, (params, ctx) => {
    checkDeclared('tasks/get', ctx)
    return Promise.resolve(asResult(store.get(params.taskId, owner)))
  })
  lowLevel.setRequestHandler('tasks/cancel', {params: taskIdParams}, async (params, ctx) => {
    checkDeclared('tasks/cancel', ctx)
    await store.cancel(params.taskId, owner)
    return {}
  })
  lowLevel.setRequestHandler('tasks/update', {params: taskIdParams}, (params, ctx) => {
    checkDeclared('tasks/update', ctx)
    // The SDK lifts `inputResponses` out of the params of every request (multi round-trip requests).
    const responses = ctx.mcpReq.inputResponses ?? params.inputResponses
    store.update(params.taskId, owner, typeof responses === 'object' && responses !== null ? (responses as Record<string, unknown>) : {})
    return Promise.resolve({})
  })

  let isNotifying = false
  const notifyOnConnection = () => {
    // Only a connection that declared the extension at initialize has a channel for them.
    if (isNotifying || owner === undefined || !capabilitiesDeclareTasks(lowLevel.getClientCapabilities())) return
    isNotifying = true
    store.subscribe(owner, (task) => {
      void lowLevel.notification({method: 'notifications/tasks/status', params: asResult(task)}).catch(() => undefined)
    })
  }

  const offers = new Map<unknown, {created?: DetailedTask}>()
  const handlers = (lowLevel as unknown as {_requestHandlers?: unknown})._requestHandlers
  const original = handlers instanceof Map ? (handlers.get('tools/call') as StoredHandler | undefined) : undefined
  if (!(handlers instanceof Map) || typeof original !== 'function') {
    throw new Error('The MCP SDK no longer keeps its tools/call handler in Protocol._requestHandlers; update serveTasks.')
  }
  handlers.set('tools/call', async (request: {id?: unknown; params?: unknown}, ctx: ServerContext) => {
    if (!declares(ctx)) {
      const name = (request.params as {name?: unknown} | undefined)?.name
      if (typeof name === 'string' && options.requiredFor?.has(name)) throw tasksNotDeclaredError(`tools/call of ${name}`)
      return original(request, ctx)
    }
    const slot: {created?: DetailedTask} = {}
    offers.set(ctx.mcpReq.id, slot)
    try {
      const answer = await original(request, ctx)
      if (!slot.created) return answer
      notifyOnConnection()
      const {result: _result, error: _error, inputRequests: _inputRequests, ...task} = slot.created
      return {resultType: 'task', ...task}
    } finally {
      offers.delete(ctx.mcpReq.id)
    }
  })

  return {
    offerFor(ctx) {
      const slot = offers.get(ctx.mcpReq.id)
      if (!slot) return undefined
      const isModern = isModernRequest(ctx)
      return {
        start(work) {
          if (slot.created || !store.canStart) return false
          slot.created = store.start(owner, isModern ? {...work, outcome: work.outcome.then(asCompleteResult)} : work)
          return true
        },
      }
    },
  }
}

/** Whether the request of `ctx` was sent for a 2026-07-28 revision (its `_meta` envelope names one). */
function isModernRequest(ctx: ServerContext): boolean {
  const envelope = ctx.mcpReq.envelope as Record<string, unknown> | undefined
  return typeof envelope?.[PROTOCOL_VERSION_META_KEY] === 'string'
}

/**
 * A task's CallToolResult as a 2026-07-28 request would have been answered: with
 * `resultType: "complete"`, which that revision requires of every result. The extension's
 * DetailedTask `result` "matches the result type of the original request", and a requester
 * checks it as one (`@modelcontextprotocol/ext-tasks` refuses it without).
 */
function asCompleteResult(result: Record<string, unknown>): Record<string, unknown> {
  return {resultType: 'complete', ...result}
}

/** A task as a result object (tasks/get, notifications): the DetailedTask's fields. */
function asResult(task: DetailedTask): Record<string, unknown> {
  return {...task}
}
