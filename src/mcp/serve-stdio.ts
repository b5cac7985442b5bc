import type {McpServer} from '@modelcontextprotocol/server'
import {serveStdio} from '@modelcontextprotocol/server/stdio'

import type {Logger} from '../log.js'
import {type StdioEnd, watchedStdioTransport} from './stdio-transport.js'

/** A stdio MCP connection being served. */
export interface StdioService {
  /** Settles once the connection is over: the client went away, a signal arrived, or the transport failed. */
  ended: Promise<StdioEnd>
  /** Closes the transport and the server instances. Never throws. */
  close(): Promise<void>
  /**
   * Lets the stop signals go: call once everything the connection started is stopped. Until
   * then a signal after `ended` makes the stop faster instead of ending the process.
   */
  finish(): void
}

/**
 * Serves MCP over this process's stdin/stdout, both protocol eras (a 2025-era `initialize`
 * opening and a 2026-07-28 opening) from one server factory, and reports transport errors on
 * `log`. The caller awaits `ended`, stops its own work in the order it needs, calls `close`, and
 * `finish` once all is stopped.
 * `onMessage` is shown every message the client sends, before the SDK handles it.
 * stdout carries MCP frames only; nothing else in the process may write to it meanwhile.
 */
export function serveMcpStdio(createServer: () => McpServer, log: Logger, onMessage?: (message: unknown) => void): StdioService {
  const {transport, ended, reportError, releaseSignals} = watchedStdioTransport(log, onMessage)
  const handle = serveStdio(createServer, {
    transport,
    onerror: (error) => {
      reportError(error)
      log.warn(`MCP transport: ${error.message}`)
    },
  })
  // ak's entry points (bin/stdout-pipe.js) call this when a write to stdout fails (a full disk):
  // the connection then ends as a failed transport, in order, instead of a crash.
  const globals = globalThis as unknown as Record<symbol, unknown>
  const onStdoutFailed = (error: Error) => {
    reportError(error)
    void transport.close().catch(() => undefined)
  }
  globals[STDOUT_FAILED] = onStdoutFailed
  void ended.then(() => {
    if (globals[STDOUT_FAILED] === onStdoutFailed) delete globals[STDOUT_FAILED]
  })
  return {ended, close: () => handle.close().catch(() => undefined), finish: releaseSignals}
}

/** The global hook bin/stdout-pipe.js calls when stdout fails (the same `Symbol.for` key). */
const STDOUT_FAILED = Symbol.for('ak.stdout-failed')
