import type {Logger} from '../log.js'
import type {ChangeLog} from './journal/change-log.js'
import type {ToolAnswer} from './tools/tool.js'
import type {Level} from './level.js'
import type {AllowedProtectedPaths} from './protected-paths.js'
import type {Sandbox} from './terminal/sandbox-policy.js'
import type {Workspace} from './workspace.js'

/**
 * What one serving process shares between all its connections: the workspace, the level and
 * the long-lived services the tools use. Created once by `createExecRuntime`.
 */
export interface ExecRuntime {
  workspace: Workspace
  level: Level
  log: Logger
  /** The sandbox commands run in (`mode` `off`: none). */
  sandbox: Sandbox
  /**
   * Where every change of the file tools is recorded before it is made (DESIGN §4.10): the
   * workspace's journal, or one that keeps records only while changes are made (journaling off),
   * so that a change a crash interrupts can always be rolled back by the next server.
   */
  changeLog: ChangeLog
  /** The protected paths the operator made writable (DESIGN §4.9); `AllowedProtectedPaths.NONE` by default. */
  allowedProtected: AllowedProtectedPaths
  /** Services registered by tools that need state across calls (search pool, command sessions). */
  services: Map<string, unknown>
  /** Stops everything the runtime started (commands, workers). Idempotent. */
  close(): Promise<void>
}

/**
 * One MCP connection: a stdio process or a 2025-era HTTP session. Stateless 2026-07-28 HTTP
 * requests have no connection (`id` undefined), and there a command session id is the capability.
 */
export interface ExecConnection {
  /** Random id of the connection; undefined for stateless requests. */
  id: string | undefined
  /** Callbacks run when the connection closes (e.g. stop its commands). */
  onClose(callback: () => Promise<void> | void): void
}

/** Everything a tool call gets besides its arguments. */
export interface ToolContext {
  runtime: ExecRuntime
  workspace: Workspace
  connection: ExecConnection
  /** Aborted when the client cancels the call or the connection closes. */
  signal: AbortSignal
  /** Names of the tool's `ignoredArguments` this call gave (see `parseToolInput`); none when absent. */
  ignoredArguments?: readonly string[]
  /** The request's `_meta` (e.g. Codex's sandbox state, codex-sandbox-state.ts); none when absent. */
  meta?: Readonly<Record<string, unknown>>
  /** Present when the call's client declared the MCP Tasks extension: the call may become a task (DESIGN §4.11). */
  task?: ToolTaskOffer
}

/** The work of a call that became a task: what it answers in the end, and how to stop it. */
export interface ToolTask {
  /** The call's answer once its work is over; a rejection is the call's tool error (an `isError` result). */
  answer: Promise<ToolAnswer>
  /** Stops the work (tasks/cancel, the task's idle limit, its connection closing); settles once it is stopped. */
  cancel(): Promise<void>
  /** A short line on the work's progress now, shown as the task's status message. */
  statusMessage?(): string | undefined
}

/** A call's way to become a task: `start` hands its work over and returns false when no task can start now. */
export interface ToolTaskOffer {
  start(task: ToolTask): boolean
}
