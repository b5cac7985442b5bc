import {randomBytes} from 'node:crypto'

import {type Logger, silentLogger} from '../log.js'
import type {ChangeLog} from './journal/change-log.js'
import type {Level} from './level.js'
import {AllowedProtectedPaths} from './protected-paths.js'
import type {Sandbox} from './terminal/sandbox-policy.js'
import type {ExecConnection, ExecRuntime} from './context.js'
import {Journal, type JournalSetting} from './journal/journal.js'
import type {Workspace} from './workspace.js'

/** The runtime service key of the workspace's journal (closed with the runtime). */
export const JOURNAL_SERVICE = 'journal'

/** A service a runtime owns: created on first use, closed with the runtime. */
export interface RuntimeService {
  close(): Promise<void>
}

/**
 * Creates the state one serving process shares between its connections. `sandbox` must come from
 * openSandbox (checked to work here); default: no sandbox. `journal` says where changes are
 * journaled and how much is kept (default: the user's state folder, JOURNAL_DEFAULT_MAX_BYTES),
 * or `false` to keep no history; nothing is written there until a file tool changes a file.
 * `changeLog`, when given, is used instead (tests). `allowedProtected`: the protected paths the
 * operator made writable (AllowedProtectedPaths.parse); default: none.
 */
export function createExecRuntime(options: {
  workspace: Workspace
  level: Level
  log?: Logger
  sandbox?: Sandbox
  journal?: JournalSetting
  changeLog?: ChangeLog
  allowedProtected?: AllowedProtectedPaths
}): ExecRuntime {
  const services = new Map<string, unknown>()
  let changeLog = options.changeLog
  if (!changeLog) {
    const journal = new Journal(options.workspace.root, options.journal ?? {})
    services.set(JOURNAL_SERVICE, journal)
    changeLog = journal
  }
  let closing: Promise<void> | undefined
  const runtime: ExecRuntime = {
    changeLog,
    workspace: options.workspace,
    level: options.level,
    log: options.log ?? silentLogger,
    // Written out rather than imported, so that start-up does not load the sandbox module.
    sandbox: options.sandbox ?? {mode: 'off', network: true},
    allowedProtected: options.allowedProtected ?? AllowedProtectedPaths.NONE,
    services,
    close() {
      closedRuntimes.add(runtime)
      closing ??= Promise.allSettled(
        [...services.values()].map((service) => (service as Partial<RuntimeService>).close?.()),
      ).then(() => undefined)
      return closing
    },
  }
  return runtime
}

/** Runtimes whose close() has been called (made by createExecRuntime). */
const closedRuntimes = new WeakSet<ExecRuntime>()

/**
 * Whether `runtime`'s close() has been called. Work that would start a service later (the search
 * workers started after `initialized`) checks it, since a service made after the close would never
 * be stopped.
 */
export function isRuntimeClosed(runtime: ExecRuntime): boolean {
  return closedRuntimes.has(runtime)
}

/**
 * The runtime's instance of a service, created by `create` on first use. Tools use this for
 * state that outlives one call (the search worker pool, the command sessions).
 */
export function runtimeService<T extends RuntimeService>(runtime: ExecRuntime, key: string, create: () => T): T {
  let service = runtime.services.get(key) as T | undefined
  if (!service) {
    service = create()
    runtime.services.set(key, service)
  }
  return service
}

/** Creates a connection whose close callbacks run once, in order, when `close()` is called. */
export function createExecConnection(stateless = false): ExecConnection & {close(): Promise<void>} {
  const callbacks: Array<() => Promise<void> | void> = []
  let closing: Promise<void> | undefined
  return {
    id: stateless ? undefined : randomBytes(12).toString('base64url'),
    onClose(callback) {
      callbacks.push(callback)
    },
    close() {
      closing ??= (async () => {
        for (const callback of callbacks) await callback()
      })()
      return closing
    },
  }
}

/**
 * Settles the changes a crash left pending in the runtime's journal (recovery.ts), before the
 * runtime serves. A journal that cannot be read is reported on `log` and left alone: edits then
 * fail with the reason, and the read tools still serve.
 */
export async function settleJournal(runtime: ExecRuntime, log: Logger): Promise<void> {
  const {settleCrashedChanges} = await import('./journal/recovery.js')
  try {
    const settled = await settleCrashedChanges(runtime.changeLog, runtime.workspace, log)
    if (settled.applied + settled.unapplied > 0) {
      log.info(`journal: settled changes a crash left pending (${settled.applied} applied, ${settled.unapplied} not applied)`)
    }
  } catch (error) {
    log.warn(`the journal of changes cannot be read: ${error instanceof Error ? error.message : String(error)}`)
  }
}
