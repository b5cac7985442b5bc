import {JOURNAL_SERVICE, runtimeService} from '../runtime.js'
import type {Journal} from '../journal/journal.js'
import type {ToolContext} from '../context.js'
import {CommandSessions} from './command-sessions.js'

/** The key of the runtime's CommandSessions among its services. */
export const COMMAND_SESSIONS_SERVICE = 'command-sessions'

/**
 * The runtime's command sessions (created on first use, stopped with the runtime), attached to
 * the caller's connection so that its commands stop when it closes.
 */
export function commandSessionsFor(context: Pick<ToolContext, 'runtime' | 'connection'>): CommandSessions {
  const sessions = runtimeService(
    context.runtime,
    COMMAND_SESSIONS_SERVICE,
    () =>
      new CommandSessions({
        workspace: context.runtime.workspace.root,
        sandbox: context.runtime.sandbox,
        allowedProtected: context.runtime.allowedProtected,
        // The sandbox's quarantine lies beside the journal (sandbox-leftovers.ts).
        stateFolder: (context.runtime.services.get(JOURNAL_SERVICE) as Journal | undefined)?.folder,
        log: context.runtime.log,
      }),
  )
  sessions.attach(context.connection)
  return sessions
}
