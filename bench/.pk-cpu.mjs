import {spawn} from 'node:child_process'
import {readFileSync, readdirSync} from 'node:fs'
import {performance} from 'node:perf_hooks'
const ws = '/tmp/pk-ws'
const NEW = process.env.NEW ?? '/tmp/pk-new'
const contenders = {
  'today agentexec.js': ['/tmp/pk-baseline/dist/agentexec.js', '--workspace', ws],
  'new agentexec.js': [`${NEW}/dist/agentexec.js`, '--workspace', ws],
  'today run.js': ['/tmp/pk-baseline/bin/run.js', 'exec', 'serve', '--workspace', ws],
  'new run.js': [`${NEW}/bin/run.js`, 'exec', 'serve', '--workspace', ws],
  filesystem: ['/tmp/pk-peers/node_modules/@modelcontextprotocol/server-filesystem/dist/index.js', ws],
}
for (const name of (process.env.SKIP ?? '').split(',')) delete contenders[name]
const init = JSON.stringify({jsonrpc: '2.0', id: 1, method: 'initialize', params: {protocolVersion: '2025-06-18', capabilities: {}, clientInfo: {name: 'b', version: '1'}}}) + '\n'
function cpuNs(pid) {
  let total = 0
  for (const task of readdirSync(`/proc/${pid}/task`)) {
    try { total += Number(readFileSync(`/proc/${pid}/task/${task}/schedstat`, 'utf8').split(' ')[0]) } catch {}
  }
  return total
}
function once(args) {
  return new Promise((resolve, reject) => {
    const started = performance.now()
    const child = spawn(process.execPath, args, {cwd: ws, stdio: ['pipe', 'pipe', 'ignore']})
    let out = ''
    child.stdout.on('data', (chunk) => {
      out += chunk
      if (out.includes('\n')) {
        const wall = performance.now() - started
        const cpu = cpuNs(child.pid) / 1e6
        // End as a client would (stdin closed, then SIGTERM), so Node.js writes its compile cache.
        child.stdin.end()
        const term = setTimeout(() => child.kill('SIGTERM'), 3000)
        child.on('exit', () => { clearTimeout(term); resolve({wall, cpu}) })
      }
    })
    child.on('error', reject)
    child.stdin.write(init)
  })
}
const rounds = Number(process.env.RUNS ?? 20), warm = 2
const names = Object.keys(contenders)
const samples = Object.fromEntries(names.map((n) => [n, {wall: [], cpu: []}]))
for (let r = 0; r < rounds + warm; r++) {
  for (let i = 0; i < names.length; i++) {
    const name = names[(r + i) % names.length]
    const s = await once(contenders[name])
    if (r >= warm) { samples[name].wall.push(s.wall); samples[name].cpu.push(s.cpu) }
  }
}
const med = (v) => { const s = [...v].sort((a, b) => a - b); return s[Math.floor(s.length / 2)] }
const fs = samples.filesystem
for (const n of names) {
  const s = samples[n]
  console.log(`${n.padEnd(20)} cpu median ${med(s.cpu).toFixed(0)} ms (÷fs ${fs ? (med(s.cpu) / med(fs.cpu)).toFixed(2) : '-'})  wall median ${med(s.wall).toFixed(0)} ms (÷fs ${fs ? (med(s.wall) / med(fs.wall)).toFixed(2) : '-'}) min ${Math.min(...s.wall).toFixed(0)}`)
}
