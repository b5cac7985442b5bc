/**
 * A command printing 1 GiB through `exec_command`, polled with `write_stdin` until it ends: the
 * server's peak memory and its drain throughput against the same stream piped into `cat`.
 */
import {spawn} from 'node:child_process'
import {loadavg} from 'node:os'
import {mkdirSync} from 'node:fs'
import path from 'node:path'
import {performance} from 'node:perf_hooks'
import type {BenchContext} from '../lib/contenders.js'
import {alternate, type Contender} from '../lib/measure.js'
import {connectServer, type CallAnswer, type McpServer} from '../lib/mcp.js'
import {ratioVerdict, type CaseReport} from '../lib/report.js'

const FULL_BYTES = 2 ** 30
const QUICK_BYTES = 128 * 2 ** 20
/** The server's peak resident memory the target allows (VmHWM), in bytes. */
const PEAK_RSS_LIMIT_BYTES = 120 * 2 ** 20
/** ak's drain throughput must be at least this share of `cat`'s: its time at most 1 / share of cat's. */
const MIN_THROUGHPUT_SHARE = 0.3
/**
 * How long `exec_command` waits for the command to end before answering that it runs, in ms: short,
 * so that the drain goes through several `write_stdin` polls as an agent's would.
 */
const EXEC_YIELD_MS = 1_000
/** How long each `write_stdin` poll waits, in ms (ak's minimum for a poll without input). */
const POLL_YIELD_MS = 5_000
/** A small answer budget, in tokens: the case measures the drain, not the transfer of the text. */
const ANSWER_TOKENS = 256
/** Polls after which a run gives up (1 GiB at 4 MB/s would still end within this many 5 s polls). */
const MAX_POLLS = 60

/** A 64-byte line (63 characters and a newline) repeated by `yes`, cut at exactly `bytes`. */
export function generatorCommand(bytes: number): string {
  return `yes '${'x'.repeat(63)}' | head -c ${bytes}`
}

const mib = (bytes: number | undefined): string => (bytes === undefined ? '?' : `${(bytes / 2 ** 20).toFixed(0)} MiB`)
const mbPerSecond = (bytes: number, ms: number): number => bytes / 1e6 / (ms / 1000)
const load = (): string => loadavg().map((v) => v.toFixed(2)).join(' / ')

/**
 * The characters a command printed as one answer reports them: the whole count when the middle was
 * cut. Read from the answer's structured `text`, the output alone: the text content also holds
 * the answer's other fields, which an answer not cut would count as output.
 */
function charsReported(answer: CallAnswer): number {
  const text = typeof answer.structured?.text === 'string' ? answer.structured.text : answer.text
  const cut = /characters \(\d+ line breaks\) cut from the middle of (\d+);/.exec(text)
  return cut ? Number(cut[1]) : text.length
}

function runShell(command: string): Promise<number> {
  return new Promise((resolve, reject) => {
    const started = performance.now()
    const child = spawn('/bin/sh', ['-c', command], {stdio: ['ignore', 'ignore', 'pipe']})
    child.stderr.resume()
    child.on('error', reject)
    child.on('close', (code) => (code === 0 ? resolve(performance.now() - started) : reject(new Error(`sh -c ${command} exited ${code}`))))
  })
}

/** Runs the generator through exec_command and polls it to its end; answers the wall time and the characters drained. */
async function drainThroughAk(ak: McpServer, command: string): Promise<{ms: number; chars: number; polls: number; firstText: string}> {
  const started = performance.now()
  let answer: CallAnswer = await ak.call('exec_command', {cmd: command, yield_time_ms: EXEC_YIELD_MS, max_output_tokens: ANSWER_TOKENS})
  let chars = charsReported(answer)
  const firstText = /\ntext:\n([\s\S]{0,160})/.exec(answer.text)?.[1] ?? ''
  let polls = 0
  while (answer.structured?.exit_code === 'running') {
    if (++polls > MAX_POLLS) throw new Error(`the command still ran after ${MAX_POLLS} polls`)
    answer = await ak.call('write_stdin', {session_id: answer.structured.session_id, yield_time_ms: POLL_YIELD_MS, max_output_tokens: ANSWER_TOKENS})
    chars += charsReported(answer)
  }
  const ms = performance.now() - started
  if (answer.isError || answer.structured?.exit_code !== 0) throw new Error(`the command ended with: ${answer.text.slice(0, 200)}`)
  return {ms, chars, polls, firstText}
}

