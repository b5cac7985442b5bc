import type {CheckResult, DoctorReport} from './check.js'

/**
 * The text report: one line per check, `ok|warn|fail  <check>: <detail>`, and under every
 * non-ok check an indented `fix: <command>` line. With `onlyProblems` (for --quiet), ok lines are
 * left out. Pure.
 */
export function formatDoctorReport(report: DoctorReport, options: {onlyProblems?: boolean} = {}): string {
  const lines: string[] = []
  for (const result of report.checks) {
    if (options.onlyProblems && result.status === 'ok') continue
    lines.push(formatCheck(result))
    if (result.status !== 'ok' && result.fix) lines.push(`      fix: ${result.fix}`)
  }
  return lines.join('\n')
}

function formatCheck(result: CheckResult): string {
  return `${result.status.padEnd(4)}  ${result.check}: ${result.detail}`
}
