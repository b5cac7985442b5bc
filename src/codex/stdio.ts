import {serveMcpStdio} from '../mcp/serve-stdio.js'
import {ConnectionClient} from '../mcp/text-first-clients.js'
import type {StdioEnd} from '../mcp/stdio-transport.js'
import type {CodexAgentRuntime} from './runtime.js'
import {createCodexAgentServer} from './server.js'

/**
 * Serves the runtime over stdio (both MCP protocol eras from one server factory) until the client
 * goes away (stdin closes, stdout EPIPE: exit 0), SIGINT/SIGTERM/SIGHUP arrives (exit 0) or the transport
 * fails (stdout breaks: exit 1), then stops every running dispatch.
 * stdout carries MCP frames only.
 * @returns why it stopped, once everything is closed.
 */
export async function serveCodexAgentStdio(runtime: CodexAgentRuntime): Promise<StdioEnd> {
  const client = new ConnectionClient()
  const service = serveMcpStdio(() => createCodexAgentServer(runtime, client), runtime.log, (message) => client.observe(message))
  const end = await service.ended
  try {
    await runtime.close()
    await service.close()
  } finally {
    service.finish()
  }
  return end
}
