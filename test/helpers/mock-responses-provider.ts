/**
 * A mock model provider speaking the OpenAI Responses API on loopback, for tests that run the real
 * Codex CLI without a real model. Codex reads `model_provider = "<id>"` and
 * `[model_providers.<id>]` (`base_url`, `wire_api = "responses"`) from `$CODEX_HOME/config.toml`,
 * POSTs `<base_url>/responses` with `stream: true`, and reads server-sent events:
 * `response.created`, one `response.output_item.done` per output item, then `response.completed`.
 *
 * Each request is one model turn. A test scripts the turns with a function that gets the request
 * body (with every tool output Codex sends back) and returns the items to answer with: an
 * assistant message, or a function call of a tool Codex offered (MCP tools come grouped under a
 * namespace entry in the request's `tools`; use `findTool` rather than hard-coding the form, which
 * changes between Codex versions).
 */
import {once} from 'node:events'
import {type IncomingMessage, type Server, type ServerResponse, createServer} from 'node:http'
import type {AddressInfo} from 'node:net'

/** A request body as Codex sends it to `/responses` (only what tests read is typed). */
export interface ResponsesRequest {
  model?: string
  instructions?: string
  input?: Array<Record<string, unknown>>
  tools?: Array<Record<string, unknown>>
  reasoning?: Record<string, unknown> | null
  stream?: boolean
  [key: string]: unknown
}

/** One output item of a scripted turn. */
export type MockOutputItem =
  | {type: 'message'; text: string}
  | {type: 'function_call'; name: string; namespace?: string; arguments: Record<string, unknown>; callId?: string}

/** Decides a turn's output from its request; `turn` counts from 0. */
export type MockScript = (request: ResponsesRequest, turn: number) => MockOutputItem[]

/** A running mock provider. */
export interface MockResponsesProvider {
  /** For `base_url` in Codex's config, e.g. `http://127.0.0.1:PORT/v1`. */
  baseUrl: string
  /** Every `/responses` request body received, in order. */
  requests: ResponsesRequest[]
  /** Errors thrown by the script (each also answered with HTTP 500), so a test can report them. */
  errors: Error[]
  close(): Promise<void>
}

/** A tool as Codex offers it to the model: its name, and the namespace of an MCP server's tools. */
export interface OfferedTool {
  name: string
  namespace?: string
}

/**
 * Finds the tool `tool` of MCP server `server` in a request's `tools` list, in whichever form
 * this Codex version sends it: a namespace entry holding the server's tools (current versions),
 * or a flat function named `mcp__<server>__<tool>` (older ones).
 * @returns undefined when Codex did not offer the tool
 */
export function findTool(request: ResponsesRequest, server: string, tool: string): OfferedTool | undefined {
  for (const entry of request.tools ?? []) {
    const nested = entry.tools as Array<Record<string, unknown>> | undefined
    if (entry.type === 'namespace' && Array.isArray(nested)) {
      const namespace = String(entry.name ?? '')
      // Codex writes a server's name into the namespace with "-" and other characters as "_" (`mcp__ak_exec`).
      if (!namespace.includes(server) && !namespace.includes(server.replaceAll(/[^\w]/g, '_'))) continue
      const found = nested.find((candidate) => candidate.name === tool || String(candidate.name).endsWith(`__${tool}`))
      if (found) return {name: String(found.name), namespace}
    }
    const name = String(entry.name ?? '')
    if (name === `mcp__${server}__${tool}`) return {name}
  }
  return undefined
}

/** The outputs Codex sent back for earlier function calls, by call id (text of each output). */
export function functionCallOutputs(request: ResponsesRequest): Map<string, string> {
  const outputs = new Map<string, string>()
  for (const item of request.input ?? []) {
    if (item.type !== 'function_call_output') continue
    outputs.set(String(item.call_id), outputText(item.output))
  }
  return outputs
}

function outputText(output: unknown): string {
  if (typeof output === 'string') return output
  if (Array.isArray(output)) {
    return output.map((part) => (typeof part === 'object' && part && 'text' in part ? String(part.text) : JSON.stringify(part))).join('')
  }
  if (output && typeof output === 'object' && 'content' in output) return outputText((output as {content: unknown}).content)
  return JSON.stringify(output)
}

/** Starts the mock on 127.0.0.1 with a free port. */
export async function startMockResponsesProvider(script: MockScript): Promise<MockResponsesProvider> {
  const requests: ResponsesRequest[] = []
  const errors: Error[] = []
  let callCount = 0
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
    if (req.method === 'GET' && url.pathname.endsWith('/models')) {
      res.writeHead(200, {'content-type': 'application/json'})
      res.end(JSON.stringify({object: 'list', data: [], models: []}))
      return
    }
    if (req.method !== 'POST' || !url.pathname.endsWith('/responses')) {
      res.writeHead(404, {'content-type': 'application/json'})
      res.end(JSON.stringify({error: {message: `mock provider: no ${req.method} ${url.pathname}`}}))
      return
    }
    const body = JSON.parse(Buffer.concat(chunks).toString('utf8')) as ResponsesRequest
    const turn = requests.length
    requests.push(body)
    const items = script(body, turn)
    const responseId = `resp_mock_${turn}`
    res.writeHead(200, {'content-type': 'text/event-stream', 'cache-control': 'no-cache', connection: 'keep-alive'})
    const send = (type: string, data: Record<string, unknown>) => res.write(`event: ${type}\ndata: ${JSON.stringify({type, ...data})}\n\n`)
    send('response.created', {response: {id: responseId, object: 'response', status: 'in_progress', model: body.model}})
    items.forEach((item, index) => {
      send('response.output_item.done', {output_index: index, item: wireItem(item, turn, index, () => ++callCount)})
    })
    send('response.completed', {
      response: {
        id: responseId,
        object: 'response',
        status: 'completed',
        model: body.model,
        usage: {input_tokens: 10, input_tokens_details: {cached_tokens: 0}, output_tokens: 5, output_tokens_details: {reasoning_tokens: 0}, total_tokens: 15},
      },
    })
    res.end()
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

function wireItem(item: MockOutputItem, turn: number, index: number, nextCall: () => number): Record<string, unknown> {
  if (item.type === 'message') {
    return {
      type: 'message',
      id: `msg_mock_${turn}_${index}`,
      role: 'assistant',
      status: 'completed',
      content: [{type: 'output_text', text: item.text, annotations: []}],
    }
  }
  return {
    type: 'function_call',
    id: `fc_mock_${turn}_${index}`,
    status: 'completed',
    name: item.name,
    ...(item.namespace === undefined ? {} : {namespace: item.namespace}),
    arguments: JSON.stringify(item.arguments),
    call_id: item.callId ?? `call_mock_${nextCall()}`,
  }
}
