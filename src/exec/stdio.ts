import {serveStdio} from '@modelcontextprotocol/server/stdio'

import {createExecConnection} from './runtime.js'
import {createExecServer} from './server.js'
import type {ExecRuntime} from './tools/tool.js'

/** Why a stdio server stopped. */
export type StdioStopReason = 'stdin-closed' | 'SIGINT' | 'SIGTERM'

/**
 * Serves AgentExec over stdio (both protocol eras: a 2025-era `initialize` opening and a
 * 2026-07-28 opening) until stdin closes or SIGINT/SIGTERM arrives, then closes the connection
 * (stopping every command it started) and the runtime.
 *
 * stdout carries MCP frames only; nothing else in the process may write to it while this runs.
 * @returns the reason it stopped, once everything is closed.
 */
export async function serveExecStdio(runtime: ExecRuntime): Promise<StdioStopReason> {
  const connection = createExecConnection()
  const handle = serveStdio(() => createExecServer(runtime, connection), {
    onerror: (error) => runtime.log.warn(`MCP transport: ${error.message}`),
  })
  const reason = await new Promise<StdioStopReason>((resolve) => {
    process.stdin.once('end', () => resolve('stdin-closed'))
    process.stdin.once('close', () => resolve('stdin-closed'))
    process.once('SIGINT', () => resolve('SIGINT'))
    process.once('SIGTERM', () => resolve('SIGTERM'))
  })
  await handle.close().catch(() => undefined)
  await connection.close()
  await runtime.close()
  return reason
}
