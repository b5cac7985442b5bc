import {execa} from 'execa'

import {type CheckResult, type DoctorEnvironment, ok, warn} from './check.js'
import {findExecutable} from './find-executable.js'

/** How long `codex --version` may take before the check gives up on it, in ms. */
export const CODEX_VERSION_TIMEOUT_MS = 10_000

/** The command that installs the Codex CLI (its npm package). */
export const CODEX_INSTALL_COMMAND = 'npm install -g @openai/codex'

/**
 * Checks that `codex` is on PATH and answers `codex --version`. Only the Codex agent runtime
 * needs it (each agent call runs `codex exec`), and `serve` starts without it (DESIGN §5.4), so
 * a missing or broken `codex` is a warning.
 */
export async function checkCodexCli(environment: DoctorEnvironment): Promise<CheckResult> {
  const codex = await findExecutable('codex', environment.env.PATH)
  if (!codex) {
    return warn('codex', 'codex is not on PATH, so agent calls of the Codex agent runtime will fail', CODEX_INSTALL_COMMAND)
  }
  try {
    const {stdout} = await execa(codex, ['--version'], {
      env: environment.env,
      extendEnv: false,
      cwd: environment.cwd,
      timeout: CODEX_VERSION_TIMEOUT_MS,
      stdin: 'ignore',
    })
    return ok('codex', `${versionOf(stdout)} at ${codex}`)
  } catch (error) {
    const reason = (error as {shortMessage?: string}).shortMessage ?? String(error)
    return warn('codex', `${codex} did not answer --version: ${reason.split('\n', 1)[0]}`, `${CODEX_INSTALL_COMMAND} (reinstall)`)
  }
}

/** "codex-cli 0.171.0" → "codex 0.171.0"; anything else is quoted as printed (first line). */
export function versionOf(output: string): string {
  const line = output.trim().split('\n', 1)[0] ?? ''
  const version = /(\d+\.\d+\.\d+\S*)/.exec(line)?.[1]
  return version ? `codex ${version}` : `codex (version output: ${JSON.stringify(line)})`
}
