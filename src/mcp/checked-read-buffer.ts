import {
  INVALID_PARAMS,
  INVALID_REQUEST,
  type JSONRPCMessage,
  ReadBuffer,
  STDIO_DEFAULT_MAX_BUFFER_SIZE,
  parseJSONRPCMessage,
} from '@modelcontextprotocol/server'

import {escapeControls} from '../text-escape.js'

/** A line that is JSON but not an MCP JSON-RPC message, as the stdio transport reports it. */
export interface RejectedMessage {
  /** The JSON-RPC error to send back, when the line was a request with an id; else undefined. */
  answer: JSONRPCMessage | undefined
  /** One line for the operator: what was rejected and why. */
  logLine: string
}

/**
 * The stdio transport's line reader (the SDK's `ReadBuffer`: newline-delimited JSON, at most
 * `maxBufferSize` bytes buffered), except that a line that is not JSON gets a parse error (the SDK
 * skips it silently, leaving a client waiting; blank lines are still skipped), and a line that is
 * JSON but does not match MCP's JSON-RPC schema (e.g. a `_meta.progressToken` that is an object):
 * the SDK would drop it with its whole schema error on stderr, leaving a request unanswered, so
 * here it goes to `onRejected` with the answer to send (JSON-RPC 2.0 §5.1: every request with an
 * id gets a response; -32602 when the fault lies in `params`, else -32600) and one log line.
 */
export class CheckedReadBuffer extends ReadBuffer {
  private pending: Buffer | undefined

  constructor(
    private readonly onRejected: (rejected: RejectedMessage) => void,
    private readonly maxBufferSize = STDIO_DEFAULT_MAX_BUFFER_SIZE,
  ) {
    super({maxBufferSize})
  }

  /** @throws Error when the buffered bytes would pass `maxBufferSize` (the SDK's message). */
  override append(chunk: Buffer): void {
    if ((this.pending?.length ?? 0) + chunk.length > this.maxBufferSize) {
      this.clear()
      throw new Error(`ReadBuffer exceeded maximum size of ${this.maxBufferSize} bytes`)
    }
    this.pending = this.pending ? Buffer.concat([this.pending, chunk]) : chunk
  }

  override readMessage(): JSONRPCMessage | null {
    while (this.pending) {
      const index = this.pending.indexOf('\n')
      if (index === -1) return null
      const line = this.pending.toString('utf8', 0, index).replace(/\r$/, '')
      this.pending = this.pending.subarray(index + 1)
      if (line.trim() === '') continue
      let value: unknown
      try {
        value = JSON.parse(line)
      } catch (error) {
        this.onRejected(notJson(line, error))
        continue
      }
      try {
        return parseJSONRPCMessage(value)
      } catch (error) {
        this.onRejected(rejectedMessage(value, error))
      }
    }
    return null
  }

  override clear(): void {
    this.pending = undefined
  }
}

/** JSON-RPC 2.0's code for a message that is not valid JSON (§5.1). */
const PARSE_ERROR = -32700

/**
 * What to do with a line that is not JSON: JSON-RPC 2.0 §5.1 answers it with a parse error whose
 * id is null (its id cannot be read), and the operator gets one line.
 */
function notJson(line: string, error: unknown): RejectedMessage {
  const reason = error instanceof Error ? error.message : String(error)
  return {
    logLine: `rejected a line of ${line.length} characters that is not JSON (${escapeControls(reason)})`,
    answer: {
      jsonrpc: '2.0',
      id: null,
      error: {
        code: PARSE_ERROR,
        message: `Parse error: the line is not JSON (${reason}). Send one JSON-RPC message per line, as MCP's stdio transport requires.`,
      },
    } as unknown as JSONRPCMessage,
  }
}

interface SchemaIssue {
  path?: PropertyKey[]
  message?: string
  errors?: SchemaIssue[][]
}

/** The most specific problem of a schema error (the deepest path), as `path: message`. */
function mainProblem(error: unknown): {path: string[]; text: string} {
  let best: {path: string[]; message: string} | undefined
  const visit = (issues: SchemaIssue[], parent: string[]): void => {
    for (const issue of issues) {
      const path = [...parent, ...(issue.path ?? []).map(String)]
      if (issue.errors?.length) for (const branch of issue.errors) visit(branch, path)
      else if (!best || path.length > best.path.length) best = {path, message: issue.message ?? 'invalid'}
    }
  }
  const issues = (error as {issues?: SchemaIssue[]}).issues
  if (Array.isArray(issues)) visit(issues, [])
  if (!best) return {path: [], text: error instanceof Error ? error.message.split('\n', 1)[0]! : String(error)}
  return {path: best.path, text: `${best.path.length > 0 ? `${best.path.join('.')}: ` : ''}${best.message}`}
}

function rejectedMessage(value: unknown, error: unknown): RejectedMessage {
  const problem = mainProblem(error)
  const message = (typeof value === 'object' && value !== null ? value : {}) as {id?: unknown; method?: unknown}
  const method = typeof message.method === 'string' ? message.method : undefined
  const hasId = message.id !== undefined
  const id = typeof message.id === 'string' || typeof message.id === 'number' ? message.id : null
  const what = method ? `${method}${hasId ? ` (id ${JSON.stringify(message.id)})` : ''}` : 'a message'
  const logLine = `rejected ${what}: it does not match MCP's JSON-RPC schema (${problem.text})`
  if (!method || !hasId) return {answer: undefined, logLine}
  const inParams = problem.path[0] === 'params'
  return {
    logLine,
    answer: {
      jsonrpc: '2.0',
      id: id as string | number,
      error: {
        code: inParams ? INVALID_PARAMS : INVALID_REQUEST,
        message:
          `${inParams ? 'Invalid params' : 'Invalid request'}: ${problem.text}. The request does not match ` +
          `MCP's JSON-RPC schema (e.g. _meta.progressToken must be a string or an integer); fix it and send it again.`,
      },
    },
  }
}
