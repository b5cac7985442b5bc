import {checkSandbox} from '../exec/terminal/sandbox.js'
import {type CheckResult, type DoctorEnvironment, ok, warn} from './check.js'

/**
 * Whether `ak exec serve --sandbox workspace-write` (network off, the strictest layout) can run
 * here, by the same check the server makes at start (checkSandbox): bubblewrap on PATH, recent
 * enough (MIN_BWRAP_VERSION) for commands to hold no capabilities and make no user namespace,
 * and able to run `/bin/true` in the sandbox, seccomp filter included, with the current folder as
 * the workspace. A warning when not: the sandbox is optional.
 */
export async function checkExecSandbox(environment: DoctorEnvironment): Promise<CheckResult> {
  const check = await checkSandbox({mode: 'workspace-write', network: false}, {workspace: environment.cwd, env: environment.env})
  if (!check.ok) return warn('sandbox', `exec serve --sandbox cannot run here: ${check.reason}`, check.fix)
  return ok(
    'sandbox',
    `${check.version || 'bubblewrap'} at ${check.bwrap} can run commands in a sandbox without capabilities (exec serve --sandbox workspace-write)`,
  )
}
