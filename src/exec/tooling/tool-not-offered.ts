import {type McpServer, ProtocolError, ProtocolErrorCode} from '@modelcontextprotocol/server'

import type {Level} from '../level.js'
import {levelOfTool} from '../tools/index.js'

/**
 * What a `tools/call` naming a tool this server does not offer is told: for a tool of a higher
 * level, that it is not offered here, which level offers it and how to start a server with it;
 * for an unknown name, the tools this server offers.
 * @param offered the tools of the served level, in listing order
 */
export function toolNotOfferedMessage(name: string, level: Level, offered: readonly string[]): string {
  const needed = levelOfTool(name)
  if (needed) {
    return (
      `Tool "${name}" is not offered at level ${level}, the level this server was started with; it needs level ${needed}. ` +
      `Start the server at level ${needed} or above (ak exec serve --level ${needed}; in library mode, ` +
      `createAgentExec({level: '${needed}'})). Tools offered here: ${offered.join(', ')}.`
    )
  }
  return `There is no tool "${name}". This server (level ${level}) offers: ${offered.join(', ')}.`
}

/** A request handler as the SDK's Protocol stores it. */
type StoredHandler = (request: {params?: {name?: unknown}}, ctx: unknown) => Promise<unknown>

/**
 * Makes `server` answer a `tools/call` for a tool it does not offer with JSON-RPC error -32602
 * (Invalid params, the MCP spec's code for an unknown tool: server/tools, "Error Handling") and
 * `toolNotOfferedMessage`, instead of the SDK's bare "Tool X not found". Call it once every tool
 * is registered.
 *
 * The SDK has no public hook before its tool lookup, so this wraps the `tools/call` handler
 * McpServer installed, in the low-level server's handler table (`Protocol._requestHandlers`).
 * @throws Error when the SDK no longer keeps that table or that handler (an SDK upgrade changed
 *   it): every server start then fails at once, and so do the tests.
 */
export function answerToolsNotOffered(server: McpServer, level: Level, offered: readonly string[]): void {
  const handlers = (server.server as unknown as {_requestHandlers?: unknown})._requestHandlers
  const original = handlers instanceof Map ? (handlers.get('tools/call') as StoredHandler | undefined) : undefined
  if (!(handlers instanceof Map) || typeof original !== 'function') {
    throw new Error('The MCP SDK no longer keeps its tools/call handler in Protocol._requestHandlers; update answerToolsNotOffered.')
  }
  const names = new Set(offered)
  handlers.set('tools/call', (request: {params?: {name?: unknown}}, ctx: unknown) => {
    const name = request.params?.name
    if (typeof name === 'string' && !names.has(name)) {
      return Promise.reject(new ProtocolError(ProtocolErrorCode.InvalidParams, toolNotOfferedMessage(name, level, offered)))
    }
    return original(request, ctx)
  })
}
