import type {CallToolResult} from '@modelcontextprotocol/server'

import {toolErrorResult as mcpToolErrorResult} from '../../mcp/tool-error.js'
import {describeSystemError, isSystemError} from '../fs-errors.js'
import type {ToolAnswer} from '../tools/tool.js'

/**
 * A successful MCP tool result from a tool's answer: its text, then its images as image content,
 * and its structured form as `structuredContent` unless `withStructured` is false.
 */
export function toolSuccessResult(answer: ToolAnswer, withStructured = true): CallToolResult {
  const result: CallToolResult = {content: [{type: 'text', text: answer.text}]}
  for (const image of answer.images ?? []) result.content.push({type: 'image', data: image.data, mimeType: image.mimeType})
  if (answer.structured && withStructured) result.structuredContent = answer.structured
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
