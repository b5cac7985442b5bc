import {serveStdio} from '@modelcontextprotocol/server/stdio'

import type {CodexAgentRuntime} from './runtime.js'
import {createCodexAgentServer} from './server.js'

/** Why the stdio server stopped: a clean disconnect or a signal (exit 0), or a transport failure (exit 1). */
export type CodexStdioStopReason = 'stdin-closed' | 'SIGINT' | 'SIGTERM' | 'transport-failed'

/**
 * Serves the runtime over stdio (both MCP protocol eras from one server factory) until stdin
 * closes, SIGINT/SIGTERM arrives or stdout fails, then stops every running dispatch.
 * stdout carries MCP frames only.
 * @returns the reason it stopped, once everything is closed.
 */
export async function serveCodexAgentStdio(runtime: CodexAgentRuntime): Promise<CodexStdioStopReason> {
  const handle = serveStdio(() => createCodexAgentServer(runtime), {
    onerror: (error) => runtime.log.warn(`MCP transport: ${error.message}`),
  })
  const reason = await new Promise<CodexStdioStopReason>((resolve) => {
    process.stdin.once('end', () => resolve('stdin-closed'))
    process.stdin.once('close', () => resolve('stdin-closed'))
    process.stdout.once('error', () => resolve('transport-failed'))
    process.once('SIGINT', () => resolve('SIGINT'))
    process.once('SIGTERM', () => resolve('SIGTERM'))
  })
  await runtime.close()
  await handle.close().catch(() => undefined)
  return reason
}
