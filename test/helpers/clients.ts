/**
 * Drives the built `ak` through the official MCP TypeScript clients: the 1.x line
 * (`@modelcontextprotocol/sdk`, 2025 era, `initialize` handshake) and the 2.x line
 * (`@modelcontextprotocol/client`, pinned to the 2026-07-28 revision).
 */
import {Client as ClientV2} from '@modelcontextprotocol/client'
import {StreamableHTTPClientTransport as HttpV2} from '@modelcontextprotocol/client'
import {StdioClientTransport as StdioV2} from '@modelcontextprotocol/client/stdio'
import {Client as ClientV1} from '@modelcontextprotocol/sdk/client/index.js'
import {StdioClientTransport as StdioV1} from '@modelcontextprotocol/sdk/client/stdio.js'
import {StreamableHTTPClientTransport as HttpV1} from '@modelcontextprotocol/sdk/client/streamableHttp.js'
import path from 'node:path'
import {PassThrough} from 'node:stream'
import {fileURLToPath} from 'node:url'

export const REPO_ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..')
export const RUN_JS = path.join(REPO_ROOT, 'bin', 'run.js')

/** The two official client lines every interop test runs against. */
export const CLIENT_LINES = ['v1 (2025 era)', 'v2 (2026-07-28)'] as const
export type ClientLine = (typeof CLIENT_LINES)[number]
export const MODERN_PROTOCOL_VERSION = '2026-07-28'

/** A tool call's answer as a test sees it. */
export interface ToolCallAnswer {
  text: string
  isError: boolean
  structured: Record<string, unknown> | undefined
  /** Every content block as the client returned it (text, image, …). */
  content: Array<{type: string; text?: string; data?: string; mimeType?: string}>
}

/** Per-call options: a progress callback (sends a progressToken) and a signal that cancels the call. */
export interface CallOptions {
  onProgress?: (progress: {progress: number; total?: number; message?: string}) => void
  signal?: AbortSignal
}

function requestOptions(options: CallOptions | undefined) {
  return {
    ...(options?.onProgress ? {onprogress: options.onProgress} : {}),
    ...(options?.signal ? {signal: options.signal} : {}),
    timeout: 600_000,
  }
}

/** A connected client, whichever line it is. */
export interface TestClient {
  line: ClientLine
  /** The server process's pid. */
  pid: number
  protocolVersion: string | undefined
  listTools(): Promise<Array<{name: string; description?: string; inputSchema: unknown; outputSchema?: unknown; annotations?: Record<string, unknown>}>>
  /** Calls a tool; `options` asks for progress notifications or cancels the call through its signal. */
  call(name: string, args: Record<string, unknown>, options?: CallOptions): Promise<ToolCallAnswer>
  /** Everything the server wrote on stderr so far. */
  stderr(): string
  close(): Promise<void>
}

function answerOf(raw: unknown): ToolCallAnswer {
  const result = raw as {content?: unknown; isError?: unknown; structuredContent?: unknown}
  const content = (result.content ?? []) as ToolCallAnswer['content']
  return {
    text: content.filter((block) => block.type === 'text').map((block) => block.text ?? '').join(''),
    isError: result.isError === true,
    structured: result.structuredContent as Record<string, unknown> | undefined,
    content,
  }
}

/**
 * Spawns `node bin/run.js <args>` and connects the given client line over stdio.
 * @param args ak's arguments, e.g. `['exec', 'serve', '--workspace', dir]`
 * @param options.entry the file to run instead of bin/run.js (e.g. the one-file bundle)
 * @param options.node the Node.js to run it with instead of this one's (see serverFilesFor)
 * @param options.runAs a program and arguments that exec node in turn (e.g. `setpriv --reuid …`
 *   to serve as another user); its process keeps the pid, so `pid` is still the server's
 * @param options.clientName the `clientInfo.name` the client introduces itself with (default `ak-tests`)
 */
