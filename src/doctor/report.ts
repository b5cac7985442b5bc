import {type CheckResult, type DoctorReport, SERVER_HEADINGS} from './check.js'

/**
 * The text report, one part per server (a heading line, then its checks), parts separated by a
 * blank line so each can be read alone: one line per check, `ok|warn|fail  <check>: <detail>`,
 * an indented `note: <note>` line per note, and under every non-ok check an indented
 * `fix: <command>` line. With `onlyProblems` (for --quiet), ok lines (and parts left empty) are
 * left out. Pure.
 */
export function formatDoctorReport(report: DoctorReport, options: {onlyProblems?: boolean} = {}): string {
  const parts: string[] = []
  for (const [server, heading] of Object.entries(SERVER_HEADINGS)) {
    const lines: string[] = []
    for (const result of report.checks) {
      if (result.server !== server || (options.onlyProblems && result.status === 'ok')) continue
      lines.push(formatCheck(result))
      for (const note of result.notes ?? []) lines.push(`      note: ${note}`)
      if (result.status !== 'ok' && result.fix) lines.push(`      fix: ${result.fix}`)
    }
    if (lines.length > 0) parts.push([heading, ...lines].join('\n'))
  }
  return parts.join('\n\n')
}

function formatCheck(result: CheckResult): string {
  return `${result.status.padEnd(4)}  ${result.check}: ${result.detail}`
}
