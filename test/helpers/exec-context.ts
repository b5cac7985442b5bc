/** A tool context for calling AgentExec tools directly, without a transport. */
import {parseToolInput} from '../../src/mcp/tool-input.js'
import {createExecConnection, createExecRuntime} from '../../src/exec/runtime.js'
import type {ToolContext} from '../../src/exec/context.js'
import type {ExecTool} from '../../src/exec/tools/tool.js'
import {Workspace} from '../../src/exec/workspace.js'

/** Opens `dir` as a `files`-level workspace and returns a context for direct tool calls. */
export async function toolContext(dir: string): Promise<ToolContext> {
  const workspace = await Workspace.open(dir)
  const runtime = createExecRuntime({workspace, level: 'files'})
  return {runtime, workspace, connection: createExecConnection(), signal: new AbortController().signal}
}

/** Validates `args` with the tool's schema (as the server does) and runs it. */
export async function runTool(tool: ExecTool, context: ToolContext, args: Record<string, unknown>): Promise<string> {
  const {input} = parseToolInput(tool, args)
  return (await tool.run(input, context)).text
}
