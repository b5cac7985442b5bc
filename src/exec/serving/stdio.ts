import {createExecConnection} from '../runtime.js'
import {createExecServer} from './server.js'
import {serveMcpStdio} from '../../mcp/serve-stdio.js'
import {ConnectionClient} from '../../mcp/text-first-clients.js'
import type {StdioEnd} from '../../mcp/stdio-transport.js'
import type {ExecRuntime} from '../context.js'

/**
 * Serves AgentExec over stdio (both protocol eras: a 2025-era `initialize` opening and a
 * 2026-07-28 opening) until the client goes away (stdin closes, stdout EPIPE), SIGINT/SIGTERM/SIGHUP
 * arrives or the transport fails (stdout breaks), then closes the connection
 * (stopping every command it started) and the runtime.
 *
 * stdout carries MCP frames only; nothing else in the process may write to it while this runs.
 * @returns why it stopped, once everything is closed.
 */
export async function serveExecStdio(runtime: ExecRuntime): Promise<StdioEnd> {
  const connection = createExecConnection()
  const client = new ConnectionClient()
  const service = serveMcpStdio(() => createExecServer(runtime, connection, client), runtime.log, (message) => client.observe(message))
  const end = await service.ended
  try {
    await service.close()
    await connection.close()
    await runtime.close()
  } finally {
    service.finish()
  }
  return end
}
