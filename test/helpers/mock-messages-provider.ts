/**
 * A mock model speaking the Anthropic Messages API on loopback, for tests that run the real
 * Claude Code CLI without a real model. Claude Code reads `ANTHROPIC_BASE_URL` and POSTs
 * `<base>/v1/messages` (with `stream: true` for the conversation), and reads server-sent events in
 * the order the real API sends them: `message_start`, then per content block
 * `content_block_start`, its `content_block_delta`s (`text_delta`, or `input_json_delta` pieces of
 * a tool call's JSON input) and `content_block_stop`, then `message_delta` (the stop reason) and
 * `message_stop`, with `ping`s between.
 *
 * Each request is one model turn. A test scripts the turns with a function that gets the request
 * body (the whole conversation, with the `tool_result` blocks Claude Code sends back) and returns
 * the content blocks to answer with.
 */
import {once} from 'node:events'
import {type IncomingMessage, type Server, type ServerResponse, createServer} from 'node:http'
import type {AddressInfo} from 'node:net'

/** A request body as Claude Code sends it to `/v1/messages` (only what tests read is typed). */
export interface MessagesRequest {
  model?: string
  messages: Array<{role: string; content: string | Array<Record<string, unknown>>}>
  system?: unknown
  tools?: Array<{name: string; defer_loading?: boolean; [key: string]: unknown}>
  stream?: boolean
  [key: string]: unknown
}

/** One content block of a scripted answer. */
export type MockContentBlock = {type: 'text'; text: string} | {type: 'tool_use'; id: string; name: string; input: Record<string, unknown>}

/** Decides a turn's content from its request; `turn` counts every request from 0. */
export type MessagesScript = (request: MessagesRequest, turn: number) => MockContentBlock[]

/** A running mock model. */
export interface MockMessagesProvider {
  /** For `ANTHROPIC_BASE_URL`, e.g. `http://127.0.0.1:PORT`. */
  baseUrl: string
  /** Every `/v1/messages` request body received, in order. */
  requests: MessagesRequest[]
  /** Errors thrown by the script (each also answered with HTTP 500), so a test can report them. */
  errors: Error[]
  close(): Promise<void>
}

/** The characters of a tool call's JSON input sent per `input_json_delta`, as the API sends it in pieces. */
const INPUT_JSON_PIECE_CHARS = 16

/** The text of every `tool_result` block in the conversation, by `tool_use_id`. */
export function toolResults(request: MessagesRequest): Map<string, string> {
  const results = new Map<string, string>()
  for (const message of request.messages) {
    if (typeof message.content === 'string') continue
    for (const block of message.content) {
      if (block.type === 'tool_result') results.set(String(block.tool_use_id), contentText(block.content))
    }
  }
  return results
}

/** The text of a `tool_result`'s content: a string, or text blocks (other blocks as JSON). */
function contentText(content: unknown): string {
  if (typeof content === 'string') return content
  if (!Array.isArray(content)) return JSON.stringify(content)
  return content.map((part: Record<string, unknown>) => (part.type === 'text' ? String(part.text) : JSON.stringify(part))).join('')
}

/**
 * How the request offers the tool `name`: `loaded` when its definition is in `tools`, `deferred`
 * when the conversation only names it (Claude Code defers MCP tools behind its ToolSearch tool,
 * which loads their definitions), undefined when it is not offered.
 */
export function toolOffer(request: MessagesRequest, name: string): 'loaded' | 'deferred' | undefined {
  const defined = request.tools?.find((tool) => tool.name === name)
  if (defined && !defined.defer_loading) return 'loaded'
  return JSON.stringify([request.system, request.messages]).includes(name) ? 'deferred' : undefined
}

/** Starts the mock on 127.0.0.1 with a free port. */
export async function startMockMessagesProvider(script: MessagesScript): Promise<MockMessagesProvider> {
  const requests: MessagesRequest[] = []
  const errors: Error[] = []
  const server: Server = createServer((req, res) => {
    void handle(req, res).catch((error: Error) => {
      errors.push(error)
      if (!res.headersSent) res.writeHead(500, {'content-type': 'application/json'})
      res.end(JSON.stringify({type: 'error', error: {type: 'api_error', message: error.message}}))
    })
  })

  async function handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const chunks: Buffer[] = []
    for await (const chunk of req) chunks.push(chunk as Buffer)
    const url = new URL(req.url ?? '/', 'http://127.0.0.1')
    if (req.method === 'POST' && url.pathname === '/v1/messages/count_tokens') {
      res.writeHead(200, {'content-type': 'application/json'})
      res.end(JSON.stringify({input_tokens: 100}))
      return
    }
    if (req.method !== 'POST' || url.pathname !== '/v1/messages') {
      res.writeHead(404, {'content-type': 'application/json'})
      res.end(JSON.stringify({type: 'error', error: {type: 'not_found_error', message: `mock model: no ${req.method} ${url.pathname}`}}))
      return
    }
    const body = JSON.parse(Buffer.concat(chunks).toString('utf8')) as MessagesRequest
    const turn = requests.length
    requests.push(body)
    const blocks = script(body, turn)
    const message = {
      id: `msg_mock_${turn}`,
      type: 'message',
      role: 'assistant',
      model: body.model ?? 'mock-model',
      stop_sequence: null,
    }
    const stopReason = blocks.some((block) => block.type === 'tool_use') ? 'tool_use' : 'end_turn'
    if (!body.stream) {
      res.writeHead(200, {'content-type': 'application/json'})
      res.end(JSON.stringify({...message, content: blocks, stop_reason: stopReason, usage: {input_tokens: 100, output_tokens: 10}}))
      return
    }
    res.writeHead(200, {'content-type': 'text/event-stream', 'cache-control': 'no-cache', connection: 'keep-alive'})
    const send = (type: string, data: Record<string, unknown>) => res.write(`event: ${type}\ndata: ${JSON.stringify({type, ...data})}\n\n`)
    send('message_start', {message: {...message, content: [], stop_reason: null, usage: {input_tokens: 100, output_tokens: 1}}})
    send('ping', {})
    blocks.forEach((block, index) => {
      if (block.type === 'text') {
        send('content_block_start', {index, content_block: {type: 'text', text: ''}})
        send('content_block_delta', {index, delta: {type: 'text_delta', text: block.text}})
      } else {
        send('content_block_start', {index, content_block: {type: 'tool_use', id: block.id, name: block.name, input: {}}})
        const json = JSON.stringify(block.input)
        for (let at = 0; at < json.length; at += INPUT_JSON_PIECE_CHARS) {
          send('content_block_delta', {index, delta: {type: 'input_json_delta', partial_json: json.slice(at, at + INPUT_JSON_PIECE_CHARS)}})
        }
      }
      send('content_block_stop', {index})
    })
    send('message_delta', {delta: {stop_reason: stopReason, stop_sequence: null}, usage: {output_tokens: 10}})
    send('message_stop', {})
    res.end()
  }

  server.listen(0, '127.0.0.1')
  await once(server, 'listening')
  const {port} = server.address() as AddressInfo
  return {
    baseUrl: `http://127.0.0.1:${port}`,
    requests,
    errors,
    async close() {
      server.closeAllConnections()
      await new Promise((resolve) => server.close(resolve))
    },
  }
}
