/** How a doctor check came out: `fail` makes `ak doctor` exit 1; `warn` does not. */
export type CheckStatus = 'ok' | 'warn' | 'fail'

/** The outcome of one doctor check. */
export interface CheckResult {
  /** Short name of what was checked, e.g. `node`, `codex`, `exec serve`. */
  check: string
  status: CheckStatus
  /** What was found, in one line. */
  detail: string
  /** For a non-ok status: the command (or the step) that fixes it. */
  fix?: string
}

/** Where and with what the checks look: injected so tests can use fixture homes and a fake PATH. */
export interface DoctorEnvironment {
  /** The folder checked as the current project and as the workspace `exec serve` starts on. */
  cwd: string
  /** Environment variables (PATH, CODEX_HOME, AGENTKIT_PLUGIN_DIR…). */
  env: NodeJS.ProcessEnv
  /** The user's home folder. */
  homeDir: string
  /** `--codex-home`, when given. */
  codexHome?: string
  /** `--plugin-root`, when given. */
  pluginRoot?: string
}

/** The whole doctor report. */
export interface DoctorReport {
  /** False when any check failed. */
  ok: boolean
  checks: CheckResult[]
}

/** A check's result builder, so each check reads as one expression per outcome. */
export function ok(check: string, detail: string): CheckResult {
  return {check, status: 'ok', detail}
}

/** A non-blocking problem, with the step that fixes it. */
export function warn(check: string, detail: string, fix: string): CheckResult {
  return {check, status: 'warn', detail, fix}
}

/** A problem that makes `ak doctor` exit 1, with the step that fixes it. */
export function fail(check: string, detail: string, fix: string): CheckResult {
  return {check, status: 'fail', detail, fix}
}
