/**
 * Input a command does not read: 40 `write_stdin` calls of 8 MiB each into `sleep`. ak takes at
 * most MAX_PENDING_STDIN_BYTES of unread input per command and says how much of each call it took,
 * so the server should stay as large as it was; a server keeping every message would grow by
 * each one. What it keeps shows in its smallest size over a run of calls (single calls leave tens
 * of MiB of garbage, and V8 may grow its heap by hundreds of MiB at once and keep the pages), so
 * this is a bench figure, not a test's: the test checks what was taken.
 */
import {loadavg} from 'node:os'
import {mkdirSync} from 'node:fs'
import path from 'node:path'
import {MAX_PENDING_STDIN_BYTES} from '../../src/exec/terminal/limits.js'
import type {BenchContext} from '../lib/contenders.js'
import {connectServer} from '../lib/mcp.js'
import type {CaseReport} from '../lib/report.js'

/** Characters of each `write_stdin` call. */
const MESSAGE_CHARS = 8 * 2 ** 20
/** Calls in a full run and in a quick one. */
const FULL_CALLS = 40
const QUICK_CALLS = 20
/** Calls whose smallest server size is compared, at the start and at the end. */
const RUN_CALLS = 10

const mib = (bytes: number): string => `${(bytes / 2 ** 20).toFixed(1)} MiB`
const load = (): string => loadavg().map((v) => v.toFixed(2)).join(' / ')

/** Measures what unread input costs the server: its size over `write_stdin` calls into a command that reads nothing. */
export async function execStdinCase(context: BenchContext): Promise<CaseReport> {
  const workspace = path.join(context.tmp, 'exec-stdin-workspace')
  mkdirSync(workspace, {recursive: true})
  const calls = context.quick ? QUICK_CALLS : FULL_CALLS
  const loadBefore = load()
  context.setup.push(`- exec-stdin: ${calls} \`write_stdin\` calls of ${mib(MESSAGE_CHARS)} each into \`exec sleep 300\`, which reads nothing.`)
  const ak = await connectServer(context.ak.line(workspace, 'terminal', context.profileDir))
  try {
    const started = await ak.call('exec_command', {cmd: 'exec sleep 300', yield_time_ms: 250})
    const session = started.structured?.session_id
    if (started.isError || session === undefined) throw new Error(`exec_command answered: ${started.text.slice(0, 200)}`)
    const chars = 'x'.repeat(MESSAGE_CHARS)
    const sizes: number[] = []
    let taken = 0
    for (let index = 0; index < calls; index++) {
      const answer = await ak.call('write_stdin', {session_id: session, chars})
      if (answer.isError) throw new Error(`write_stdin answered: ${answer.text.slice(0, 200)}`)
      // The note leads the answer's `text` field when not all of chars was taken.
      const text = typeof answer.structured?.text === 'string' ? answer.structured.text : answer.text
      const note = /^\[Note: (\d+) of the \d+ characters of chars were written/.exec(text)
      taken += note ? Number(note[1]) : chars.length
      sizes.push(ak.rssBytes() ?? Number.NaN)
    }
    const first = Math.min(...sizes.slice(0, RUN_CALLS))
    const last = Math.min(...sizes.slice(-RUN_CALLS))
    const keptIfEveryMessage = (calls - RUN_CALLS) * MESSAGE_CHARS
    const growth = last - first
    return {
      id: 'exec-stdin',
      title: `${calls} × ${mib(MESSAGE_CHARS)} of input into a command that reads nothing`,
      measures: `The server's resident size (VmRSS) after each \`write_stdin\` call: the smallest of the first ${RUN_CALLS} calls against the smallest of the last ${RUN_CALLS}.`,
      target: `growth ≤ half of what keeping every message in between would add (${mib(keptIfEveryMessage / 2)})`,
      akName: 'ak',
      summaries: [],
      verdicts: [
        {
          label: `server growth ≤ ${mib(keptIfEveryMessage / 2)}`,
          met: Number.isNaN(growth) ? undefined : growth <= keptIfEveryMessage / 2,
          detail: `${mib(growth)} (smallest VmRSS ${mib(first)} over the first ${RUN_CALLS} calls, ${mib(last)} over the last; largest ${mib(Math.max(...sizes))})`,
        },
      ],
      notes: [
        `Characters the command's input took, by the answers' notes: ${taken} of ${calls * MESSAGE_CHARS} sent (ak holds at most ${MAX_PENDING_STDIN_BYTES} bytes of unread input per command).`,
        `Load average (1/5/15 min) when this case started: ${loadBefore}; when it ended: ${load()}.`,
      ],
    }
  } finally {
    await ak.close()
  }
}
