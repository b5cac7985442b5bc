import type {CheckResult, DoctorEnvironment, DoctorReport} from './check.js'
import {checkCodexCli} from './codex-cli-check.js'
import {checkExecServe} from './exec-serve-check.js'
import {checkNode} from './node-check.js'

/**
 * Runs every `ak doctor` check, in report order: Node.js, the codex CLI, then that
 * `ak exec serve` starts on the current folder. Checks never throw: a problem is a result.
 */
export async function runDoctor(environment: DoctorEnvironment): Promise<DoctorReport> {
  const checks: CheckResult[] = [checkNode(), await checkCodexCli(environment), await checkExecServe(environment)]
  return {ok: checks.every((check) => check.status !== 'fail'), checks}
}
