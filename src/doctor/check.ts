import {shellQuote} from '../codex/inspect.js'

/** How a doctor check came out: `fail` makes `ak doctor` exit 1; `warn` does not. */
export type CheckStatus = 'ok' | 'warn' | 'fail'

/** The part of ak a check belongs to: ak itself, AgentExec, or the Codex agent runtime. */
export type DoctorServer = 'ak' | 'exec' | 'codex-agent-runtime'

/** How each part is headed in the text report, in report order. */
export const SERVER_HEADINGS: Record<DoctorServer, string> = {
  ak: 'ak',
  exec: 'AgentExec (ak exec serve)',
  'codex-agent-runtime': 'Codex agent runtime (ak codex-agent-runtime serve)',
}

/** The outcome of one doctor check. */
export interface CheckResult {
  /** Short name of what was checked, e.g. `node`, `codex`, `exec serve`. */
  check: string
  status: CheckStatus
  /** What was found, in one line. */
  detail: string
  /** Further findings, one line each (e.g. discovery's notes about agent files). */
  notes?: string[]
  /** For a non-ok status: the command (or the step) that fixes it; absent when another check's fix comes first (a missing Codex home). */
  fix?: string
}

/** A check in the report, with the part of ak it belongs to. */
export interface ReportedCheck extends CheckResult {
  server: DoctorServer
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

/**
 * An `ak` command line to suggest as a fix, repeating `--codex-home` and `--plugin-root` when
 * they were passed to doctor (as absolute paths), so running it acts on what was checked.
 * @param flags which of the two flags the command takes
 */
export function akFix(words: string[], roots: {codexHome: string; pluginRoot: string}, environment: DoctorEnvironment, flags: Array<'codex-home' | 'plugin-root'> = ['codex-home', 'plugin-root']): string {
  const line = ['ak', ...words]
  if (environment.codexHome !== undefined && flags.includes('codex-home')) line.push('--codex-home', shellQuote(roots.codexHome))
  if (environment.pluginRoot !== undefined && flags.includes('plugin-root')) line.push('--plugin-root', shellQuote(roots.pluginRoot))
  return line.join(' ')
}

/** The whole doctor report. */
export interface DoctorReport {
  /** False when any check failed. */
  ok: boolean
  /** Grouped by server: ak, AgentExec, then the Codex agent runtime. */
  checks: ReportedCheck[]
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
