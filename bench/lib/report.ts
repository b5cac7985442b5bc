/**
 * Turns measured cases into `bench/RESULTS.md` (one table per case) and an SVG chart of ak's
 * median ratio to each peer against the case's target.
 */
import {cpus, loadavg, release, totalmem, type as osType} from 'node:os'
import {readFileSync} from 'node:fs'
import type {Summary} from './measure.js'

/** A target checked against the measurements: a ratio with its limit, or a plain yes/no. */
export interface Verdict {
  label: string
  /** ak's median divided by the peer's median (undefined for yes/no checks). */
  ratio?: number
  /** The ratio the target allows (met when ratio <= limit). */
  limit?: number
  met: boolean | undefined
  detail?: string
}

/** One measured case as the report shows it. */
export interface CaseReport {
  id: string
  title: string
  /** What one run measures, in a sentence. */
  measures: string
  target: string
  akName: string
  summaries: Summary[]
  verdicts: Verdict[]
  notes: string[]
}

/** ak's median ÷ the named contender's median; undefined when either is missing. */
export function ratioOf(summaries: Summary[], akName: string, peerName: string): number | undefined {
  const ak = summaries.find((s) => s.name === akName)
  const peer = summaries.find((s) => s.name === peerName)
  if (!ak || !peer || ak.error || peer.error || !(ak.median > 0) || !(peer.median > 0)) return undefined
  return ak.median / peer.median
}

/** A ratio target: ak ÷ peer must be at most `limit` ("no slower" is 1.1). */
export function ratioVerdict(summaries: Summary[], akName: string, peerName: string, limit: number, label?: string): Verdict {
  const ratio = ratioOf(summaries, akName, peerName)
  return {
    label: label ?? `${akName} ÷ ${peerName} ≤ ${limit}`,
    ratio,
    limit,
    met: ratio === undefined ? undefined : ratio <= limit,
  }
}

const ms = (value: number): string => (Number.isFinite(value) ? (value >= 100 ? value.toFixed(0) : value >= 10 ? value.toFixed(1) : value.toFixed(2)) : '–')

function verdictText(verdict: Verdict): string {
  const state = verdict.met === undefined ? 'not measured' : verdict.met ? 'met' : 'MISSED'
  const ratio = verdict.ratio === undefined ? '' : ` (ratio ${verdict.ratio.toFixed(2)})`
  return `- ${verdict.label}: **${state}**${ratio}${verdict.detail ? ` — ${verdict.detail}` : ''}`
}

function caseMarkdown(report: CaseReport): string {
  const factKeys = [...new Set(report.summaries.flatMap((s) => Object.keys(s.facts)))]
  const head = ['contender', 'median ms', 'min ms', 'max ms', 'runs', `${report.akName} ÷ this`, ...factKeys]
  const rows = report.summaries.map((s) => {
    const ratio = s.name === report.akName ? '1' : ratioOf(report.summaries, report.akName, s.name)?.toFixed(2) ?? '–'
    const name = s.detail ? `${s.name} (${s.detail})` : s.name
    if (s.error) return [name, `failed: ${s.error}`, '', '', '0', '', ...factKeys.map(() => '')]
    return [name, ms(s.median), ms(s.min), ms(s.max), String(s.runs), ratio, ...factKeys.map((k) => s.facts[k] ?? '')]
  })
  const escape = (cell: string): string => cell.replaceAll('|', '\\|').replaceAll('\n', ' ')
  const table = [head, head.map(() => '---'), ...rows].map((r) => `| ${r.map(escape).join(' | ')} |`).join('\n')
  return [
    `### ${report.title}`,
    '',
    `${report.measures} Target: ${report.target}`,
    '',
    table,
    '',
    ...report.verdicts.map(verdictText),
    ...(report.notes.length ? ['', ...report.notes.map((n) => `> ${n}`)] : []),
    '',
  ].join('\n')
}

/** A few lines describing the machine and its load, for the report header. */
export function machineDescription(loadAtStart: number[]): string[] {
  const cpu = cpus()
  let distro = ''
  try {
    distro = /^PRETTY_NAME="?([^"\n]*)/m.exec(readFileSync('/etc/os-release', 'utf8'))?.[1] ?? ''
  } catch {}
  const load = (values: number[]): string => values.map((v) => v.toFixed(2)).join(' / ')
  return [
    `- CPU: ${cpu.length} × ${cpu[0]?.model ?? 'unknown'}`,
    `- Memory: ${(totalmem() / 2 ** 30).toFixed(1)} GiB`,
    `- OS: ${distro || osType()} (kernel ${release()})`,
    `- Node.js: ${process.version} (for ak and for both npm peers)`,
    `- Load average (1/5/15 min) at start: ${load(loadAtStart)}; at end: ${load(loadavg())}`,
  ]
}

