import type {McpServer, RegisteredTool} from '@modelcontextprotocol/server'

/**
 * MCP clients (by `clientInfo.name`) that show their model a tool result's `structuredContent`
 * instead of its content whenever it is present: the Codex CLI, as `codex-mcp-client`
 * (codex-rs/protocol/src/models.rs, `CallToolResult::as_function_call_output_payload`; it also drops
 * image content then), and Claude Code, as `claude-code` (seen in the interop suite: it passed
 * `exec_command`'s structured form to the model as JSON). ak's answers are written for models to
 * read as text, so these clients get the text alone where the structured form only restates it.
 */
export const TEXT_FIRST_CLIENTS: ReadonlySet<string> = new Set(['codex-mcp-client', 'claude-code'])

/** The `_meta` key under which a 2026-07-28 request carries its client's `clientInfo` (the per-request envelope). */
export const CLIENT_INFO_META_KEY = 'io.modelcontextprotocol/clientInfo'

/** Whether the client that introduced itself as `clientInfo` is one of TEXT_FIRST_CLIENTS. */
export function isTextFirstClient(clientInfo: unknown): boolean {
  if (typeof clientInfo !== 'object' || clientInfo === null || !Object.hasOwn(clientInfo, 'name')) return false
  const {name} = clientInfo as {name: unknown}
  return typeof name === 'string' && TEXT_FIRST_CLIENTS.has(name)
}

/**
 * The client at the other end of one stdio connection, as its own messages name it: `initialize`'s
 * `clientInfo` (2025-era revisions) or the envelope every 2026-07-28 request carries. The stdio
 * reader shows it each message before the SDK handles it, so a server instance knows its client
 * from the first request on, `tools/list` included (the SDK records an envelope's client only for
 * HTTP requests).
 */
export class ConnectionClient {
  /** The client's `clientInfo.name`, once a message named it. */
  name: string | undefined

  /** Notes the client a JSON-RPC message names, if it names one. Never throws. */
  observe(message: unknown): void {
    if (typeof message !== 'object' || message === null) return
    const {method, params} = message as {method?: unknown; params?: unknown}
    if (typeof params !== 'object' || params === null) return
    const found =
      method === 'initialize'
        ? (params as {clientInfo?: unknown}).clientInfo
        : ((params as {_meta?: Record<string, unknown>})._meta ?? {})[CLIENT_INFO_META_KEY]
    if (typeof found === 'object' && found !== null && typeof (found as {name?: unknown}).name === 'string') {
      this.name = (found as {name: string}).name
    }
  }

  /** Whether the client is one of TEXT_FIRST_CLIENTS. */
  get isTextFirst(): boolean {
    return this.name !== undefined && TEXT_FIRST_CLIENTS.has(this.name)
  }
}

/** What a server's tools ask about its client: see textFirstSwitch. */
export interface TextFirstSwitch {
  /**
   * Whether the client of this connection, or of the call whose envelope (`ctx.mcpReq.envelope`)
   * is given, is text-first: the tool then answers without `structuredContent`.
   */
  isTextFirst(envelope?: object): boolean
  /**
   * Makes `tool` declare no output schema while the client is text-first, so that its `tools/list`
   * lists none and answers without `structuredContent` are what the listing promises (the SDK
   * reads a tool's `outputSchema` for each listing and each result it checks).
   */
  withholdOutputSchema(tool: RegisteredTool): void
}

/**
 * The text-first switch of one server instance. Its client is the one `server` recorded
 * (`initialize`, or a 2026-07-28 HTTP request's envelope), or `client` (a stdio connection's).
 */
export function textFirstSwitch(server: McpServer, client?: ConnectionClient): TextFirstSwitch {
  // The SDK marks getClientVersion deprecated in favour of the per-request envelope, which the
  // listing's handler is not given.
  // eslint-disable-next-line @typescript-eslint/no-deprecated
  const isConnectionTextFirst = () => (client?.isTextFirst ?? false) || isTextFirstClient(server.server.getClientVersion())
  return {
    isTextFirst: (envelope) =>
      isConnectionTextFirst() || (envelope !== undefined && isTextFirstClient((envelope as Record<string, unknown>)[CLIENT_INFO_META_KEY])),
    withholdOutputSchema(tool) {
      let schema = tool.outputSchema
      Object.defineProperty(tool, 'outputSchema', {
        get: () => (isConnectionTextFirst() ? undefined : schema),
        set: (value: typeof schema) => (schema = value),
        enumerable: true,
        configurable: true,
      })
    },
  }
}
