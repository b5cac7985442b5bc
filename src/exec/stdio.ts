import {serveStdio} from '@modelcontextprotocol/server/stdio'

import {createExecConnection} from './runtime.js'
import {createExecServer} from './server.js'
import {type StdioEnd, watchedStdioTransport} from './stdio-transport.js'
import type {ExecRuntime} from './tools/tool.js'

/**
 * Serves AgentExec over stdio (both protocol eras: a 2025-era `initialize` opening and a
 * 2026-07-28 opening) until the client goes away (stdin closes, stdout EPIPE), SIGINT/SIGTERM/SIGHUP
 * arrives or the transport fails (e.g. a frame over 10 MiB), then closes the connection
 * (stopping every command it started) and the runtime.
 *
 * stdout carries MCP frames only; nothing else in the process may write to it while this runs.
 * @returns why it stopped, once everything is closed.
 */
export async function serveExecStdio(runtime: ExecRuntime): Promise<StdioEnd> {
  const connection = createExecConnection()
  const {transport, ended, reportError} = watchedStdioTransport(runtime.log)
  const handle = serveStdio(() => createExecServer(runtime, connection), {
    transport,
    onerror: (error) => {
      reportError(error)
      runtime.log.warn(`MCP transport: ${error.message}`)
    },
  })
  const end = await ended
  await handle.close().catch(() => undefined)
  await connection.close()
  await runtime.close()
  return end
}
