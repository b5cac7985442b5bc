/**
 * Times one tool call on two builds of ak, alternated in one run, and counts the system calls
 * each makes per call, by thread: what a change to a tool's path costs or saves, measured so that
 * a busy machine moves both sides alike (a same-run ratio) or not at all (the counts).
 *
 *   npx tsx bench/against.ts --base /tmp/ak-main --workspace DIR --tool read --args '{"path":"a.txt"}' [--repeat 400] [--strace 50]
 *
 * `--base` is another built checkout (for example `git archive main | tar -x -C DIR`, with
 * node_modules linked in, then `node scripts/build.js` there); this checkout is the other side.
 * With `--strace N` (Linux, strace installed), each server is then traced for N more calls and
 * the file system calls per call are printed for its main thread and for the other threads: on
 * the others they are libuv's thread pool, and each is a round trip from the main thread and back.
 */
import {spawn} from 'node:child_process'
import {mkdtempSync, readFileSync, rmSync} from 'node:fs'
import {tmpdir} from 'node:os'
import path from 'node:path'
import {fileURLToPath} from 'node:url'
import {parseArgs} from 'node:util'
import {akLauncher} from './lib/contenders.js'
import {alternate, type Contender} from './lib/measure.js'
import {connectServer, type McpServer} from './lib/mcp.js'

const BENCH_DIR = path.dirname(fileURLToPath(import.meta.url))
/** The system calls counted: those a file tool's path walk, open, read and close make. */
const FS_CALLS = /^(openat|open|close|statx|newfstatat|fstat|lstat|stat|readlink|readlinkat|read|pread64|getdents64|fstatfs)$/

const {values} = parseArgs({
  options: {
    base: {type: 'string'},
    workspace: {type: 'string'},
    level: {type: 'string', default: 'files'},
    tool: {type: 'string'},
    args: {type: 'string', default: '{}'},
    repeat: {type: 'string', default: '400'},
    strace: {type: 'string', default: '0'},
  },
})
if (!values.base || !values.workspace || !values.tool) throw new Error('--base, --workspace and --tool are required')
const args = JSON.parse(values.args!) as Record<string, unknown>
const workspace = path.resolve(values.workspace)
const sides: Array<{name: string; server: McpServer}> = []
for (const [name, checkout] of [
  ['base', path.resolve(values.base)],
  ['this', path.resolve(BENCH_DIR, '..')],
] as const) {
  sides.push({name, server: await connectServer(akLauncher(checkout).line(workspace, values.level!))})
}

/** The counts of file system calls in an strace -f log, per call, on the main thread `pid` and on the others. */
function countCalls(log: string, pid: number, calls: number): {main: Map<string, number>; others: Map<string, number>} {
  const main = new Map<string, number>()
  const others = new Map<string, number>()
  for (const line of log.split('\n')) {
    const match = /^(\d+)\s+([a-z0-9_]+)\(/.exec(line)
    if (!match || !FS_CALLS.test(match[2]!)) continue
    const counts = Number(match[1]) === pid ? main : others
    counts.set(match[2]!, (counts.get(match[2]!) ?? 0) + 1 / calls)
  }
  return {main, others}
}

function shown(counts: Map<string, number>): string {
  const total = [...counts.values()].reduce((sum, count) => sum + count, 0)
  const each = [...counts].sort((a, b) => b[1] - a[1]).map(([name, count]) => `${name} ${count.toFixed(1)}`)
  return `${total.toFixed(1)} (${each.join(', ') || 'none'})`
}

try {
  const contenders: Contender[] = sides.map(({name, server}) => ({
    name,
    detail: name,
    async run() {
      const started = performance.now()
      const answer = await server.call(values.tool!, args)
      if (answer.isError) throw new Error(answer.text)
      return {ms: performance.now() - started}
    },
  }))
  const [base, mine] = await alternate(contenders, Number(values.repeat), 20)
  for (const summary of [base!, mine!]) {
    if (summary.error) throw new Error(`${summary.name}: ${summary.error}`)
    console.log(`${summary.name}: median ${summary.median.toFixed(3)} ms over ${summary.runs} calls`)
  }
  console.log(`this ÷ base: ${(mine!.median / base!.median).toFixed(3)} (load ${readFileSync('/proc/loadavg', 'utf8').split(' ')[0]})`)
  const traced = Number(values.strace)
  if (traced > 0) {
    const dir = mkdtempSync(path.join(tmpdir(), 'ak-against-'))
    try {
      for (const {name, server} of sides) {
        const log = path.join(dir, `${name}.log`)
        const tracer = spawn('strace', ['-f', '-qq', '-o', log, '-p', String(server.pid)], {stdio: 'ignore'})
        await new Promise((resolve) => setTimeout(resolve, 1000))
        for (let i = 0; i < traced; i++) await server.call(values.tool!, args)
        tracer.kill('SIGINT')
        await new Promise((resolve) => tracer.once('exit', resolve))
        const {main, others} = countCalls(readFileSync(log, 'utf8'), server.pid, traced)
        console.log(`${name}: file system calls per call: main thread ${shown(main)}; thread pool ${shown(others)}`)
      }
    } finally {
      rmSync(dir, {recursive: true, force: true})
    }
  }
} finally {
  for (const {server} of sides) await server.close()
}
