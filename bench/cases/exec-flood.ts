/**
 * 64 commands flooding their output at once (each runs `yes`, nobody polls them): the server's
 * peak memory, and how quickly it still answers `read` meanwhile.
 */
import {mkdirSync, writeFileSync} from 'node:fs'
import {loadavg} from 'node:os'
import path from 'node:path'
import type {BenchContext} from '../lib/contenders.js'
import {median, timed, type Summary} from '../lib/measure.js'
import {connectServer} from '../lib/mcp.js'
import type {CaseReport} from '../lib/report.js'

/** Commands flooding at once: ak's limit of running commands. */
const FLOOD_COMMANDS = 64
/** How long `read` is timed while they run, in ms. */
const FLOOD_MS = 10_000
const QUICK_FLOOD_MS = 3_000
/** `read` calls timed before the flood, for comparison. */
const IDLE_READS = 20
/** The server's peak resident memory the target allows (VmHWM), in bytes. */
const PEAK_RSS_LIMIT_BYTES = 400 * 2 ** 20
/** The median `read` latency the target allows during the flood, in ms. */
const READ_P50_LIMIT_MS = 20

const mib = (bytes: number | undefined): string => (bytes === undefined ? '?' : `${(bytes / 2 ** 20).toFixed(0)} MiB`)
const load = (): string => loadavg().map((v) => v.toFixed(2)).join(' / ')

function summary(name: string, detail: string, values: number[], facts: Record<string, string> = {}): Summary {
  return {name, detail, median: median(values), min: Math.min(...values), max: Math.max(...values), runs: values.length, facts}
}

function percentile(values: number[], share: number): number {
  const sorted = [...values].sort((a, b) => a - b)
  return sorted[Math.min(sorted.length - 1, Math.floor(share * sorted.length))]!
}

/** Starts 64 `yes` commands on one server and times `read` of a 200-line file while they run. */
export async function execFloodCase(context: BenchContext): Promise<CaseReport> {
  const workspace = path.join(context.tmp, 'exec-flood-workspace')
  mkdirSync(workspace, {recursive: true})
  writeFileSync(path.join(workspace, 'file.txt'), Array.from({length: 200}, (_, i) => `line ${i + 1} of a small text file`).join('\n') + '\n')
  const floodMs = context.quick ? QUICK_FLOOD_MS : FLOOD_MS
  context.setup.push(`- exec-flood: ${FLOOD_COMMANDS} commands \`yes\` started with exec_command (nobody polls them) on one server; \`read\` of a 200-line file timed back to back for ${floodMs / 1000} s meanwhile.`)
  const loadBefore = load()
  const ak = await connectServer(context.ak.line(workspace, 'terminal', context.profileDir))
  try {
    const read = async () => {
      const {ms, value} = await timed(() => ak.call('read', {path: 'file.txt'}))
      if (value.isError) throw new Error(`read answered: ${value.text.slice(0, 200)}`)
      return ms
    }
    const idle: number[] = []
    for (let i = 0; i < IDLE_READS + 1; i++) idle.push(await read())
    idle.shift()
    const idlePeak = ak.peakRssBytes()
    for (let i = 0; i < FLOOD_COMMANDS; i++) {
      const answer = await ak.call('exec_command', {cmd: 'yes', yield_time_ms: 250, max_output_tokens: 16})
      if (answer.structured?.exit_code !== 'running') throw new Error(`command ${i + 1} did not keep running: ${answer.text.slice(0, 200)}`)
    }
    const during: number[] = []
    const started = performance.now()
    while (performance.now() - started < floodMs) during.push(await read())
    const peak = ak.peakRssBytes()
    const p50 = median(during)
    return {
      id: 'exec-flood',
      title: `${FLOOD_COMMANDS} commands printing as fast as they can, and read meanwhile`,
      measures: `${FLOOD_COMMANDS} \`yes\` commands run at once on one server and nobody polls them; one run is one \`read\` call of a 200-line file, back to back for ${floodMs / 1000} s (before the flood: ${IDLE_READS} calls).`,
      target: `server peak RSS ≤ ${mib(PEAK_RSS_LIMIT_BYTES)}; \`read\` median ≤ ${READ_P50_LIMIT_MS} ms during the flood.`,
      akName: 'read during the flood',
      summaries: [
        summary('read during the flood', context.ak.form, during, {p90: `${percentile(during, 0.9).toFixed(0)} ms`}),
        summary('read before the flood', context.ak.form, idle, {p90: `${percentile(idle, 0.9).toFixed(0)} ms`}),
      ],
      verdicts: [
        {label: `server peak RSS (VmHWM) ≤ ${mib(PEAK_RSS_LIMIT_BYTES)}`, met: peak === undefined ? undefined : peak <= PEAK_RSS_LIMIT_BYTES, detail: `VmHWM ${mib(peak)}; ${mib(idlePeak)} before the flood`},
        {label: `read median during the flood ≤ ${READ_P50_LIMIT_MS} ms`, met: p50 <= READ_P50_LIMIT_MS, ratio: p50 / READ_P50_LIMIT_MS, limit: 1, detail: `${p50.toFixed(1)} ms over ${during.length} calls (p90 ${percentile(during, 0.9).toFixed(0)} ms); ${median(idle).toFixed(1)} ms before the flood`},
      ],
      notes: [`Load average (1/5/15 min) when this case started: ${loadBefore}; when it ended: ${load()}.`],
    }
  } finally {
    await ak.close()
  }
}
