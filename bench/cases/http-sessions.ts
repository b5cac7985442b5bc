/**
 * ak over Streamable HTTP under load: many client sessions at once, each making many `read` calls
 * of a small file, all concurrently. Counts errors and reports per-call latency and server memory.
 */
import {Client} from '@modelcontextprotocol/sdk/client/index.js'
import {StreamableHTTPClientTransport} from '@modelcontextprotocol/sdk/client/streamableHttp.js'
import {spawn, type ChildProcess} from 'node:child_process'
import {randomBytes} from 'node:crypto'
import {mkdirSync, writeFileSync} from 'node:fs'
import {loadavg} from 'node:os'
import path from 'node:path'
import {performance} from 'node:perf_hooks'
import type {BenchContext} from '../lib/contenders.js'
import {median, type Summary} from '../lib/measure.js'
import {peakRssOf} from '../lib/mcp.js'
import type {CaseReport} from '../lib/report.js'

const FULL_SESSIONS = 100
const QUICK_SESSIONS = 20
const CALLS_PER_SESSION = 100
/** The file every call reads: 200 short lines. */
const FILE_LINES = 200
/** How long the server may take to print its address, in ms. */
const LISTEN_TIMEOUT_MS = 30_000
/** One call's timeout, in ms: a call slower than this counts as an error. */
const CALL_TIMEOUT_MS = 60_000
/** The environment variable holding the bearer token ak's HTTP server requires. */
const TOKEN_ENV = 'AGENTEXEC_TOKEN'

const mib = (bytes: number | undefined): string => (bytes === undefined ? '?' : `${(bytes / 2 ** 20).toFixed(0)} MiB`)
const load = (): string => loadavg().map((v) => v.toFixed(2)).join(' / ')

/** The value at quantile `q` (0–1) of a list, nearest rank. */
export function quantile(values: number[], q: number): number {
  if (values.length === 0) return Number.NaN
  const sorted = [...values].sort((a, b) => a - b)
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil(q * sorted.length) - 1))]!
}

/** Starts `ak exec serve --http 127.0.0.1:0` and answers its process and URL once it listens. */
async function startHttpServer(context: BenchContext, workspace: string, token: string): Promise<{child: ChildProcess; url: string}> {
  const line = context.ak.line(workspace, 'read', context.profileDir)
  const child = spawn(line.command, [...line.args, '--http', '127.0.0.1:0'], {
    cwd: line.cwd,
    env: {...process.env, [TOKEN_ENV]: token},
    stdio: ['ignore', 'ignore', 'pipe'],
  })
  let stderr = ''
  const url = await new Promise<string>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`ak did not listen within ${LISTEN_TIMEOUT_MS} ms: ${stderr}`)), LISTEN_TIMEOUT_MS)
    child.stderr!.on('data', (chunk: Buffer) => {
      stderr = (stderr + chunk.toString()).slice(-8192)
      const match = /listening on (\S+)/.exec(stderr)
      if (match) {
        clearTimeout(timer)
        resolve(match[1]!)
      }
    })
    child.on('exit', (code) => {
      clearTimeout(timer)
      reject(new Error(`ak exited (${code}) before listening: ${stderr}`))
    })
  })
  return {child, url}
}

/** One round: `sessions` clients connect, then all make their calls at once. Latencies in ms. */
async function round(url: string, token: string, sessions: number): Promise<{wallMs: number; connectMs: number; latencies: number[]; errors: string[]}> {
  const errors: string[] = []
  const latencies: number[] = []
  const headers = {authorization: `Bearer ${token}`}
  const connectStarted = performance.now()
  const clients = await Promise.all(
    Array.from({length: sessions}, async () => {
      const client = new Client({name: 'ak-bench-http', version: '1.0.0'})
      const transport = new StreamableHTTPClientTransport(new URL(url), {requestInit: {headers}})
      await client.connect(transport)
      return {client, transport}
    }),
  )
  const connectMs = performance.now() - connectStarted
  const started = performance.now()
  await Promise.all(
    clients.map(async ({client}) => {
      for (let i = 0; i < CALLS_PER_SESSION; i++) {
        const callStarted = performance.now()
        try {
          const answer = (await client.callTool({name: 'read', arguments: {path: 'small.txt'}}, undefined, {timeout: CALL_TIMEOUT_MS})) as {
            isError?: boolean
            content?: Array<{type: string; text?: string}>
          }
          const text = (answer.content ?? []).map((block) => block.text ?? '').join('')
          if (answer.isError || !text.includes(`line ${FILE_LINES} of the small file`)) errors.push(`read answered: ${text.slice(0, 120)}`)
        } catch (error) {
          errors.push((error as Error).message.split('\n')[0]!.slice(0, 200))
        }
        latencies.push(performance.now() - callStarted)
      }
    }),
  )
  const wallMs = performance.now() - started
  // Ending each session (DELETE) rather than only closing the client: the server counts open
  // sessions, and the next round's would otherwise join these until they expire.
  await Promise.all(
    clients.map(async ({client, transport}) => {
      await transport.terminateSession().catch(() => {})
      await client.close().catch(() => {})
    }),
  )
  return {wallMs, connectMs, latencies, errors}
}

