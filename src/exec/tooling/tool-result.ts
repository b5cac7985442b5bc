import type {CallToolResult} from '@modelcontextprotocol/server'

import path from 'node:path'

import {isDescriptorShortage, tooManyFilesOpen} from '../../errors.js'
import {toolErrorResult as mcpToolErrorResult} from '../../mcp/tool-error.js'
import {escapeControls} from '../../text-escape.js'
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
 * without its code or the paths it names (which may lie outside the workspace); a descriptor
 * shortage reads as every other one does (tooManyFilesOpen), naming the path it could not open
 * relative to `workspaceRoot` when it lies inside.
 */
export function toolErrorResult(error: unknown, workspaceRoot?: string): CallToolResult {
  return mcpToolErrorResult(error, (other) => {
    if (!isSystemError(other)) return undefined
    if (isDescriptorShortage(other.code)) return tooManyFilesOpen(`open ${shownInside(other.path, workspaceRoot)}`)
    return `The system refused the operation: ${describeSystemError(other)}. The server keeps serving; check the arguments and retry.`
  })
}

/** `file` as the model may see it: relative to `root` when inside it, else no name at all. */
function shownInside(file: string | undefined, root: string | undefined): string {
  if (file === undefined || root === undefined) return 'a file it needs'
  const relative = path.relative(root, path.resolve(root, file))
  if (relative === '') return 'the workspace folder'
  if (relative.startsWith('..') || path.isAbsolute(relative)) return 'a file it needs'
  return `"${escapeControls(relative)}"`
}
