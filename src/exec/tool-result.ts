import type {CallToolResult} from '@modelcontextprotocol/server'

import {toolErrorResult as mcpToolErrorResult} from '../mcp/tool-error.js'
import {describeSystemError, isSystemError} from './files/fs-errors.js'
import type {ToolAnswer} from './tools/tool.js'

/** A successful MCP tool result from a tool's answer. */
export function toolSuccessResult(answer: ToolAnswer): CallToolResult {
  const result: CallToolResult = {content: [{type: 'text', text: answer.text}]}
  if (answer.structured) result.structuredContent = answer.structured
  return result
}

/**
 * The one place where AgentExec's errors become MCP `isError` results (see the shared
 * toolErrorResult). A system error that no tool explained is described in the system's words,
 * without its code or the paths it names (which may lie outside the workspace).
 */
export function toolErrorResult(error: unknown): CallToolResult {
  return mcpToolErrorResult(error, (other) =>
    isSystemError(other)
      ? `The system refused the operation: ${describeSystemError(other)}. The server keeps serving; check the arguments and retry.`
      : undefined,
  )
}
