import {
  INVALID_PARAMS,
  INVALID_REQUEST,
  type JSONRPCMessage,
  ReadBuffer,
  STDIO_DEFAULT_MAX_BUFFER_SIZE,
  parseJSONRPCMessage,
} from '@modelcontextprotocol/server'

import {escapeControls} from '../text-escape.js'
import {keepProtoArguments} from './proto-argument.js'

/** A line that is JSON but not an MCP JSON-RPC message, as the stdio transport reports it. */
export interface RejectedMessage {
  /** The JSON-RPC error to send back, when the line was a request with an id; else undefined. */
  answer: JSONRPCMessage | undefined
  /** One line for the operator: what was rejected and why. */
  logLine: string
}

const LINE_BREAK = Buffer.from('\n')

/** Bytes kept from each end of a line too long to buffer, to read its id from (see `oversizedMessage`). */
const OVERSIZED_KEPT_BYTES = 64 * 1024

/**
 * The stdio transport's line reader (the SDK's `ReadBuffer`: newline-delimited JSON, at most
 * `maxBufferSize` bytes a message), except that nothing a client sends ends the connection and
 * every request gets an answer (JSON-RPC 2.0 §5: a response for every request; id null when the
 * id cannot be read):
 * - a line over `maxBufferSize` bytes is dropped as it streams in (only its first and last
 *   OVERSIZED_KEPT_BYTES are kept) and answered with an invalid-request error for its id, where
 *   the SDK would throw and close the transport, ending the server;
 * - a line that is not JSON gets a parse error, where the SDK skips it silently (blank lines are
 *   still skipped);
 * - JSON that does not match MCP's JSON-RPC schema (a `_meta.progressToken` that is an object, a
 *   message with an id and nothing else, a batch): the SDK would drop it with its whole schema
 *   error on stderr; here it is answered (-32602 when the fault lies in `params`, else -32600)
 *   unless it is a notification, which JSON-RPC never answers.
 * Each rejected line goes to `onRejected` with its answer and one log line.
 */
export class CheckedReadBuffer extends ReadBuffer {
  private pending: Buffer | undefined
  /** The line being dropped because it is too long: its first bytes, its last bytes and its length. */
  private oversized: {head: Buffer; tail: Buffer; bytes: number} | undefined

  /**
   * @param onRejected told of each line answered here instead of handed on
   * @param maxBufferSize the longest line taken, in bytes
   * @param onMessage shown each message before it is handed on (ConnectionClient.observe)
   */
  constructor(
    private readonly onRejected: (rejected: RejectedMessage) => void,
    private readonly maxBufferSize = STDIO_DEFAULT_MAX_BUFFER_SIZE,
    private readonly onMessage: (message: unknown) => void = () => {},
  ) {
    super({maxBufferSize})
  }

  override append(chunk: Buffer): void {
    if (this.oversized) {
      const end = chunk.indexOf('\n')
      if (end === -1) {
        this.keepOversized(chunk)
        return
      }
      this.keepOversized(chunk.subarray(0, end))
      this.finishOversized()
      chunk = chunk.subarray(end + 1)
    }
    const buffered = this.pending ? Buffer.concat([this.pending, chunk]) : chunk
    // Complete lines wait for readMessage; only the line still arriving is held to the limit.
    const lineStart = buffered.lastIndexOf('\n') + 1
    if (buffered.length - lineStart > this.maxBufferSize) {
      const partial = buffered.subarray(lineStart)
      this.oversized = {head: Buffer.from(partial.subarray(0, OVERSIZED_KEPT_BYTES)), tail: Buffer.alloc(0), bytes: 0}
      this.keepOversized(partial)
      this.pending = lineStart > 0 ? buffered.subarray(0, lineStart) : undefined
      return
    }
    this.pending = buffered
  }

