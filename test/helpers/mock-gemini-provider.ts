/**
 * A mock model speaking the Gemini API (generateContent) on loopback, for tests that run the real
 * Gemini CLI without a real model. Gemini CLI reads `GOOGLE_GEMINI_BASE_URL` (with an API key from
 * `GEMINI_API_KEY`) and POSTs `<base>/v1beta/models/<model>:streamGenerateContent?alt=sse` for the
 * conversation, reading server-sent events whose `data:` is a `GenerateContentResponse`
 * (`candidates[0].content.parts`: `text` or `functionCall {name, args}` parts, then a
 * `finishReason`). Side requests (its model router, which asks for a complexity score, and its
 * next-speaker check) are plain `:generateContent` calls that want a JSON object as text: the mock
 * answers them with one that satisfies both.
 *
 * Each conversation request is one model turn. A test scripts the turns with a function that gets
 * the request body (the whole conversation, with the `functionResponse` parts Gemini CLI sends
 * back) and returns the parts to answer with.
 */
import {once} from 'node:events'
import {type IncomingMessage, type Server, type ServerResponse, createServer} from 'node:http'
import type {AddressInfo} from 'node:net'

/** A request body as Gemini CLI sends it (only what tests read is typed). */
export interface GeminiRequest {
  contents: Array<{role?: string; parts: Array<Record<string, unknown>>}>
  tools?: Array<{functionDeclarations?: Array<{name: string; [key: string]: unknown}>}>
  [key: string]: unknown
}

/** One part of a scripted answer. */
export type GeminiPart = {text: string} | {functionCall: {name: string; args: Record<string, unknown>}}

/** Decides a conversation turn's parts from its request; `turn` counts conversation requests from 0. */
export type GeminiScript = (request: GeminiRequest, turn: number) => GeminiPart[]

/** A running mock model. */
export interface MockGeminiProvider {
  /** For `GOOGLE_GEMINI_BASE_URL`, e.g. `http://127.0.0.1:PORT`. */
  baseUrl: string
  /** Every streamed (conversation) request body received, in order. */
  requests: GeminiRequest[]
  /** Errors thrown by the script (each also answered with HTTP 500), so a test can report them. */
  errors: Error[]
  close(): Promise<void>
}

/** The JSON text the mock answers side requests with: the router's score and the next-speaker check's verdict. */
const SIDE_ANSWER = JSON.stringify({complexity_reasoning: 'scripted test', complexity_score: 10, reasoning: 'scripted test', next_speaker: 'user'})

const USAGE = {promptTokenCount: 100, candidatesTokenCount: 10, totalTokenCount: 110}

/** Every function declaration the request offers, by name. */
export function offeredFunctions(request: GeminiRequest): string[] {
  return (request.tools ?? []).flatMap((tool) => (tool.functionDeclarations ?? []).map((declaration) => declaration.name))
}

/** The `response` of every `functionResponse` part in the conversation, in order, as JSON text, with its function's name. */
export function functionResponses(request: GeminiRequest): Array<{name: string; text: string}> {
  return request.contents.flatMap((content) =>
    content.parts.flatMap((part) => {
      const response = part.functionResponse as {name?: string; response?: unknown} | undefined
      return response ? [{name: String(response.name), text: JSON.stringify(response.response)}] : []
    }),
  )
}

/** Starts the mock on 127.0.0.1 with a free port. */
export async function startMockGeminiProvider(script: GeminiScript): Promise<MockGeminiProvider> {
  const requests: GeminiRequest[] = []
  const errors: Error[] = []
  const server: Server = createServer((req, res) => {
    void handle(req, res).catch((error: Error) => {
      errors.push(error)
      if (!res.headersSent) res.writeHead(500, {'content-type': 'application/json'})
      res.end(JSON.stringify({error: {code: 500, message: error.message, status: 'INTERNAL'}}))
    })
  })

  async function handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const chunks: Buffer[] = []
    for await (const chunk of req) chunks.push(chunk as Buffer)
    const url = new URL(req.url ?? '/', 'http://127.0.0.1')
    const method = /:(\w+)$/.exec(url.pathname)?.[1]
    if (req.method !== 'POST' || method === undefined) {
      res.writeHead(404, {'content-type': 'application/json'})
      res.end(JSON.stringify({error: {code: 404, message: `mock model: no ${req.method} ${url.pathname}`, status: 'NOT_FOUND'}}))
      return
    }
    if (method === 'countTokens') {
      res.writeHead(200, {'content-type': 'application/json'})
      res.end(JSON.stringify({totalTokens: 100}))
      return
    }
    if (method === 'generateContent') {
      res.writeHead(200, {'content-type': 'application/json'})
      res.end(JSON.stringify({candidates: [{index: 0, content: {role: 'model', parts: [{text: SIDE_ANSWER}]}, finishReason: 'STOP'}], usageMetadata: USAGE}))
      return
    }
    const body = JSON.parse(Buffer.concat(chunks).toString('utf8')) as GeminiRequest
    const turn = requests.length
    requests.push(body)
    const parts = script(body, turn)
    res.writeHead(200, {'content-type': 'text/event-stream', 'cache-control': 'no-cache', connection: 'keep-alive'})
    res.write(`data: ${JSON.stringify({candidates: [{index: 0, content: {role: 'model', parts}, finishReason: 'STOP'}], usageMetadata: USAGE})}\r\n\r\n`)
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
