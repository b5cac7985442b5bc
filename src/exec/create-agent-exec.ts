import type {IncomingMessage, ServerResponse} from 'node:http'

import {type Logger, silentLogger} from '../log.js'
import {createExecHttpHandler} from './http/node-handler.js'
import {DEFAULT_LEVEL, type Level, parseLevel} from './level.js'
import {createExecRuntime} from './runtime.js'
import {Workspace} from './workspace.js'
import {type SandboxMode, parseSandboxPolicy} from './terminal/sandbox-policy.js'
import {openSandbox} from './terminal/sandbox.js'

/** Options of `createAgentExec`. */
export interface AgentExecOptions {
  /** Folder the tools are confined to; must exist. */
  workspace: string
  /** Access level: `read` (default), `files` or `terminal`; each contains the one before. */
  level?: Level
  /**
   * `Host` header values accepted; any other gets 403. Entries are hostnames (`example.com`,
   * `[::1]`: any port) or `hostname:port`. Unset: the `Host` header is not checked.
   */
  allowedHosts?: string[]
  /**
   * `Origin` header values accepted when a request carries one (browsers do); any other gets 403.
   * Entries are full origins (`https://app.example.com`), hostnames (any scheme and port) or
   * `hostname:port`. Unset: the `Origin` header is not checked.
   */
  allowedOrigins?: string[]
  /** Largest request body read, in bytes (default 4 MiB); a bigger one is answered 413. */
  maxBodyBytes?: number
  /**
   * Idle time after which a 2025-era MCP session expires, in ms (default 30 minutes), stopping
   * its commands.
   */
  sessionIdleMs?: number
  /**
   * Most 2025-era MCP sessions open at once (default 256, HTTP_MAX_SESSIONS); past it a new
   * `initialize` is answered 503 until a session ends (DELETE or idle expiry).
   */
  maxSessions?: number
  /** Where operator lines (one per tool call) go; default: nowhere. */
  log?: Logger
  /**
   * Runs each command in a sandbox (Linux, bubblewrap; DESIGN §4.8): `workspace-write` (writes
   * only inside the workspace and a private /tmp), `read-only` (no writes), or `off` (default).
   * Only the `terminal` level runs commands.
   */
  sandbox?: SandboxMode
  /** Lets sandboxed commands use the network (default false). */
  sandboxNetwork?: boolean
}

/** AgentExec mounted in a host application's HTTP server. */
export interface AgentExec {
  /**
   * Serves one MCP request (Streamable HTTP, both protocol eras) at whatever path the host routes
   * here. It does no authentication: call it only for requests the host has already allowed.
   * `parsedBody` is for hosts whose body parser already consumed the stream (`express.json()`).
   */
  handle(req: IncomingMessage, res: ServerResponse, parsedBody?: unknown): Promise<void>
  /** Ends every MCP session and stops every command and worker it started. Idempotent. */
  close(): Promise<void>
}

/**
 * Creates AgentExec for library mode (DESIGN §4.6): the same tools as `ak exec serve`, served
 * over Streamable HTTP by the host's own `node:http` (or Express, Fastify…) server. The host
 * decides who may reach `handle` — there is no token check inside — and should serve it over
 * HTTPS when it listens beyond loopback. With `allowedHosts`/`allowedOrigins`, requests with
 * another `Host`/`Origin` get 403 (DNS-rebinding protection).
 *
 * @throws BadInputError when the workspace does not exist or is not a folder, the level or the
 *   sandbox mode is unknown, or the sandbox cannot run here (SandboxUnavailableError, which says
 *   how to fix it).
 */
export async function createAgentExec(options: AgentExecOptions): Promise<AgentExec> {
  const level = parseLevel(options.level ?? DEFAULT_LEVEL)
  const sandboxPolicy = parseSandboxPolicy({sandbox: options.sandbox, sandboxNetwork: options.sandboxNetwork})
  const workspace = await Workspace.open(options.workspace)
  const log = options.log ?? silentLogger
  const sandbox = await openSandbox(sandboxPolicy, {workspace: workspace.root, level, log})
  const runtime = createExecRuntime({workspace, level, log, sandbox})
  const handler = createExecHttpHandler(runtime, {
    origins: {hosts: options.allowedHosts, origins: options.allowedOrigins},
    ...(options.maxBodyBytes === undefined ? {} : {maxBodyBytes: options.maxBodyBytes}),
    ...(options.sessionIdleMs === undefined ? {} : {sessionIdleMs: options.sessionIdleMs}),
    ...(options.maxSessions === undefined ? {} : {maxSessions: options.maxSessions}),
  })
  let closing: Promise<void> | undefined
  return {
    handle: (req, res, parsedBody) => handler.handle(req, res, parsedBody),
    close() {
      closing ??= handler.close().then(() => runtime.close())
      return closing
    },
  }
}
