/**
 * Profiles ak while it answers one tool call many times:
 *
 *   npx tsx bench/profile.ts --workspace DIR --level read --tool read --args '{"path":"big.txt"}' [--repeat 200]
 *   npx tsx bench/profile.ts --workspace DIR --level files --tool edit --args '{"path":"a.txt","old_text":"x","new_text":"y"}' --toggle
 *
 * `--toggle` swaps `old_text` and `new_text` after each call, so an edit changes the file every time.
 * Starts ak (the bundle when built, else bin/run.js) under `node --cpu-prof`, calls the tool
 * `--repeat` times through the official client, stops the server, and prints the functions with
 * the most self time (the profile file stays in bench/.work/profiles for Chrome DevTools), and
 * on Linux the CPU time each of the server's threads spent per call (the main thread, where the
 * search walk runs, against the search workers).
 */
import {mkdirSync, readdirSync, readFileSync, statSync} from 'node:fs'
import path from 'node:path'
import {fileURLToPath} from 'node:url'
import {parseArgs} from 'node:util'
import {akLauncher} from './lib/contenders.js'
import {median, timed} from './lib/measure.js'
import {connectServer} from './lib/mcp.js'

interface ProfileNode {
  id: number
  callFrame: {functionName: string; url: string; lineNumber: number}
  hitCount?: number
}

const BENCH_DIR = path.dirname(fileURLToPath(import.meta.url))
const {values} = parseArgs({
  options: {
    workspace: {type: 'string'},
    level: {type: 'string', default: 'read'},
    tool: {type: 'string'},
    args: {type: 'string', default: '{}'},
    repeat: {type: 'string', default: '100'},
    top: {type: 'string', default: '25'},
    ak: {type: 'string'},
    toggle: {type: 'boolean', default: false},
  },
})
if (!values.workspace || !values.tool) throw new Error('--workspace and --tool are required')
const profileDir = path.join(BENCH_DIR, '.work', 'profiles')
mkdirSync(profileDir, {recursive: true})
const before = new Set(readdirSync(profileDir))
const server = await connectServer(akLauncher(values.ak ? path.resolve(values.ak) : path.resolve(BENCH_DIR, '..')).line(path.resolve(values.workspace), values.level!, profileDir))
/** CPU time (user + system, ms) of each thread of process `pid`, by thread id (Linux /proc). */
function threadCpuMs(pid: number): Map<number, number> {
  const cpu = new Map<number, number>()
  try {
    for (const tid of readdirSync(`/proc/${pid}/task`)) {
      const stat = readFileSync(`/proc/${pid}/task/${tid}/stat`, 'utf8')
      const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ')
      cpu.set(Number(tid), ((Number(fields[11]) + Number(fields[12])) * 1000) / 100)
    }
  } catch {
    // no /proc: no thread figures
  }
  return cpu
}

const times: number[] = []
// The first call starts the search workers and warms the caches; the thread figures count the rest.
let args = JSON.parse(values.args!) as Record<string, unknown>
let cpuBefore = new Map<number, number>()
for (let i = 0; i < Number(values.repeat); i++) {
  if (i === 1) cpuBefore = threadCpuMs(server.pid)
  const {ms, value} = await timed(() => server.call(values.tool!, args))
  if (value.isError) throw new Error(value.text)
  times.push(ms)
  if (values.toggle) args = {...args, old_text: args.new_text, new_text: args.old_text}
}
const cpuAfter = threadCpuMs(server.pid)
const counted = Math.max(1, Number(values.repeat) - 1)
const perThread = [...cpuAfter]
  .map(([tid, ms]) => ({tid, ms: (ms - (cpuBefore.get(tid) ?? 0)) / counted}))
  .filter((thread) => thread.ms > 0)
  .sort((a, b) => b.ms - a.ms)
await server.close()
await new Promise((resolve) => setTimeout(resolve, 500))
const made = readdirSync(profileDir)
  .filter((f) => !before.has(f) && f.endsWith('.cpuprofile'))
  .sort((a, b) => statSync(path.join(profileDir, b)).mtimeMs - statSync(path.join(profileDir, a)).mtimeMs)[0]
console.log(`${values.tool}: median ${median(times).toFixed(2)} ms over ${times.length} calls`)
if (perThread.length > 0) {
  console.log(`CPU per call by thread (ms, after the first call; 10 ms resolution): ${perThread.map((t) => `${t.tid === server.pid ? 'main' : t.tid} ${t.ms.toFixed(0)}`).join(', ')}`)
}
if (!made) throw new Error('no profile was written (did the server exit cleanly?)')
const profile = JSON.parse(readFileSync(path.join(profileDir, made), 'utf8')) as {nodes: ProfileNode[]; samples: number[]; timeDeltas: number[]}
const selfMs = new Map<number, number>()
profile.samples.forEach((id, i) => selfMs.set(id, (selfMs.get(id) ?? 0) + (profile.timeDeltas[i] ?? 0) / 1000))
const byFunction = new Map<string, number>()
let total = 0
for (const node of profile.nodes) {
  const ms = selfMs.get(node.id) ?? 0
  total += ms
  const where = node.callFrame.url ? `${node.callFrame.url.replace(/^.*\/(node_modules|src|dist)\//, '$1/')}:${node.callFrame.lineNumber + 1}` : ''
  const key = `${node.callFrame.functionName || '(anonymous)'} ${where}`.trim()
  byFunction.set(key, (byFunction.get(key) ?? 0) + ms)
}
console.log(`profile ${path.join(profileDir, made)}: ${total.toFixed(0)} ms sampled`)
for (const [name, ms] of [...byFunction].sort((a, b) => b[1] - a[1]).slice(0, Number(values.top))) {
  console.log(`${ms.toFixed(1).padStart(9)} ms ${((ms / total) * 100).toFixed(1).padStart(5)}%  ${name}`)
}