/** Measures 100 concurrent HTTP sessions × 100 `read` calls against one ak server. */
export async function httpSessionsCase(context: BenchContext): Promise<CaseReport> {
  const workspace = path.join(context.tmp, 'http-workspace')
  mkdirSync(workspace, {recursive: true})
  writeFileSync(path.join(workspace, 'small.txt'), Array.from({length: FILE_LINES}, (_, i) => `line ${i + 1} of the small file\n`).join(''))
  const sessions = context.quick ? QUICK_SESSIONS : FULL_SESSIONS
  const rounds = context.runs({full: 3, quick: 1})
  const loadBefore = load()
  context.setup.push(`- http: one \`ak exec serve --http 127.0.0.1:0 --level read\` server; ${sessions} sessions of the official TypeScript client 1.x (\`StreamableHTTPClientTransport\`, bearer token) in the bench process, ${CALLS_PER_SESSION} sequential \`read\` calls each of a ${FILE_LINES}-line file, all sessions at once.`)
  const token = randomBytes(32).toString('hex')
  const {child, url} = await startHttpServer(context, workspace, token)
  try {
    const walls: number[] = []
    const connects: number[] = []
    const latencies: number[] = []
    const errors: string[] = []
    for (let r = 0; r < context.warmups + rounds; r++) {
      const outcome = await round(url, token, sessions)
      if (r < context.warmups) continue
      walls.push(outcome.wallMs)
      connects.push(outcome.connectMs)
      latencies.push(...outcome.latencies)
      errors.push(...outcome.errors)
    }
    const peak = peakRssOf(child.pid!)
    const calls = rounds * sessions * CALLS_PER_SESSION
    const summary: Summary = {
      name: 'ak',
      detail: `${context.ak.form}, ${sessions} sessions × ${CALLS_PER_SESSION} read calls`,
      median: median(walls),
      min: Math.min(...walls),
      max: Math.max(...walls),
      runs: walls.length,
      facts: {
        calls: String(calls),
        errors: String(errors.length),
        'call latency median ms': median(latencies).toFixed(1),
        'call latency p99 ms': quantile(latencies, 0.99).toFixed(1),
        'calls/s (median round)': (sessions * CALLS_PER_SESSION / (median(walls) / 1000)).toFixed(0),
        'sessions connect ms (median)': median(connects).toFixed(0),
        'server VmHWM': mib(peak),
      },
    }
    const notes = [
      `One round's wall time is the table's time: from the first call to the last answer of all ${sessions} sessions (connecting them is timed apart). Latencies are over all ${calls} timed calls; ${errors.length} errors${errors.length ? ` (first: ${errors[0]})` : ''}.`,
      `Load average (1/5/15 min) when this case started: ${loadBefore}; when it ended: ${load()}.`,
    ]
    return {
      id: 'http',
      title: `HTTP: ${sessions} concurrent sessions × ${CALLS_PER_SESSION} read calls`,
      measures: `One run is one round of ${sessions * CALLS_PER_SESSION} calls on an already-listening server, with fresh sessions each round.`,
      target: '0 errors; median and p99 call latency reported.',
      akName: 'ak',
      summaries: [summary],
      verdicts: [{label: '0 errors', met: errors.length === 0, detail: `${errors.length} errors in ${calls} calls; latency median ${median(latencies).toFixed(1)} ms, p99 ${quantile(latencies, 0.99).toFixed(1)} ms; server VmHWM ${mib(peak)}`}],
      notes,
    }
  } finally {
    child.kill('SIGTERM')
  }
}
