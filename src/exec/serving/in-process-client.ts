import {type CallToolResult, Client, type Tool} from '@modelcontextprotocol/client'
import {InMemoryTransport} from '@modelcontextprotocol/server'

import {AK_VERSION} from '../../version.js'
import {createExecConnection} from '../runtime.js'
import {createExecServer} from './server.js'
import type {ExecRuntime} from '../context.js'

/** A connected official MCP client talking to an in-process AgentExec server. */
export interface InProcessExecClient {
  /** Every tool the server lists (`tools/list`, all pages), exactly as a client receives them. */
  listTools(): Promise<Tool[]>
  /** One `tools/call`, answered the way any client would see it (`isError` results included). */
  callTool(name: string, args: Record<string, unknown>): Promise<CallToolResult>
  /** Closes the client, the connection (stopping what it started) and the server. */
  close(): Promise<void>
}

/**
 * Connects the official MCP client (`@modelcontextprotocol/client`) to a server built by
 * `createExecServer` for `runtime`, over an in-memory transport pair: the same server code and
 * protocol messages as `ak exec serve`, without a subprocess. The caller owns `runtime` and
 * closes it after `close()`.
 */
export async function connectInProcessExecClient(runtime: ExecRuntime): Promise<InProcessExecClient> {
  const connection = createExecConnection()
  const server = createExecServer(runtime, connection)
  const [clientSide, serverSide] = InMemoryTransport.createLinkedPair()
  await server.connect(serverSide)
  const client = new Client({name: 'ak', version: AK_VERSION})
  await client.connect(clientSide)
  return {
    async listTools() {
      const tools: Tool[] = []
      let cursor: string | undefined
      do {
        const page = await client.listTools(cursor ? {cursor} : undefined)
        tools.push(...page.tools)
        cursor = page.nextCursor
      } while (cursor)
      return tools
    },
    async callTool(name, args) {
      return (await client.callTool({name, arguments: args})) as CallToolResult
    },
    async close() {
      await client.close().catch(() => undefined)
      await server.close().catch(() => undefined)
      await connection.close()
    },
  }
}