/** The whole RESULTS.md. */
export function resultsMarkdown(parts: {
  mode: string
  started: Date
  seconds: number
  machine: string[]
  versions: string[]
  setup: string[]
  cases: CaseReport[]
  chartFile?: string
  /** A hand-written analysis beside the results (file name), linked from the targets. */
  analysisFile?: string
}): string {
  const all = parts.cases.flatMap((c) => c.verdicts.map((v) => ({c, v})))
  const summary = all.map(({c, v}) => `| ${c.title} | ${v.label} | ${v.ratio === undefined ? '–' : v.ratio.toFixed(2)} | ${v.met === undefined ? 'not measured' : v.met ? 'met' : '**missed**'} |`)
  return [
    '# Benchmark results',
    '',
    `Produced by \`npm run bench${parts.mode === 'quick' ? ' -- --quick' : ''}\` on ${parts.started.toISOString().slice(0, 16).replace('T', ' ')} UTC, in ${Math.round(parts.seconds)} s. ` +
      'Every number is a wall time in milliseconds measured by the bench process; each case alternates its contenders and repeats them, and compares medians. ' +
      'The machine is shared with other work, so single runs are noisy: read the min–max spread beside each median.',
    '',
    '## Machine',
    '',
    ...parts.machine,
    '',
    '## Contenders and versions',
    '',
    ...parts.versions,
    '',
    '## Setup',
    '',
    ...parts.setup,
    '',
    '## Targets',
    '',
    '| case | target | ratio | state |',
    '|---|---|---|---|',
    ...summary,
    '',
    ...(parts.analysisFile ? [`Where the time goes when a target is missed (profiles, causes, what to change): [${parts.analysisFile}](${parts.analysisFile}).`, ''] : []),
    ...(parts.chartFile ? [`![ak's median ratio to each peer](${parts.chartFile})`, ''] : []),
    '## Cases',
    '',
    ...parts.cases.map(caseMarkdown),
  ].join('\n')
}

/** An SVG bar chart of every ratio verdict, on a log scale, with each target's limit marked. */
export function ratioChartSvg(cases: CaseReport[]): string {
  const items = cases.flatMap((c) => c.verdicts.filter((v) => v.ratio !== undefined).map((v) => ({...v, label: `${c.id}: ${v.label}`})))
  const rowHeight = 22
  const labelWidth = 430
  const plotWidth = 420
  const width = labelWidth + plotWidth + 70
  const height = 40 + items.length * rowHeight + 30
  const minLog = Math.log2(1 / 16)
  const maxLog = Math.log2(16)
  const x = (ratio: number): number => labelWidth + ((Math.min(Math.max(Math.log2(ratio), minLog), maxLog) - minLog) / (maxLog - minLog)) * plotWidth
  const esc = (s: string): string => s.replaceAll('&', '&amp;').replaceAll('<', '&lt;').replaceAll('>', '&gt;')
  const out = [
    `<svg xmlns="http://www.w3.org/2000/svg" width="${width}" height="${height}" font-family="sans-serif" font-size="12">`,
    `<rect width="100%" height="100%" fill="white"/>`,
    `<text x="10" y="20" font-size="14">ak's median time ÷ peer's median time (log scale; left of 1 = ak faster; | = target)</text>`,
  ]
  for (const tick of [1 / 16, 1 / 4, 1, 4, 16]) {
    out.push(`<line x1="${x(tick)}" y1="30" x2="${x(tick)}" y2="${height - 25}" stroke="${tick === 1 ? '#333' : '#ddd'}"/>`)
    out.push(`<text x="${x(tick)}" y="${height - 10}" text-anchor="middle">${tick < 1 ? `1/${1 / tick}` : tick}</text>`)
  }
  items.forEach((item, i) => {
    const y = 40 + i * rowHeight
    const colour = item.met ? '#3a9b5c' : '#d0523a'
    out.push(`<text x="${labelWidth - 8}" y="${y + 14}" text-anchor="end">${esc(item.label)}</text>`)
    out.push(`<rect x="${Math.min(x(1), x(item.ratio!))}" y="${y + 3}" width="${Math.max(1, Math.abs(x(item.ratio!) - x(1)))}" height="${rowHeight - 8}" fill="${colour}"/>`)
    if (item.limit !== undefined) out.push(`<line x1="${x(item.limit)}" y1="${y}" x2="${x(item.limit)}" y2="${y + rowHeight - 2}" stroke="black" stroke-width="2"/>`)
    out.push(`<text x="${labelWidth + plotWidth + 6}" y="${y + 14}">${item.ratio!.toFixed(2)}</text>`)
  })
  out.push('</svg>')
  return out.join('\n') + '\n'
}

