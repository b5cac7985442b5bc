import type {CallToolResult} from '@modelcontextprotocol/client'

import {BadInputError} from '../../errors.js'
import type {Logger} from '../../log.js'
import {connectInProcessExecClient} from '../serving/in-process-client.js'
import type {Level} from '../level.js'
import type {AllowedProtectedPaths} from '../protected-paths.js'
import {createExecRuntime} from '../runtime.js'
import type {Sandbox} from '../terminal/sandbox-policy.js'
import {levelOfTool} from '../tools/index.js'
import type {Workspace} from '../workspace.js'

/**
 * Runs one AgentExec tool call through the official MCP client against an in-process server at
 * `level` on `workspace` (the code `ak exec serve` runs), then closes everything the call started.
 * `log` gets the operator line the server writes per call. `sandbox` (from openSandbox) confines
 * a command the call runs, as `ak exec serve --sandbox` does; default: none.
 * @returns the `tools/call` result as a client receives it; a failed call is an `isError` result.
 * @throws BadInputError when the level does not offer `tool`, naming the level that does.
 */
export async function callExecTool(options: {
  workspace: Workspace
  level: Level
  tool: string
  args: Record<string, unknown>
  log: Logger
  sandbox?: Sandbox
  /** Protected paths the operator made writable; default none. */
  allowedProtected?: AllowedProtectedPaths
}): Promise<CallToolResult> {
  const runtime = createExecRuntime({
    workspace: options.workspace,
    level: options.level,
    log: options.log,
    ...(options.sandbox ? {sandbox: options.sandbox} : {}),
    ...(options.allowedProtected ? {allowedProtected: options.allowedProtected} : {}),
  })
  const client = await connectInProcessExecClient(runtime)
  try {
    const offered = (await client.listTools()).map((tool) => tool.name)
    if (!offered.includes(options.tool)) throw unknownToolError(options.tool, options.level, offered)
    return await client.callTool(options.tool, options.args)
  } finally {
    await client.close()
    await runtime.close()
  }
}

function unknownToolError(tool: string, level: Level, offered: string[]): BadInputError {
  const needed = levelOfTool(tool)
  if (needed) {
    return new BadInputError(`Tool "${tool}" is not offered at level ${level}. Pass --level ${needed} (or a level above it).`)
  }
  return new BadInputError(
    `There is no tool "${tool}". Tools at level ${level}: ${offered.join(', ') || 'none'}. ` +
      `Run "ak exec tools --level ${level}" to see them.`,
  )
}

/**
 * The text of a tool result for a terminal: text blocks as they are, other blocks as one
 * bracketed line naming their type (e.g. `[image content: image/png, 2048 base64 characters]`).
 */
export function resultText(result: CallToolResult): string {
  return result.content
    .map((block) => {
      switch (block.type) {
        case 'text':
          return block.text
        case 'image':
        case 'audio':
          return `[${block.type} content: ${block.mimeType}, ${block.data.length} base64 characters]`
        case 'resource_link':
          return `[resource link: ${block.uri}]`
        case 'resource':
          return 'text' in block.resource ? block.resource.text : `[resource: ${block.resource.uri}]`
        default:
          return `[${(block as {type: string}).type} content]`
      }
    })
    .join('\n')
}
