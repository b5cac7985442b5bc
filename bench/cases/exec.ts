/**
 * `exec_command` of `true`: one command's round trip through MCP stdio, against spawning the same
 * shells directly. Each timed call starts on a quiet machine: no server has a child process left
 * from the call before (see bench/lib/quiet.ts).
 */
import {spawn} from 'node:child_process'
import {mkdirSync} from 'node:fs'
import path from 'node:path'
import {performance} from 'node:perf_hooks'
import {SNAPSHOT_SWITCH_ENV} from '../../src/exec/terminal/shell-snapshot.js'
import {desktopCommanderLine, type AkLauncher, type BenchContext} from '../lib/contenders.js'
import {alternate, median, timed, type Contender} from '../lib/measure.js'
import {connectServer, type McpServer} from '../lib/mcp.js'
import {waitUntilQuiet} from '../lib/quiet.js'
import {ratioVerdict, type CaseReport, type Verdict} from '../lib/report.js'

/** The shell ak runs commands in: `$SHELL` when set (ak's rule for a POSIX-family shell), else bash. */
export function loginShell(): string {
  return process.env.SHELL && path.isAbsolute(process.env.SHELL) ? process.env.SHELL : '/bin/bash'
}

function spawnShell(shell: string, args: string[], cwd: string): Promise<number> {
  return new Promise((resolve, reject) => {
    const started = performance.now()
    const child = spawn(shell, args, {cwd, stdio: ['pipe', 'pipe', 'pipe']})
    child.stdout.resume()
    child.stderr.resume()
    child.on('error', reject)
    child.on('close', (code) => (code === 0 ? resolve(performance.now() - started) : reject(new Error(`${shell} ${args.join(' ')} exited ${code}`))))
  })
}

/**
 * The environment setting that turns ak's shell snapshot off (commands then start a login shell
 * each), as NAME=VALUE: `--snapshot-off` on the bench's command line, else this.
 */
export const DEFAULT_SNAPSHOT_OFF = `${SNAPSHOT_SWITCH_ENV}=off`

const FLOOR = 'floor: Node spawns the login shell'
const NON_LOGIN = 'Node spawns a non-login shell'
const AK_ON = 'ak'
const AK_OFF = 'ak, snapshot off'
const DC = 'Desktop Commander'

/**
 * Measures `true` through ak's exec_command (with its shell snapshot, and with it turned off by
 * `snapshotOff`), Desktop Commander's start_process, and direct spawns of the login shell (the
 * floor) and of a non-login shell.
 */
