import {statSync} from 'node:fs'
import type {IncomingMessage, ServerResponse} from 'node:http'

import {BadInputError} from '../../errors.js'
import {type Logger, silentLogger} from '../../log.js'
import {createExecHttpHandler} from '../http/node-handler.js'
import {DEFAULT_LEVEL, type Level, parseLevel} from '../level.js'
import {recoverInterruptedChanges} from '../files/change-recovery.js'
import {AllowedProtectedPaths} from '../protected-paths.js'
import {createExecRuntime} from '../runtime.js'
import type {JournalSetting} from '../journal/journal.js'
import {Workspace} from '../workspace.js'
import {type SandboxMode, parseSandboxPolicy} from '../terminal/sandbox-policy.js'
import {openSandbox} from '../terminal/sandbox.js'

/** Options of `createAgentExec`. */
export interface AgentExecOptions {
  /** Folder the tools are confined to; must exist. */
  workspace: string
  /** Access level: `read` (default), `files` or `terminal`; each contains the one before. */
  level?: Level
  /**
   * `Host` header values accepted; any other gets 403. Entries are hostnames (`example.com`,
   * `[::1]`: any port) or `hostname:port`. Unset: a request that arrived on a loopback address
   * must carry a loopback `Host` (localhost, 127.0.0.0/8, [::1]), against DNS rebinding; on
   * another address the `Host` is not checked. Behind a reverse proxy on loopback, list the
   * public names here.
   */
  allowedHosts?: string[]
  /**
   * `Origin` header values accepted when a request carries one (browsers do); any other gets 403.
   * Entries are full origins (`https://app.example.com`), hostnames (any scheme and port) or
   * `hostname:port`. Unset: as `allowedHosts` unset, a loopback `Origin` on a loopback address.
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
  /**
   * Protected paths (DESIGN §4.9: git's config and hooks, agent, editor and shell settings) that
   * `edit` may change and sandboxed commands may write, relative to the workspace, e.g.
   * `['.vscode/settings.json']`; each makes that path and what lies below it writable. Default: none.
   */
  allowProtected?: string[]
  /**
   * The journal of changes (DESIGN §4.10): every change `edit` makes is recorded before it is
   * made, so that `ak exec undo` can revert it. `folder` is the state folder holding the journals
   * of every workspace (default `$XDG_STATE_HOME/ak`, else `~/.local/state/ak`; private to the
   * user, checked as such), `maxBytes` what one workspace's journal keeps (default 256 MiB,
   * JOURNAL_DEFAULT_MAX_BYTES; the oldest changes go first). `false` keeps no history: a change
   * is still recorded while it is made, so a crash cannot leave it half-done, and forgotten once
   * made.
   */
  journal?: JournalSetting
}

/** AgentExec mounted in a host application's HTTP server. */
export interface AgentExec {
  /**
   * Serves one MCP request (Streamable HTTP, both protocol eras) at whatever path the host routes
   * here. It does no authentication: call it only for requests the host has already allowed.
   * `parsedBody` is for hosts whose body parser already consumed the stream (`express.json()`).
   */
  handle(req: IncomingMessage, res: ServerResponse, parsedBody?: unknown): Promise<void>
  /**
   * Settles once AgentExec is ready to serve; rejects when it cannot (the workspace vanished, or
   * the sandbox cannot run here: SandboxUnavailableError says how to fix it). Requests wait for it
   * on their own; a host that wants to fail at start awaits it.
   */
  ready: Promise<void>
  /** Ends every MCP session and stops every command and worker it started. Idempotent. */
  close(): Promise<void>
}

/**
 * Creates AgentExec for library mode (DESIGN §4.6): the same tools as `ak exec serve`, served
 * over Streamable HTTP by the host's own `node:http` (or Express, Fastify…) server. The host
 * decides who may reach `handle` — there is no token check inside — and should serve it over
 * HTTPS when it listens beyond loopback. Requests with a `Host`/`Origin` outside
 * `allowedHosts`/`allowedOrigins` get 403; without the lists, only loopback names are served on a
 * loopback address (DNS-rebinding protection by default).
 *
 * Returns at once, as the reference text uses it (`const exec = createAgentExec(…)`); awaiting
 * the result works too. A sandbox that cannot run here (bubblewrap missing or unable to create
 * namespaces) is found while the server gets ready: every request is then answered 500 with the
 * reason and how to fix it, and `ready` rejects with the SandboxUnavailableError.
 * @throws BadInputError when the workspace does not exist or is not a folder, the level or the
 *   sandbox mode is unknown, or an `allowProtected` path is not a protected path inside it.
 */
