import {checkSandbox} from '../exec/terminal/sandbox.js'
import {type CheckResult, type DoctorEnvironment, ok, warn} from './check.js'

/**
 * Whether `ak exec serve --sandbox workspace-write` (network off, the strictest layout) can run
 * here: bubblewrap on PATH and able to create its namespaces, checked by running `/bin/true` in
 * the sandbox with the current folder as the workspace. A warning when not: the sandbox is
 * optional.
 */
export async function checkExecSandbox(environment: DoctorEnvironment): Promise<CheckResult> {
  const check = await checkSandbox({mode: 'workspace-write', network: false}, {workspace: environment.cwd, env: environment.env})
  if (!check.ok) return warn('sandbox', `exec serve --sandbox cannot run here: ${check.reason}`, check.fix)
  return ok('sandbox', `${check.version || 'bubblewrap'} at ${check.bwrap} can run commands in a sandbox (exec serve --sandbox workspace-write)`)
}
