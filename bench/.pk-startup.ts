import {alternate} from './lib/measure.js'
import {connectServer, type ServerLine} from './lib/mcp.js'
const ws = '/tmp/pk-ws'
const node = process.execPath
const lines: Record<string, ServerLine> = {
  'today agentexec.js': {command: node, args: ['/tmp/pk-baseline/dist/agentexec.js', '--workspace', ws, '--level', 'read'], cwd: ws},
  'new agentexec.js': {command: node, args: [`${process.env.NEW ?? '/tmp/pk-new'}/dist/agentexec.js`, '--workspace', ws, '--level', 'read'], cwd: ws},
  'today run.js': {command: node, args: ['/tmp/pk-baseline/bin/run.js', 'exec', 'serve', '--workspace', ws, '--level', 'read'], cwd: ws},
  'new run.js': {command: node, args: [`${process.env.NEW ?? '/tmp/pk-new'}/bin/run.js`, 'exec', 'serve', '--workspace', ws, '--level', 'read'], cwd: ws},
  filesystem: {command: node, args: ['/tmp/pk-peers/node_modules/@modelcontextprotocol/server-filesystem/dist/index.js', ws], cwd: ws},
}
const runs = Number(process.env.RUNS ?? 15)
const summaries = await alternate(
  Object.entries(lines).map(([name, line]) => ({name, run: async () => { const s = await connectServer(line, {listTools: false}); const ms = s.initializeMs; await s.close(); return {ms} }})),
  runs, 2,
)
const fs = summaries.find((s) => s.name === 'filesystem')!.median
for (const s of summaries) console.log(`${s.name.padEnd(20)} median ${s.median.toFixed(0)} ms  min ${s.min.toFixed(0)}  max ${s.max.toFixed(0)}  ÷ filesystem ${(s.median / fs).toFixed(2)}  ${s.error ?? ''}`)
