import {CODEX_SANDBOX_STATE_META} from '../exec/terminal/codex-sandbox-state.js'
import {checkSandbox} from '../exec/terminal/sandbox.js'
import {type CheckResult, type DoctorEnvironment, ok, warn} from './check.js'

/**
 * What a terminal-level server does with the sandbox Codex reports for each call (the
 * `codex/sandbox-state-meta` request metadata, see exec/terminal/codex-sandbox-state.ts), when
 * bubblewrap works here (`canSandbox`) and when it does not.
 */
export function codexSandboxLine(canSandbox: boolean): string {
  return canSandbox
    ? `Codex's sandbox is followed too: a terminal-level server declares ${CODEX_SANDBOX_STATE_META}, and each command Codex sends runs in a sandbox no weaker than Codex's for that call (codex exec -s read-only stays read-only)`
    : `Codex's sandbox cannot be followed either: a command Codex sends with a read-only or workspace-write sandbox (${CODEX_SANDBOX_STATE_META}) is refused, not run unsandboxed`
}

/**
 * Whether `ak exec serve --sandbox workspace-write` (network off, the strictest layout) can run
 * here, by the same check the server makes at start (checkSandbox): bubblewrap on PATH, recent
 * enough (MIN_BWRAP_VERSION) for commands to hold no capabilities and make no user namespace,
 * and able to run `/bin/true` in the sandbox, seccomp filter included, with the current folder as
 * the workspace; and what that means for following Codex's sandbox (codexSandboxLine). A warning
 * when it cannot: the sandbox is optional.
 */
export async function checkExecSandbox(environment: DoctorEnvironment): Promise<CheckResult> {
  const check = await checkSandbox({mode: 'workspace-write', network: false}, {workspace: environment.cwd, env: environment.env})
  if (!check.ok) return warn('sandbox', `exec serve --sandbox cannot run here: ${check.reason.replace(/\.$/, '')}. ${codexSandboxLine(false)}`, check.fix)
  return ok(
    'sandbox',
    `${check.version || 'bubblewrap'} at ${check.bwrap} can run commands in a sandbox without capabilities (exec serve --sandbox workspace-write). ${codexSandboxLine(true)}`,
  )
}
