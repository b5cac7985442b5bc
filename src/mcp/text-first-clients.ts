import type {McpServer, RegisteredTool} from '@modelcontextprotocol/server'

/**
 * MCP clients (by `clientInfo.name`) that show their model a tool result's `structuredContent`
 * instead of its content whenever it is present: the Codex CLI, as `codex-mcp-client`
 * (codex-rs/protocol/src/models.rs, `CallToolResult::as_function_call_output_payload`; it also drops
 * image content then). ak's answers are written for models to read as text, so these clients get
 * the text alone where the structured form only restates it.
 */
export const TEXT_FIRST_CLIENTS: ReadonlySet<string> = new Set(['codex-mcp-client'])

/** Whether the client that introduced itself as `clientInfo` is one of TEXT_FIRST_CLIENTS. */
export function isTextFirstClient(clientInfo: {name: string} | undefined): boolean {
  return clientInfo !== undefined && TEXT_FIRST_CLIENTS.has(clientInfo.name)
}

/**
 * Once the connection's client has completed `initialize` (2025-era revisions) and turns out to be
 * a text-first client, takes the output schema off `tools` (registered on `server`), so that its
 * `tools/list` declares none and answers without `structuredContent` are what the listing promises.
 * Stateless 2026-07-28 requests never initialize; they keep the schemas (no text-first client
 * speaks that revision yet).
 * @returns whether this connection's client is text-first, for the tools' handlers to ask per call
 */
export function withholdOutputSchemasFromTextFirstClients(server: McpServer, tools: readonly RegisteredTool[]): () => boolean {
  let isTextFirst = false
  const previous = server.server.oninitialized
  server.server.oninitialized = () => {
    previous?.()
    // The SDK marks getClientVersion deprecated in favour of the per-request envelope, which
    // 2025-era connections (the only ones that initialize) do not have.
    // eslint-disable-next-line @typescript-eslint/no-deprecated
    isTextFirst = isTextFirstClient(server.server.getClientVersion())
    if (!isTextFirst) return
    for (const tool of tools) {
      tool.outputSchema = undefined
      tool.outputSchemaJson = undefined
    }
  }
  return () => isTextFirst
}