/** Measures ak draining a 1 GiB command output against `cat > /dev/null` of the same stream. */
export async function execOutputCase(context: BenchContext): Promise<CaseReport> {
  const workspace = path.join(context.tmp, 'exec-output-workspace')
  mkdirSync(workspace, {recursive: true})
  const bytes = context.quick ? QUICK_BYTES : FULL_BYTES
  const command = generatorCommand(bytes)
  const loadBefore = load()
  context.setup.push(`- exec-output: the command \`${command}\` (${mib(bytes)} in 64-byte lines); the floor pipes the same stream into \`cat > /dev/null\` under \`/bin/sh -c\`.`)
  const notes: string[] = []
  const ak = await connectServer(context.ak.line(workspace, 'terminal', context.profileDir))
  // What the server holds before any command runs: the part of the peak no output caused.
  const idlePeak = ak.peakRssBytes()
  try {
    const contenders: Contender[] = [
      {
        name: 'floor: cat > /dev/null',
        detail: `${command} | cat > /dev/null`,
        async run() {
          const ms = await runShell(`${command} | cat > /dev/null`)
          return {ms, facts: {'MB/s': mbPerSecond(bytes, ms).toFixed(0)}}
        },
      },
    ]
    const hasExec = ak.tools.some((t) => t.name === 'exec_command')
    if (hasExec) {
      contenders.unshift({
        name: 'ak',
        detail: `${context.ak.form}, exec_command + write_stdin`,
        async run() {
          const {ms, chars, polls, firstText} = await drainThroughAk(ak, command)
          if (chars !== bytes) throw new Error(`ak reported ${chars} characters of output, not ${bytes}; its first answer's text began ${JSON.stringify(firstText)}`)
          return {ms, facts: {'MB/s': mbPerSecond(bytes, ms).toFixed(0), 'write_stdin polls': String(polls)}}
        },
      })
    } else notes.push('ak offers no `exec_command` in this build: its contender was skipped.')
    const summaries = await alternate(contenders, context.runs({full: 5, quick: 2}), context.warmups)
    const peak = ak.peakRssBytes()
    const akSummary = summaries.find((s) => s.name === 'ak')
    const floorSummary = summaries.find((s) => s.name === 'floor: cat > /dev/null')
    // The table's MB/s is the last run's; the medians give the throughput the verdict uses.
    for (const s of [akSummary, floorSummary]) if (s && !s.error) s.facts['MB/s'] = `${mbPerSecond(bytes, s.median).toFixed(0)} (median)`
    const share = akSummary && floorSummary && !akSummary.error && !floorSummary.error ? floorSummary.median / akSummary.median : undefined
    notes.push(
      `Drain throughput (medians): ak ${akSummary && !akSummary.error ? mbPerSecond(bytes, akSummary.median).toFixed(0) : '–'} MB/s, ` +
        `cat ${floorSummary && !floorSummary.error ? mbPerSecond(bytes, floorSummary.median).toFixed(0) : '–'} MB/s` +
        `${share === undefined ? '' : `; ak drains at ${(share * 100).toFixed(0)}% of cat's throughput`}. ak server peak memory (VmHWM) over every run: ${mib(peak)}, of which ${mib(idlePeak)} before the first command (after \`initialize\` and \`tools/list\`).`,
    )
    notes.push(`Load average (1/5/15 min) when this case started: ${loadBefore}; when it ended: ${load()}.`)
    return {
      id: 'exec-output',
      title: `a command printing ${mib(bytes)}, drained through exec_command`,
      measures:
        `One ak run is one \`exec_command\` (yield ${EXEC_YIELD_MS} ms) then \`write_stdin\` polls (yield ${POLL_YIELD_MS} ms) until the command ends, ${ANSWER_TOKENS}-token answers, ` +
        'on an already-initialized server; every answer is checked to account for every byte. One floor run is one spawn of the same pipeline into `cat > /dev/null`.',
      target: `ak server peak RSS ≤ ${mib(PEAK_RSS_LIMIT_BYTES)}; drain throughput ≥ ${MIN_THROUGHPUT_SHARE * 100}% of cat's (time ≤ ${(1 / MIN_THROUGHPUT_SHARE).toFixed(2)} × cat's).`,
      akName: 'ak',
      summaries,
      verdicts: [
        {
          label: `ak server peak RSS (VmHWM) ≤ ${mib(PEAK_RSS_LIMIT_BYTES)}`,
          met: peak === undefined || !hasExec ? undefined : peak <= PEAK_RSS_LIMIT_BYTES,
          detail: `VmHWM ${mib(peak)}; ${mib(idlePeak)} before the first command`,
        },
        ratioVerdict(summaries, 'ak', 'floor: cat > /dev/null', Number((1 / MIN_THROUGHPUT_SHARE).toFixed(2)), `ak time ÷ cat time ≤ ${(1 / MIN_THROUGHPUT_SHARE).toFixed(2)} (throughput ≥ ${MIN_THROUGHPUT_SHARE * 100}% of cat's)`),
      ],
      notes,
    }
  } finally {
    await ak.close()
  }
}