export async function execCase(context: BenchContext & {snapshotOff?: string}): Promise<CaseReport> {
  const workspace = path.join(context.tmp, 'exec-workspace')
  mkdirSync(workspace, {recursive: true})
  const shell = loginShell()
  const snapshotOff = parseSetting(context.snapshotOff ?? DEFAULT_SNAPSHOT_OFF)
  context.setup.push(
    `- exec: the floor is \`${shell} -l -c true\` spawned by the bench; ak and Desktop Commander run \`true\` through their tools. ` +
      `"${AK_OFF}" is ak started with ${snapshotOff.name}=${snapshotOff.value}. Before each timed call the bench waits until no server has a child process left.`,
  )
  const servers: McpServer[] = []
  const notes: string[] = []
  const contenders: Contender[] = [
    {name: FLOOR, detail: `${shell} -l -c true`, run: async () => ({ms: await spawnShell(shell, ['-l', '-c', 'true'], workspace)})},
    {name: NON_LOGIN, detail: `${shell} -c true`, run: async () => ({ms: await spawnShell(shell, ['-c', 'true'], workspace)})},
  ]
  const akForms: Array<[string, AkLauncher, Record<string, string>]> = [
    [AK_ON, context.ak, {}],
    [AK_OFF, context.ak, {[snapshotOff.name]: snapshotOff.value}],
  ]
  for (const [name, launcher, env] of akForms) {
    try {
      const line = launcher.line(workspace, 'terminal', context.profileDir)
      const ak = await connectServer({...line, env: {...line.env, ...env}})
      servers.push(ak)
      contenders.push({
        name,
        detail: `${launcher.form}${Object.keys(env).length ? `, ${snapshotOff.name}=${snapshotOff.value}` : ''}`,
        async run() {
          const {ms, value} = await timed(() => ak.call('exec_command', {cmd: 'true'}))
          if (value.isError || !/exit_code: 0/.test(value.text)) throw new Error(`exec_command answered: ${value.text.slice(0, 200)}`)
          return {ms}
        },
      })
    } catch (error) {
      notes.push(`${name} could not start at the terminal level (${(error as Error).message.split('\n')[0]}): its contender was skipped.`)
    }
  }
  const {desktopCommander} = context.peers
  let dcServer: McpServer | undefined
  if (desktopCommander) {
    const dc = await connectServer(desktopCommanderLine(desktopCommander, context.tmp, workspace))
    servers.push(dc)
    dcServer = dc
    contenders.push({
      name: DC,
      detail: `${desktopCommander.version}, start_process`,
      async run() {
        const {ms, value} = await timed(() => dc.call('start_process', {command: 'true', timeout_ms: 10_000, shell}))
        if (value.isError) throw new Error(`start_process answered: ${value.text.slice(0, 200)}`)
        return {ms}
      },
    })
  }
  const pids = servers.map((server) => server.pid)
  const waits: number[] = []
  const quietFirst = contenders.map((contender) => ({
    ...contender,
    async run(round: number) {
      waits.push(await waitUntilQuiet(pids))
      return contender.run(round)
    },
  }))
  try {
    const summaries = await alternate(quietFirst, context.runs({full: 20, quick: 5}))
    notes.push(`Waiting for quiet before a call took ${median(waits).toFixed(0)} ms (median), ${Math.max(...waits).toFixed(0)} ms at most.`)
    if (dcServer) {
      const dc = dcServer
      // Every Desktop Commander call also updates its usage statistics on disk; a call that does
      // nothing else shows that fixed cost.
      const idle: number[] = []
      for (let i = 0; i < 5; i++) {
        await waitUntilQuiet(pids)
        idle.push((await timed(() => dc.call('list_sessions', {}))).ms)
      }
      notes.push(`A Desktop Commander call that does no work (\`list_sessions\`) takes ${median(idle).toFixed(0)} ms (median of 5) on this machine: each call also reads and updates usage statistics in its config file.`)
    }
    const verdicts: Verdict[] = [
      ratioVerdict(summaries, AK_ON, FLOOR, 0.25, `${AK_ON} ÷ floor ≤ 0.25 (shell snapshot)`),
      ratioVerdict(summaries, AK_ON, DC, 0.2, `${AK_ON} ÷ Desktop Commander ≤ 0.2`),
      ratioVerdict(summaries, AK_OFF, FLOOR, 1.5, `${AK_OFF} ÷ floor ≤ 1.5 (a login shell per call)`),
    ]
    return {
      id: 'exec',
      title: 'exec_command of `true`, round trip through MCP stdio',
      measures: 'One run is one tool call on an already-initialized server (or one direct spawn for the floors), until its answer, started once no server has a child process left from the call before.',
      target: 'with the shell snapshot, ≤ 0.25 × the login-shell floor and ≤ 0.2 × Desktop Commander; without it, ≤ 1.5 × the floor.',
      akName: AK_ON,
      summaries,
      verdicts,
      notes,
    }
  } finally {
    for (const server of servers) await server.close()
  }
}

function parseSetting(setting: string): {name: string; value: string} {
  const match = /^([A-Za-z_][A-Za-z0-9_]*)=(.*)$/.exec(setting)
  if (!match) throw new Error(`--snapshot-off "${setting}" is not NAME=VALUE (e.g. ${DEFAULT_SNAPSHOT_OFF})`)
  return {name: match[1]!, value: match[2]!}
}
