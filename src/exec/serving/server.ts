import {type CallToolResult, McpServer, type RegisteredTool, type ServerContext} from '@modelcontextprotocol/server'

import {escapeControls} from '../../text-escape.js'
import {AK_VERSION} from '../../version.js'
import {type Level, levelIncludes} from '../level.js'
import {describeSandbox} from '../terminal/sandbox-policy.js'
import {CODEX_SANDBOX_STATE_META} from '../terminal/codex-sandbox-state.js'
import {type ConnectionClient, type TextFirstSwitch, textFirstSwitch} from '../../mcp/text-first-clients.js'
import {type ServedTasks, type TaskOffer, serveTasks} from '../../mcp/tasks/serve-tasks.js'
import {advertisedInputSchema, parseToolInput} from '../../mcp/tool-input.js'
import {advertisedOutputSchema} from '../../mcp/advertised-output-schema.js'
import {taskStoreFor} from '../tooling/runtime-tasks.js'
import {answerToolsNotOffered} from '../tooling/tool-not-offered.js'
import {toolErrorResult, toolSuccessResult} from '../tooling/tool-result.js'
import {EXEC_TOOLS} from '../tools/index.js'
import {searchPoolOf} from '../tools/search.js'
import {isRuntimeClosed} from '../runtime.js'
import {scheduleSearchWarmUp} from './search-warm-up.js'
import type {ExecConnection, ExecRuntime, ToolTaskOffer} from '../context.js'
import type {ExecTool} from '../tools/tool.js'

/** What a server at each level offers, as the opening of its MCP `instructions`. */
const LEVEL_OFFERS: Record<Level, string> = {
  read: 'Read-only access to files (read, list, search)',
  files: 'Files to read and edit (read, list, search, edit)',
  terminal: 'Files to read and edit and a terminal to run commands in (read, list, search, edit, exec_command, write_stdin)',
}

/** The name AgentExec reports in MCP's `serverInfo`. */
export const EXEC_SERVER_NAME = 'ak-exec'

/** How long after `initialized` the journal reads its records for the first edit, in ms (after the search warm-up starts). */
const JOURNAL_PREPARE_DELAY_MS = 300
const preparedJournals = new WeakSet<ExecRuntime>()

/** Has the runtime's journal read what its first change needs while the server is idle, once per runtime. */
function scheduleJournalPreparation(runtime: ExecRuntime): void {
  if (preparedJournals.has(runtime)) return
  preparedJournals.add(runtime)
  setTimeout(() => {
    if (!isRuntimeClosed(runtime)) void runtime.changeLog.prepare?.()
  }, JOURNAL_PREPARE_DELAY_MS).unref()
}

/** The tools a server at the runtime's level offers, in listing order. */
export function toolsForLevel(level: ExecRuntime['level']): ExecTool[] {
  return EXEC_TOOLS.filter((tool) => levelIncludes(level, tool.level))
}

/**
 * Builds one MCP server instance for one connection (or one stateless request), with the tools
 * of the runtime's level. Every transport (stdio, HTTP, library) serves instances made here.
 * `client` is the stdio connection's client, as its messages name it (text-first-clients.ts).
 */
export function createExecServer(runtime: ExecRuntime, connection: ExecConnection, client?: ConnectionClient): McpServer {
  const server = new McpServer(
    {name: EXEC_SERVER_NAME, version: AK_VERSION},
    {
      // Codex sends its sandbox state in each tools/call's _meta to a server that declares this
      // (codex-sandbox-state.ts); only commands read it.
      capabilities: {tools: {}, ...(levelIncludes(runtime.level, 'terminal') ? {experimental: {[CODEX_SANDBOX_STATE_META]: {}}} : {})},
      instructions:
        `${LEVEL_OFFERS[runtime.level]}, confined to the workspace ${runtime.workspace.root}. ` +
        `Relative paths are resolved against it; paths outside it are refused. ` +
        `A tool refuses arguments it does not define, naming those it takes; whole numbers and true/false may be sent as strings.` +
        (runtime.level === 'terminal' ? ` ${describeSandbox(runtime.sandbox)}` : ''),
    },
  )
  const tools = toolsForLevel(runtime.level)
  const textFirst = textFirstSwitch(server, client)
  let tasks: ServedTasks | undefined
  for (const tool of tools) {
    const registered = registerExecTool(server, runtime, connection, tool, textFirst, (ctx) => tasks?.offerFor(ctx))
    if (tool.isTextTheAnswer) textFirst.withholdOutputSchema(registered)
  }
  // The search workers start once the client has said it is initialized: off the start-up path,
  // and ready before the first search. Not once the runtime is closed: a pool made after its close
  // would never be stopped (a one-shot command such as `ak exec tools` would not exit).
  const onInitialized = server.server.oninitialized
  server.server.oninitialized = () => {
    onInitialized?.()
    setImmediate(() => {
      if (!isRuntimeClosed(runtime)) searchPoolOf(runtime).prestart()
    })
    scheduleSearchWarmUp(runtime, createExecServer)
    if (runtime.level !== 'read') scheduleJournalPreparation(runtime)
  }
  answerToolsNotOffered(
    server,
    runtime.level,
    tools.map((tool) => tool.name),
  )
  tasks = serveTasks(server, taskStoreFor(runtime, connection), connection.id)
  return server
}