export function createAgentExec(options: AgentExecOptions): AgentExec {
  const level = parseLevel(options.level ?? DEFAULT_LEVEL)
  const sandboxPolicy = parseSandboxPolicy({sandbox: options.sandbox, sandboxNetwork: options.sandboxNetwork})
  const allowedProtected = AllowedProtectedPaths.parse(options.allowProtected, options.workspace)
  checkWorkspaceFolder(options.workspace)
  const journal = checkJournalSetting(options.journal)
  const log = options.log ?? silentLogger
  // Resolving the real path and probing the sandbox are asynchronous; requests wait for them (once).
  const ready = (async () => {
    const workspace = await Workspace.open(options.workspace)
    const sandbox = await openSandbox(sandboxPolicy, {workspace: workspace.root, level, log})
    const runtime = createExecRuntime({workspace, level, log, sandbox, allowedProtected, ...(journal === undefined ? {} : {journal})})
    await recoverInterruptedChanges(runtime)
    const handler = createExecHttpHandler(runtime, {
      origins: {hosts: options.allowedHosts ?? 'loopback-socket', origins: options.allowedOrigins ?? 'loopback-socket'},
      ...(options.maxBodyBytes === undefined ? {} : {maxBodyBytes: options.maxBodyBytes}),
      ...(options.sessionIdleMs === undefined ? {} : {sessionIdleMs: options.sessionIdleMs}),
      ...(options.maxSessions === undefined ? {} : {maxSessions: options.maxSessions}),
    })
    return {runtime, handler}
  })()
  // A workspace removed between the check and the open, or a sandbox that cannot run, fails each request instead.
  ready.catch((error: unknown) => log.warn(`AgentExec cannot serve: ${error instanceof Error ? error.message : String(error)}`))
  // Handled here, so a host that never awaits `ready` gets no unhandled rejection.
  const settled = ready.then(() => undefined)
  settled.catch(() => undefined)
  let closing: Promise<void> | undefined
  return {
    ready: settled,
    async handle(req, res, parsedBody) {
      let handler
      try {
        ;({handler} = await ready)
      } catch (error) {
        res.writeHead(500, {'content-type': 'application/json'})
        const message = error instanceof Error ? error.message : String(error)
        res.end(JSON.stringify({jsonrpc: '2.0', id: null, error: {code: -32603, message}}))
        return
      }
      await handler.handle(req, res, parsedBody)
    },
    close() {
      closing ??= ready.then(
        ({runtime, handler}) => handler.close().then(() => runtime.close()),
        () => undefined,
      )
      return closing
    },
  }
}

/**
 * Checks, synchronously, that `dir` is an existing folder.
 * @throws BadInputError naming the option when it is not.
 */
function checkWorkspaceFolder(dir: unknown): asserts dir is string {
  if (typeof dir !== 'string' || dir.trim() === '') {
    throw new BadInputError("createAgentExec needs workspace: the path of an existing folder to serve, e.g. createAgentExec({workspace: '/path/to/project'}).")
  }
  let isFolder: boolean
  try {
    isFolder = statSync(dir).isDirectory()
  } catch {
    throw new BadInputError(`The workspace "${dir}" given to createAgentExec does not exist. Pass an existing folder as workspace.`)
  }
  if (!isFolder) throw new BadInputError(`The workspace "${dir}" given to createAgentExec is not a folder. Pass an existing folder as workspace.`)
}

/**
 * Checks `createAgentExec`'s `journal` option.
 * @throws BadInputError naming what is wrong
 */
function checkJournalSetting(setting: unknown): JournalSetting | undefined {
  if (setting === undefined || setting === false) return setting
  const options = setting as {folder?: unknown; maxBytes?: unknown}
  if (typeof setting !== 'object' || setting === null) {
    throw new BadInputError('createAgentExec\'s journal must be false (keep no history) or {folder?, maxBytes?}.')
  }
  if (options.folder !== undefined && (typeof options.folder !== 'string' || options.folder.trim() === '')) {
    throw new BadInputError('createAgentExec\'s journal.folder must be the path of a folder (the state folder holding the journals).')
  }
  if (options.maxBytes !== undefined && !(Number.isSafeInteger(options.maxBytes) && (options.maxBytes as number) >= 0)) {
    throw new BadInputError('createAgentExec\'s journal.maxBytes must be a whole number of bytes, 0 or more.')
  }
  return setting as JournalSetting
}
