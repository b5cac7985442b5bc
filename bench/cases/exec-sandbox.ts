/**
 * `exec_command` of `true` with `--sandbox workspace-write` against the same server without a
 * sandbox: what bubblewrap adds to one command's round trip (target: at most 10 ms).
 */
import {mkdirSync} from 'node:fs'
import path from 'node:path'
import {setTimeout as sleep} from 'node:timers/promises'
import type {BenchContext} from '../lib/contenders.js'
import {alternate, timed, type Contender} from '../lib/measure.js'
import {connectServer, type McpServer} from '../lib/mcp.js'
import type {Summary} from '../lib/measure.js'
import type {CaseReport} from '../lib/report.js'

/** The most the sandbox may add to the median round trip, in ms. */
const SANDBOX_OVERHEAD_LIMIT_MS = 10
/** Untimed calls before measuring: the first ones take the shell snapshot in the background. */
const WARMUP_CALLS = 3

function contender(name: string, detail: string, server: McpServer): Contender {
  return {
    name,
    detail,
    async run() {
      const {ms, value} = await timed(() => server.call('exec_command', {cmd: 'true'}))
      if (value.isError || !/exit_code: 0/.test(value.text)) throw new Error(`exec_command answered: ${value.text.slice(0, 200)}`)
      return {ms}
    },
  }
}

function overheadMs(summaries: Summary[], sandboxed: string, plain: string): number | undefined {
  const a = summaries.find((s) => s.name === sandboxed)
  const b = summaries.find((s) => s.name === plain)
  return !a || !b || a.error || b.error ? undefined : a.median - b.median
}

/** Measures `true` through exec_command with and without `--sandbox workspace-write`. */
export async function execSandboxCase(context: BenchContext): Promise<CaseReport> {
  const workspace = path.join(context.tmp, 'exec-sandbox-workspace')
  mkdirSync(workspace, {recursive: true})
  const servers: McpServer[] = []
  const notes: string[] = []
  const plainName = 'ak, no sandbox'
  const sandboxedName = 'ak, --sandbox workspace-write'
  const contenders: Contender[] = []
  try {
    const line = context.ak.line(workspace, 'terminal')
    const plain = await connectServer(line)
    servers.push(plain)
    contenders.push(contender(plainName, context.ak.form, plain))
    try {
      const sandboxed = await connectServer({...line, args: [...line.args, '--sandbox', 'workspace-write']})
      servers.push(sandboxed)
      contenders.push(contender(sandboxedName, `${context.ak.form}, bubblewrap, no network`, sandboxed))
    } catch (error) {
      notes.push(`The sandbox cannot run here (${(error as Error).message.split('\n')[0]}): its contender was skipped.`)
    }
    for (const server of servers) {
      for (let i = 0; i < WARMUP_CALLS; i++) await server.call('exec_command', {cmd: 'true'})
    }
    await sleep(1000)
    const summaries = await alternate(contenders, context.runs({full: 20, quick: 5}))
    const overhead = overheadMs(summaries, sandboxedName, plainName)
    return {
      id: 'exec-sandbox',
      title: 'exec_command of `true` with and without `--sandbox workspace-write`',
      measures: 'One run is one tool call on an already-initialized server whose shell snapshot is taken, until its answer.',
      target: `The sandbox adds at most ${SANDBOX_OVERHEAD_LIMIT_MS} ms to the median.`,
      akName: sandboxedName,
      summaries,
      verdicts: [
        {
          label: `sandbox adds ≤ ${SANDBOX_OVERHEAD_LIMIT_MS} ms`,
          met: overhead === undefined ? undefined : overhead <= SANDBOX_OVERHEAD_LIMIT_MS,
          detail: overhead === undefined ? undefined : `adds ${overhead.toFixed(1)} ms`,
        },
      ],
      notes,
    }
  } finally {
    for (const server of servers) await server.close()
  }
}