/**
 * Registers `tool` on `server`. `textFirst` tells whether the connection's client reads
 * `structuredContent` instead of the text (see text-first-clients.ts); such a client gets the
 * answers of the tools whose text is the answer without their structured form. `offerFor` gives
 * a call whose client declared the MCP Tasks extension its way to become a task (serveTasks).
 */
function registerExecTool(
  server: McpServer,
  runtime: ExecRuntime,
  connection: ExecConnection,
  tool: ExecTool,
  textFirst: TextFirstSwitch,
  offerFor: (ctx: ServerContext) => TaskOffer | undefined,
): RegisteredTool {
  return server.registerTool(
    tool.name,
    {
      title: tool.title,
      description: tool.descriptionFor?.(runtime) ?? tool.description,
      inputSchema: advertisedInputSchema(tool.inputSchema),
      ...(tool.outputSchema ? {outputSchema: advertisedOutputSchema(tool.outputSchema)} : {}),
      annotations: tool.annotations,
    },
    async (input: unknown, ctx) => {
      const started = performance.now()
      let target = ''
      try {
        const {input: args, ignored: ignoredArguments} = parseToolInput(tool, input)
        target = tool.describeTarget(args)
        const withStructured = !(tool.isTextTheAnswer && textFirst.isTextFirst(ctx.mcpReq.envelope))
        const offer = offerFor(ctx)
        let isTask = false
        const task: ToolTaskOffer | undefined = offer && {
          start: (work) =>
            (isTask = offer.start({
              outcome: work.answer.then(
                (answer) => {
                  runtime.log.info(logLine(tool.name, target, started, 'ok (task)'))
                  return toolSuccessResult(answer, withStructured)
                },
                (error: unknown) => {
                  const result = toolErrorResult(error, runtime.workspace.root)
                  runtime.log.info(logLine(tool.name, target, started, `error (task): ${firstLine(result)}`))
                  return result
                },
              ),
              cancel: work.cancel,
              ...(work.statusMessage ? {statusMessage: work.statusMessage} : {}),
            })),
        }
        const answer = await tool.run(args, {
          runtime,
          workspace: runtime.workspace,
          connection,
          signal: ctx.mcpReq.signal,
          ignoredArguments,
          ...(ctx.mcpReq._meta ? {meta: ctx.mcpReq._meta as Record<string, unknown>} : {}),
          ...(task ? {task} : {}),
        })
        runtime.log.info(logLine(tool.name, target, started, isTask ? 'running as a task' : 'ok'))
        return toolSuccessResult(answer, withStructured)
      } catch (error) {
        // The log line carries what the model reads, never a raw errno or a host path.
        const result = toolErrorResult(error, runtime.workspace.root)
        runtime.log.info(logLine(tool.name, target, started, `error: ${firstLine(result)}`))
        return result
      }
    },
  )
}

function firstLine(result: CallToolResult): string {
  const first = result.content[0]
  const message = first?.type === 'text' ? first.text : ''
  return message.split('\n', 1)[0] ?? ''
}

function logLine(tool: string, target: string, started: number, outcome: string): string {
  const ms = Math.round(performance.now() - started)
  return `${tool} "${escapeControls(target)}" ${ms}ms ${escapeControls(outcome)}`
}
