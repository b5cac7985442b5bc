/**
 * A mock model speaking the OpenAI Chat Completions API on loopback, for tests that run a real
 * client through an OpenAI-compatible provider (OpenCode's `@ai-sdk/openai-compatible` with a
 * `baseURL`). The client POSTs `<base>/chat/completions`; with `stream: true` it reads server-sent
 * events of `chat.completion.chunk` objects (a `delta` with `content`, or `tool_calls` with each
 * call's id, name and JSON arguments), a last chunk with the `finish_reason`, one with `usage`,
 * and `data: [DONE]`. Without `stream` (a title or summary request) it reads one
 * `chat.completion`.
 *
 * Each request is one model turn. A test scripts the turns with a function that gets the request
 * body (the whole conversation, with the `role: "tool"` messages the client sends back) and
 * returns a text or the tool calls to answer with.
 */
import {once} from 'node:events'
import {type IncomingMessage, type Server, type ServerResponse, createServer} from 'node:http'
import type {AddressInfo} from 'node:net'

/** A request body as the client sends it (only what tests read is typed). */
export interface ChatRequest {
  model?: string
  messages: Array<{role: string; content?: unknown; tool_call_id?: string; [key: string]: unknown}>
  tools?: Array<{type: string; function: {name: string; [key: string]: unknown}}>
  stream?: boolean
  [key: string]: unknown
}

/** A scripted answer: a text, or tool calls. */
export type ChatAnswer = {text: string} | {toolCalls: Array<{id: string; name: string; arguments: Record<string, unknown>}>}

/** Decides a turn's answer from its request; `turn` counts streamed requests from 0. */
export type ChatScript = (request: ChatRequest, turn: number) => ChatAnswer

/** A running mock model. */
export interface MockChatProvider {
  /** For a provider's `baseURL`, e.g. `http://127.0.0.1:PORT/v1`. */
  baseUrl: string
  /** Every streamed request body received, in order. */
  requests: ChatRequest[]
  /** Errors thrown by the script (each also answered with HTTP 500), so a test can report them. */
  errors: Error[]
  close(): Promise<void>
}

/** The text of every `role: "tool"` message in the conversation, by `tool_call_id`. */
export function toolMessages(request: ChatRequest): Map<string, string> {
  const results = new Map<string, string>()
  for (const message of request.messages) {
    if (message.role !== 'tool') continue
    const content = message.content
    const text = typeof content === 'string' ? content : Array.isArray(content) ? content.map((part: {text?: string}) => part.text ?? JSON.stringify(part)).join('') : JSON.stringify(content)
    results.set(String(message.tool_call_id), text)
  }
  return results
}

const USAGE = {prompt_tokens: 100, completion_tokens: 10, total_tokens: 110}

/** Starts the mock on 127.0.0.1 with a free port. */
export async function startMockChatProvider(script: ChatScript): Promise<MockChatProvider> {
  const requests: ChatRequest[] = []
  const errors: Error[] = []
  const server: Server = createServer((req, res) => {
    void handle(req, res).catch((error: Error) => {
      errors.push(error)
      if (!res.headersSent) res.writeHead(500, {'content-type': 'application/json'})
      res.end(JSON.stringify({error: {message: error.message}}))
    })
  })

  async function handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const chunks: Buffer[] = []
    for await (const chunk of req) chunks.push(chunk as Buffer)
    const url = new URL(req.url ?? '/', 'http://127.0.0.1')
    if (req.method !== 'POST' || !url.pathname.endsWith('/chat/completions')) {
      res.writeHead(404, {'content-type': 'application/json'})
      res.end(JSON.stringify({error: {message: `mock model: no ${req.method} ${url.pathname}`}}))
      return
    }
    const body = JSON.parse(Buffer.concat(chunks).toString('utf8')) as ChatRequest
    const base = {id: `chatcmpl-${requests.length}`, created: 1, model: body.model ?? 'mock-model'}
    if (!body.stream) {
      // A side request (a session title): a short text.
      res.writeHead(200, {'content-type': 'application/json'})
      res.end(JSON.stringify({...base, object: 'chat.completion', choices: [{index: 0, message: {role: 'assistant', content: 'Scripted test'}, finish_reason: 'stop'}], usage: USAGE}))
      return
    }
    const turn = requests.length
    requests.push(body)
    const answer = script(body, turn)
    res.writeHead(200, {'content-type': 'text/event-stream', 'cache-control': 'no-cache', connection: 'keep-alive'})
    const send = (choices: unknown[], extra: Record<string, unknown> = {}) => res.write(`data: ${JSON.stringify({...base, object: 'chat.completion.chunk', choices, ...extra})}\n\n`)
    if ('text' in answer) {
      send([{index: 0, delta: {role: 'assistant', content: answer.text}, finish_reason: null}])
      send([{index: 0, delta: {}, finish_reason: 'stop'}])
    } else {
      const calls = answer.toolCalls.map((call, index) => ({index, id: call.id, type: 'function', function: {name: call.name, arguments: JSON.stringify(call.arguments)}}))
      send([{index: 0, delta: {role: 'assistant', tool_calls: calls}, finish_reason: null}])
      send([{index: 0, delta: {}, finish_reason: 'tool_calls'}])
    }
    send([], {usage: USAGE})
    res.end('data: [DONE]\n\n')
  }

  server.listen(0, '127.0.0.1')
  await once(server, 'listening')
  const {port} = server.address() as AddressInfo
  return {
    baseUrl: `http://127.0.0.1:${port}/v1`,
    requests,
    errors,
    async close() {
      server.closeAllConnections()
      await new Promise((resolve) => server.close(resolve))
    },
  }
}
