import type {Logger} from '../../log.js'
import {escapeControls} from '../../text-escape.js'
import {recoverInterruptedChanges} from '../files/change-recovery.js'
import {createExecRuntime} from '../runtime.js'
import type {ServeSettings} from './serve-options.js'
import {closeInheritedDescriptors} from '../terminal/inherited-descriptors.js'
import {collectAfterOutput} from '../terminal/output-collection.js'
import {installProcessGuard} from './process-guard.js'
import {describeSandbox} from '../terminal/sandbox-policy.js'
import {Workspace} from '../workspace.js'

/**
 * Runs the AgentExec server the way `ak exec serve` and `dist/agentexec.js` both do: opens the
 * workspace and the sandbox, then serves stdio (until stdin closes or SIGINT/SIGTERM/SIGHUP) or,
 * with `settings.http`, Streamable HTTP (until SIGINT/SIGTERM/SIGHUP), and stops every command and worker before returning.
 *
 * The server owns its process: it installs the process guard (installProcessGuard: an unexpected
 * failure is one line on stderr, not the end of every session) and closes the descriptors its
 * parent left open without close-on-exec (closeInheritedDescriptors), which no command may have.
 *
 * Only what the chosen transport needs is loaded: the HTTP stack (node:http, the SDK's Node
 * transport) is imported only with `--http`, the stdio transport only without it.
 * @throws BadInputError when the workspace does not exist or is not a folder, or the sandbox
 *   cannot run here (exit code 2, saying how to fix it)
 * @throws AkError when the HTTP address cannot be listened on, or the stdio transport failed (exit code 1)
 */
export async function serveAgentExec(settings: ServeSettings, log: Logger): Promise<void> {
  const workspace = await Workspace.open(settings.workspace)
  installProcessGuard(log)
  closeInheritedDescriptors()
  collectAfterOutput()
  // Loaded only with a sandbox: plain start-up never needs it.
  const sandbox =
    settings.sandbox.mode === 'off'
      ? undefined
      : await (await import('../terminal/sandbox.js')).openSandbox(settings.sandbox, {workspace: workspace.root, level: settings.level, log})
  const runtime = createExecRuntime({
    workspace,
    level: settings.level,
    log,
    sandbox,
    allowedProtected: settings.allowedProtected,
    ...(settings.journal === undefined ? {} : {journal: settings.journal}),
  })
  await recoverInterruptedChanges(runtime)
  if (runtime.sandbox.mode !== 'off') log.info(describeSandbox(runtime.sandbox))
  if (settings.http) {
    const {printListening, serveExecHttp} = await import('../http/serve-http.js')
    const {address, token, sessionIdleMs} = settings.http
    // Said once listening: a taken port gets its error alone.
    const onListening = (url: string) => {
      log.info(`serving ${escapeControls(workspace.root)} at level ${settings.level} over HTTP`)
      printListening(url)
    }
    await serveExecHttp(runtime, {address, token, onListening, ...(sessionIdleMs === undefined ? {} : {sessionIdleMs})})
    return
  }
  log.info(`serving ${escapeControls(workspace.root)} at level ${settings.level} over stdio`)
  if (process.stdin.isTTY) {
    log.info('waiting for an MCP client on stdin: start this server from an MCP client (see ak exec config); Ctrl-C or Ctrl-D ends it')
  }
  const [{serveExecStdio}, {transportFailed}] = await Promise.all([import('./stdio.js'), import('../../mcp/stdio-transport.js')])
  const end = await serveExecStdio(runtime)
  if (end.reason === 'transport-failed') throw transportFailed(end.message)
}