  override readMessage(): JSONRPCMessage | null {
    while (this.pending) {
      const index = this.pending.indexOf('\n')
      if (index === -1) return null
      const bytes = this.pending.subarray(0, index)
      this.pending = index + 1 < this.pending.length ? this.pending.subarray(index + 1) : undefined
      if (bytes.length > this.maxBufferSize) {
        this.onRejected(oversizedMessage(bytes.subarray(0, OVERSIZED_KEPT_BYTES), bytes.subarray(-OVERSIZED_KEPT_BYTES), bytes.length, this.maxBufferSize))
        continue
      }
      const line = bytes.toString('utf8').replace(/\r$/, '')
      if (line.trim() === '') continue
      let value: unknown
      try {
        value = keepProtoArguments(JSON.parse(line) as unknown)
      } catch (error) {
        this.onRejected(notJson(line, error))
        continue
      }
      this.onMessage(value)
      try {
        return parseJSONRPCMessage(value)
      } catch (error) {
        this.onRejected(rejectedMessage(value, error))
      }
    }
    return null
  }

  /**
   * At the end of the input: reads a last line that has no line break as if it had one, and
   * answers a last line too long to buffer. The SDK's reader drops both silently.
   */
  finish(): JSONRPCMessage | null {
    if (this.oversized) {
      this.finishOversized()
      return null
    }
    if (!this.pending || this.pending.length === 0) return null
    this.pending = Buffer.concat([this.pending, LINE_BREAK])
    return this.readMessage()
  }

  override clear(): void {
    this.pending = undefined
    this.oversized = undefined
  }

  /** Counts `bytes` more of the line being dropped, keeping its last OVERSIZED_KEPT_BYTES. */
  private keepOversized(bytes: Buffer): void {
    const oversized = this.oversized!
    oversized.bytes += bytes.length
    const recent = bytes.length >= OVERSIZED_KEPT_BYTES ? bytes : Buffer.concat([oversized.tail, bytes])
    oversized.tail = Buffer.from(recent.subarray(-OVERSIZED_KEPT_BYTES))
  }

  private finishOversized(): void {
    const {head, tail, bytes} = this.oversized!
    this.oversized = undefined
    this.onRejected(oversizedMessage(head, tail, bytes, this.maxBufferSize))
  }
}

/** JSON-RPC 2.0's code for a message that is not valid JSON (§5.1). */
const PARSE_ERROR = -32700

/**
 * What to do with a line that is not JSON: JSON-RPC 2.0 §5.1 answers it with a parse error whose
 * id is null, or here the id of a message cut short when its start holds one, and the operator
 * gets one line.
 */
