import type {CallToolResult} from '@modelcontextprotocol/server'

import {AkError} from '../errors.js'

/**
 * An error as an MCP tool result with `isError: true`. Errors of src/errors.ts carry a message
 * written for the model and are sent as they are; `explain` may word other errors a server knows
 * (e.g. system errors); anything else is a bug, reported as an internal error with its message.
 */
export function toolErrorResult(error: unknown, explain?: (error: unknown) => string | undefined): CallToolResult {
  const text =
    error instanceof AkError
      ? error.message
      : (explain?.(error) ?? `Internal error: ${error instanceof Error ? error.message : String(error)}. The server keeps serving; retry or report it.`)
  return {content: [{type: 'text', text}], isError: true}
}
