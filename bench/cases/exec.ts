/** `exec_command` of `true`: one command's round trip through MCP stdio, against a direct spawn. */
import {spawn} from 'node:child_process'
import {mkdirSync} from 'node:fs'
import path from 'node:path'
import {performance} from 'node:perf_hooks'
import {desktopCommanderLine, type BenchContext} from '../lib/contenders.js'
import {alternate, median, timed, type Contender} from '../lib/measure.js'
import {connectServer, type McpServer} from '../lib/mcp.js'
import {ratioVerdict, type CaseReport} from '../lib/report.js'

/** The shell ak runs commands in: `$SHELL` when set (ak's rule for a POSIX-family shell), else bash. */
export function loginShell(): string {
  return process.env.SHELL && path.isAbsolute(process.env.SHELL) ? process.env.SHELL : '/bin/bash'
}

function spawnLoginShell(shell: string, command: string, cwd: string): Promise<number> {
  return new Promise((resolve, reject) => {
    const started = performance.now()
    const child = spawn(shell, ['-l', '-c', command], {cwd, stdio: ['pipe', 'pipe', 'pipe']})
    child.stdout.resume()
    child.stderr.resume()
    child.on('error', reject)
    child.on('close', (code) => (code === 0 ? resolve(performance.now() - started) : reject(new Error(`${shell} -l -c ${command} exited ${code}`))))
  })
}

/** Measures `true` through ak's exec_command, Desktop Commander's start_process, and a direct spawn. */
export async function execCase(context: BenchContext): Promise<CaseReport> {
  const workspace = path.join(context.tmp, 'exec-workspace')
  mkdirSync(workspace, {recursive: true})
  const shell = loginShell()
  context.setup.push(`- exec: every contender runs \`${shell} -l -c true\` (a login shell, as ak and Desktop Commander do).`)
  const servers: McpServer[] = []
  const notes: string[] = []
  const contenders: Contender[] = [{name: 'floor: Node spawns the login shell', detail: `${shell} -l -c true`, run: async () => ({ms: await spawnLoginShell(shell, 'true', workspace)})}]
  try {
    const ak = await connectServer(context.ak.line(workspace, 'terminal', context.profileDir))
    servers.push(ak)
    if (ak.tools.some((t) => t.name === 'exec_command')) {
      contenders.unshift({
        name: 'ak',
        detail: context.ak.form,
        async run() {
          const {ms, value} = await timed(() => ak.call('exec_command', {cmd: 'true'}))
          if (value.isError || !/exit_code: 0/.test(value.text)) throw new Error(`exec_command answered: ${value.text.slice(0, 200)}`)
          return {ms}
        },
      })
    } else notes.push('ak offers no `exec_command` in this build: its contender was skipped.')
  } catch (error) {
    notes.push(`ak does not serve the terminal level in this build (${(error as Error).message.split('\n')[0]}): its contender was skipped.`)
  }
  const {desktopCommander} = context.peers
  let dcServer: McpServer | undefined
  if (desktopCommander) {
    const dc = await connectServer(desktopCommanderLine(desktopCommander, context.tmp, workspace))
    servers.push(dc)
    dcServer = dc
    contenders.push({
      name: 'Desktop Commander',
      detail: `${desktopCommander.version}, start_process`,
      async run() {
        const {ms, value} = await timed(() => dc.call('start_process', {command: 'true', timeout_ms: 10_000, shell}))
        if (value.isError) throw new Error(`start_process answered: ${value.text.slice(0, 200)}`)
        return {ms}
      },
    })
  }
  try {
    const summaries = await alternate(contenders, context.runs({full: 20, quick: 5}))
    if (dcServer) {
      const dc = dcServer
      // Every Desktop Commander call also updates its usage statistics on disk; a call that does
      // nothing else shows that fixed cost.
      const idle: number[] = []
      for (let i = 0; i < 5; i++) idle.push((await timed(() => dc.call('list_sessions', {}))).ms)
      notes.push(`A Desktop Commander call that does no work (\`list_sessions\`) takes ${median(idle).toFixed(0)} ms (median of 5) on this machine: each call also reads and updates usage statistics in its config file.`)
    }
    return {
      id: 'exec',
      title: 'exec_command of `true`, round trip through MCP stdio',
      measures: 'One run is one tool call on an already-initialized server (or one direct spawn for the floor), until its answer.',
      target: '≤ 1.5 × the floor, and faster than Desktop Commander.',
      akName: 'ak',
      summaries,
      verdicts: [
        ratioVerdict(summaries, 'ak', 'floor: Node spawns the login shell', 1.5, 'ak ÷ floor ≤ 1.5'),
        ratioVerdict(summaries, 'ak', 'Desktop Commander', 1, 'ak faster than Desktop Commander'),
      ],
      notes,
    }
  } finally {
    for (const server of servers) await server.close()
  }
}