function notJson(line: string, error: unknown): RejectedMessage {
  const reason = error instanceof Error ? error.message : String(error)
  return {
    logLine: `rejected a line of ${line.length} characters that is not JSON (${escapeControls(reason)})`,
    answer: {
      jsonrpc: '2.0',
      // JSON-RPC answers a parse error with id null; an id readable at the start of the line helps the client more.
      id: topLevelId(line) ?? null,
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

/** A JSON-RPC id as JSON-RPC 2.0 allows it (a string or a number), or undefined. */
function validId(id: unknown): string | number | undefined {
  return typeof id === 'string' || (typeof id === 'number' && Number.isFinite(id)) ? id : undefined
}

function rejectedMessage(value: unknown, error: unknown): RejectedMessage {
  if (Array.isArray(value)) {
    const logLine = `rejected a batch of ${value.length} ${value.length === 1 ? 'message' : 'messages'}: MCP takes one JSON-RPC message per line`
    return {
      logLine,
      answer: errorAnswer(
        null,
        INVALID_REQUEST,
        'Invalid request: the line is a JSON-RPC batch (an array), which MCP does not take (since protocol 2025-06-18). Send one message per line.',
      ),
    }
  }
  const problem = mainProblem(error)
  const message = (typeof value === 'object' && value !== null ? value : {}) as {id?: unknown; method?: unknown}
  const method = typeof message.method === 'string' ? message.method : undefined
  const hasId = message.id !== undefined
  const what = method ? `${method}${hasId ? ` (id ${JSON.stringify(message.id)})` : ''}` : hasId ? `a message with id ${JSON.stringify(message.id)}` : 'a message'
  const logLine = `rejected ${what}: it does not match MCP's JSON-RPC schema (${problem.text})`
  // A notification (a method and no id) is never answered (JSON-RPC 2.0 §4.1).
  if (method && !hasId) return {answer: undefined, logLine}
  const inParams = method !== undefined && problem.path[0] === 'params'
  return {
    logLine,
    answer: errorAnswer(
      validId(message.id) ?? null,
      inParams ? INVALID_PARAMS : INVALID_REQUEST,
      `${inParams ? 'Invalid params' : 'Invalid request'}: ${problem.text}. The message does not match MCP's JSON-RPC schema; fix it and send it again.`,
    ),
  }
}

/**
 * What to do with a line over the size limit: an invalid-request error for its id, read from
 * the line's first or last bytes (see `topLevelId`, `lastTopLevelId`), or null when neither holds it.
 */
function oversizedMessage(head: Buffer, tail: Buffer, bytes: number, limit: number): RejectedMessage {
  const id = topLevelId(head.toString('utf8')) ?? lastTopLevelId(tail.toString('utf8'))
  return {
    logLine: `rejected a message of ${bytes} bytes${id === undefined ? '' : ` (id ${JSON.stringify(id)})`}: over the ${limit} bytes a message may have on stdio`,
    answer: errorAnswer(
      id ?? null,
      INVALID_REQUEST,
      `Request too large: the message has ${bytes} bytes, over the ${limit} bytes (${limit / 1024 / 1024} MiB) a message may have on stdio. ` +
        'Send less in one message: edit a large file in several smaller edits, or write it with exec_command.',
    ),
  }
}

function errorAnswer(id: string | number | null, code: number, message: string): JSONRPCMessage {
  return {jsonrpc: '2.0', id, error: {code, message}} as unknown as JSONRPCMessage
}

/**
 * The `id` member of the top-level object at the start of a JSON text cut short, if the part
 * given reaches it: members are skipped by tracking strings and nesting, so an `"id"` inside
 * `params` is never taken for it. MCP's clients write `id` before `params`.
 */
export function topLevelId(text: string): string | number | undefined {
  let depth = 0
  let index = 0
  while (index < text.length) {
    const character = text[index]!
    if (character === '"') {
      const start = index
      for (index++; index < text.length && text[index] !== '"'; index++) if (text[index] === '\\') index++
      if (index >= text.length) return undefined
      index++
      if (depth === 1 && text.slice(start, index) === '"id"') {
        const value = memberValue(text, index)
        if (value !== undefined) return parseId(value)
      }
      continue
    }
    if (character === '{' || character === '[') depth++
    else if (character === '}' || character === ']') depth--
    index++
  }
  return undefined
}

/**
 * The `id` member of the top-level object at the end of a JSON text whose start was cut off,
 * if the part given reaches it: read backwards from the closing brace, skipping strings (an
 * escaped quote is preceded by an odd number of backslashes) and nested values, so an `"id"`
 * inside `params` is never taken for it.
 */
export function lastTopLevelId(text: string): string | number | undefined {
  let depth = 0
  for (let index = text.length - 1; index >= 0; index--) {
    const character = text[index]!
    if (character === '"') {
      let start = index - 1
      for (;;) {
        start = text.lastIndexOf('"', start)
        if (start < 0) return undefined
        let slashes = 0
        while (text[start - 1 - slashes] === '\\') slashes++
        if (slashes % 2 === 0) break
        start--
      }
      if (depth === 1 && text.slice(start, index + 1) === '"id"') {
        const value = memberValue(text, index + 1)
        if (value !== undefined) return parseId(value)
      }
      index = start
    } else if (character === '}' || character === ']') {
      depth++
    } else if (character === '{' || character === '[') {
      depth--
      if (depth <= 0) return undefined
    }
  }
  return undefined
}

/** `: <number or string>` after a key. */
const MEMBER_VALUE = /^\s*:\s*(-?\d+(?:\.\d+)?(?:[eE][+-]?\d+)?|"(?:[^"\\]|\\.)*")/

/**
 * The JSON text of the number or string written as the value of a member whose key ends at `at`
 * in `text`; undefined when none follows (the string was not a key, or its value is an object,
 * an array or null).
 */
function memberValue(text: string, at: number): string | undefined {
  return MEMBER_VALUE.exec(text.slice(at, at + 1024))?.[1]
}

function parseId(json: string): string | number | undefined {
  try {
    return validId(JSON.parse(json))
  } catch {
    return undefined
  }
}
