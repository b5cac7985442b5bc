import type {CallToolResult} from '@modelcontextprotocol/server'

import {AkError} from '../errors.js'
import {describeSystemError, isSystemError} from './files/fs-errors.js'
import type {ToolAnswer} from './tools/tool.js'

/** A successful MCP tool result from a tool's answer. */
export function toolSuccessResult(answer: ToolAnswer): CallToolResult {
  const result: CallToolResult = {content: [{type: 'text', text: answer.text}]}
  if (answer.structured) result.structuredContent = answer.structured
  return result
}

/**
 * The one place where errors become MCP `isError` results. Errors of src/errors.ts carry a
 * message written for the model. A system error that no tool explained is described in the
 * system's words, without its code or the paths it names (which may lie outside the workspace);
 * anything else is a bug, reported as an internal error with its message.
 */
export function toolErrorResult(error: unknown): CallToolResult {
  const text =
    error instanceof AkError
      ? error.message
      : isSystemError(error)
        ? `The system refused the operation: ${describeSystemError(error)}. The server keeps serving; check the arguments and retry.`
        : `Internal error: ${error instanceof Error ? error.message : String(error)}. The server keeps serving; retry or report it.`
  return {content: [{type: 'text', text}], isError: true}
}