export async function connectStdio(
  line: ClientLine,
  args: string[],
  options: {cwd?: string; env?: Record<string, string>; entry?: string; node?: string; runAs?: readonly string[]; clientName?: string} = {},
): Promise<TestClient> {
  const node = [options.node ?? process.execPath, options.entry ?? RUN_JS, ...args]
  const argv = [...(options.runAs ?? []), ...node]
  const params = {
    command: argv[0]!,
    args: argv.slice(1),
    cwd: options.cwd ?? REPO_ROOT,
    env: {...(process.env as Record<string, string>), ...options.env},
    stderr: 'pipe' as const,
  }
  let stderr = ''
  const info = {name: options.clientName ?? 'ak-tests', version: '1.0.0'}
  if (line === 'v1 (2025 era)') {
    const transport = new StdioV1(params)
    let protocolVersion: string | undefined
    // The 1.x client reports the negotiated revision only to the transport.
    ;(transport as unknown as {setProtocolVersion(version: string): void}).setProtocolVersion = (version: string) => {
      protocolVersion = version
    }
    ;(transport.stderr as PassThrough | null)?.on('data', (chunk: Buffer) => (stderr += chunk.toString()))
    const client = new ClientV1(info)
    await client.connect(transport)
    return {
      line,
      pid: transport.pid ?? -1,
      get protocolVersion() {
        return protocolVersion
      },
      listTools: async () => (await client.listTools()).tools as never,
      call: async (name, args, options) => answerOf(await client.callTool({name, arguments: args}, undefined, requestOptions(options))),
      stderr: () => stderr,
      close: () => client.close(),
    }
  }
  const transport = new StdioV2(params)
  ;(transport.stderr as PassThrough | null)?.on('data', (chunk: Buffer) => (stderr += chunk.toString()))
  const client = new ClientV2(info, {versionNegotiation: {mode: {pin: MODERN_PROTOCOL_VERSION}}})
  await client.connect(transport)
  return {
    line,
    pid: transport.pid ?? -1,
    protocolVersion: client.getNegotiatedProtocolVersion(),
    listTools: async () => (await client.listTools()).tools as never,
    call: async (name, args, options) => answerOf(await client.callTool({name, arguments: args}, requestOptions(options))),
    stderr: () => stderr,
    close: () => client.close(),
  }
}

/** A client connected over Streamable HTTP. */
export interface HttpTestClient extends TestClient {
  /** The `Mcp-Session-Id` the server gave (2025 era); undefined for a stateless 2026-07-28 client. */
  sessionId(): string | undefined
  /** Ends the session with an HTTP DELETE (2025 era). */
  terminateSession(): Promise<void>
}

/**
 * Connects the given client line to an MCP endpoint over Streamable HTTP.
 * @param url e.g. `http://127.0.0.1:PORT/mcp`
 * @param options.token sent as `Authorization: Bearer <token>`
 * @param options.headers any other headers to send on every request
 * @param options.pid the server process's pid, reported back as `pid`
 */
export async function connectHttp(
  line: ClientLine,
  url: string,
  options: {token?: string; headers?: Record<string, string>; pid?: number; fetch?: typeof fetch} = {},
): Promise<HttpTestClient> {
  const headers = {...options.headers, ...(options.token === undefined ? {} : {authorization: `Bearer ${options.token}`})}
  const info = {name: 'ak-tests', version: '1.0.0'}
  if (line === 'v1 (2025 era)') {
    const transport = new HttpV1(new URL(url), {requestInit: {headers}, ...(options.fetch ? {fetch: options.fetch} : {})})
    const client = new ClientV1(info)
    await client.connect(transport)
    return {
      line,
      pid: options.pid ?? -1,
      protocolVersion: transport.protocolVersion,
      listTools: async () => (await client.listTools()).tools as never,
      call: async (name, args) => answerOf(await client.callTool({name, arguments: args})),
      stderr: () => '',
      sessionId: () => transport.sessionId,
      terminateSession: () => transport.terminateSession(),
      close: () => client.close(),
    }
  }
  const transport = new HttpV2(new URL(url), {requestInit: {headers}})
  const client = new ClientV2(info, {versionNegotiation: {mode: {pin: MODERN_PROTOCOL_VERSION}}})
  await client.connect(transport)
  return {
    line,
    pid: options.pid ?? -1,
    protocolVersion: client.getNegotiatedProtocolVersion(),
    listTools: async () => (await client.listTools()).tools as never,
    call: async (name, args) => answerOf(await client.callTool({name, arguments: args})),
    stderr: () => '',
    sessionId: () => transport.sessionId,
    terminateSession: () => transport.terminateSession(),
    close: () => client.close(),
  }
}