/**
 * Folds the cases of a partial run (`--only`) into an existing results file instead of replacing
 * it: each case's section and its rows of the targets table replace those of the same title (or
 * are added), setup lines replace those of the same case prefix (`- exec:`), and a line under the
 * machine section records when the partial run was made, on which commit, under which load
 * (replacing the lines of earlier partial runs of no other cases).
 * Everything else (the other cases, the chart) stays as the last run left it.
 */
export function mergeResults(existing: string, parts: {started: Date; label: string; only: string[]; load: string; setup: string[]; cases: CaseReport[]}): string {
  const lines = existing.split('\n')
  const titles = new Set(parts.cases.map((c) => c.title))
  const sectionEnd = (from: number): number => {
    let i = from + 1
    while (i < lines.length && !lines[i]!.startsWith('## ')) i++
    return i
  }
  const sectionStart = (heading: string): number => lines.findIndex((l) => l === heading)
  const out: string[] = []
  let i = 0
  while (i < lines.length) {
    const line = lines[i]!
    if (line === '## Machine') {
      const end = sectionEnd(i)
      // A line of an earlier partial run whose cases this run measured again no longer describes any result.
      const superseded = (l: string): boolean => {
        const only = /^- `npm run bench -- (?:--quick )?--only ([\w,-]+)`/.exec(l)?.[1]
        return only !== undefined && only.split(',').every((name) => parts.only.includes(name))
      }
      const body = lines.slice(i, end).filter((l) => !superseded(l))
      while (body.length && body.at(-1) === '') body.pop()
      out.push(...body, `- ${parts.label} on ${parts.started.toISOString().slice(0, 16).replace('T', ' ')} UTC: load average (1/5/15 min) at its start ${parts.load}.`, '')
      i = end
    } else if (line === '## Setup') {
      const end = sectionEnd(i)
      const prefixOf = (l: string): string | undefined => /^- ([\w-]+):/.exec(l)?.[1]
      const replaced = new Set(parts.setup.map(prefixOf).filter((p) => p !== undefined))
      const body = lines.slice(i, end).filter((l) => !replaced.has(prefixOf(l) ?? ''))
      while (body.length && body.at(-1) === '') body.pop()
      out.push(...body, ...parts.setup, '')
      i = end
    } else if (line === '## Targets') {
      const end = sectionEnd(i)
      const body = lines.slice(i, end)
      const tableEnd = body.findIndex((l, k) => k > 0 && l.startsWith('|') && (body[k + 1] === undefined || !body[k + 1]!.startsWith('|')))
      const kept = body.slice(0, tableEnd + 1).filter((l) => !titles.has(l.split(' | ')[0]!.replace(/^\| /, '')))
      const rows = parts.cases.flatMap((c) => c.verdicts.map((v) => `| ${c.title} | ${v.label} | ${v.ratio === undefined ? '–' : v.ratio.toFixed(2)} | ${v.met === undefined ? 'not measured' : v.met ? 'met' : '**missed**'} |`))
      out.push(...kept, ...rows, ...body.slice(tableEnd + 1))
      i = end
    } else if (line === '## Cases') {
      const end = sectionEnd(i)
      const body = lines.slice(i + 1, end).join('\n')
      const chunks = body.split(/\n(?=### )/).filter((chunk) => chunk.trim() !== '')
      const fresh = new Map(parts.cases.map((c) => [c.title, caseMarkdown(c).trimEnd()]))
      const merged = chunks.map((chunk) => {
        const title = /^\n*### (.*)/.exec(chunk)?.[1]
        if (title === undefined || !fresh.has(title)) return chunk.trimEnd()
        const replacement = fresh.get(title)!
        fresh.delete(title)
        return replacement
      })
      out.push(line, '', ...merged.join('\n\n').split('\n'), '', ...[...fresh.values()].flatMap((c) => [...c.split('\n'), '']))
      i = end
    } else {
      out.push(line)
      i++
    }
  }
  if (sectionStart('## Cases') === -1) throw new Error('the existing results have no "## Cases" section: run the full bench instead')
  return out.join('\n').replace(/\n*$/, '\n')
}
