/**
 * What the sandbox's walks of the workspace cost a trivial command (DESIGN §4.9): before each
 * command it looks for protected paths to bind read-only (sandbox-protected.ts), and after it, and
 * at each answer while it runs, for what the command left that would run outside
 * (sandbox-leftovers.ts). `exec_command` of `true` under `--sandbox workspace-write` in a workspace
 * of no folders, of 2,000 and of 20,000 (`--quick`: 200 and 2,000), against the same call without
 * a sandbox. The sandbox in the empty workspace is what bubblewrap alone adds (the exec-sandbox
 * case); what the bigger workspaces add over it is the walks'.
 */
import {execFileSync} from 'node:child_process'
import {mkdirSync, writeFileSync} from 'node:fs'
import path from 'node:path'
import {setTimeout as sleep} from 'node:timers/promises'
import type {BenchContext} from '../lib/contenders.js'
import {alternate, timed, type Contender, type Summary} from '../lib/measure.js'
import {connectServer, type McpServer} from '../lib/mcp.js'
import type {CaseReport} from '../lib/report.js'

/** Folders of the workspaces measured, in a full run and with --quick. */
const FOLDER_COUNTS = {full: [2_000, 20_000], quick: [200, 2_000]}
/** Folders per folder of the first level: a tree of two levels, as a project's sources and build output. */
const FOLDERS_PER_TOP = 100
/** Untimed calls before measuring: the first ones take the shell snapshot in the background. */
const WARMUP_CALLS = 3

/** A git repository holding `folders` folders in two levels (`d0/e0` …), one small file in each first-level folder. */
function makeWorkspace(root: string, folders: number): void {
  mkdirSync(root, {recursive: true})
  execFileSync('git', ['init', '-q'], {cwd: root})
  for (let index = 0; index < folders; index++) {
    const top = path.join(root, `d${Math.floor(index / FOLDERS_PER_TOP)}`)
    if (index % FOLDERS_PER_TOP === 0) {
      mkdirSync(top, {recursive: true})
      writeFileSync(path.join(top, 'index.ts'), 'export {}\n')
    } else mkdirSync(path.join(top, `e${index % FOLDERS_PER_TOP}`))
  }
}

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

function medianOf(summaries: Summary[], name: string): number | undefined {
  const found = summaries.find((s) => s.name === name)
  return !found || found.error ? undefined : found.median
}

/** Measures `true` through exec_command, sandboxed in workspaces of growing folder counts, and unsandboxed. */
export async function execSandboxWalkCase(context: BenchContext): Promise<CaseReport> {
  const counts = context.quick ? FOLDER_COUNTS.quick : FOLDER_COUNTS.full
  const servers: McpServer[] = []
  const notes: string[] = []
  const contenders: Contender[] = []
  const sandboxedName = (folders: number) => `ak, --sandbox workspace-write, ${folders} folders`
  const plainName = `ak, no sandbox, ${counts.at(-1)} folders`
  try {
    for (const folders of [0, ...counts]) {
      const workspace = path.join(context.tmp, `exec-sandbox-walk-${folders}`)
      makeWorkspace(workspace, folders)
      const line = context.ak.line(workspace, 'terminal')
      if (folders === counts.at(-1)) {
        const plain = await connectServer(line)
        servers.push(plain)
        contenders.push(contender(plainName, context.ak.form, plain))
      }
      try {
        const sandboxed = await connectServer({...line, args: [...line.args, '--sandbox', 'workspace-write']})
        servers.push(sandboxed)
        contenders.push(contender(sandboxedName(folders), `${context.ak.form}, bubblewrap, a git repository of ${folders} folders`, sandboxed))
      } catch (error) {
        notes.push(`The sandbox cannot run here (${(error as Error).message.split('\n')[0]}): its contenders were skipped.`)
        break
      }
    }
    for (const server of servers) {
      for (let i = 0; i < WARMUP_CALLS; i++) await server.call('exec_command', {cmd: 'true'})
    }
    await sleep(1000)
    const summaries = await alternate(contenders, context.runs({full: 20, quick: 3}))
    const bare = medianOf(summaries, sandboxedName(0))
    for (const folders of counts) {
      const walked = medianOf(summaries, sandboxedName(folders))
      if (bare === undefined || walked === undefined) continue
      notes.push(`The walks of ${folders} folders add ${(walked - bare).toFixed(1)} ms to a command (${(((walked - bare) / folders) * 1000).toFixed(1)} µs a folder).`)
    }
    return {
      id: 'exec-sandbox-walk',
      title: 'exec_command of `true` under `--sandbox workspace-write` in workspaces of growing folder counts',
      measures:
        'One run is one tool call on an already-initialized server whose shell snapshot is taken, until its answer: the walk for ' +
        'protected paths before the command and the walk for what it left after it included.',
      target: 'None: this case measures what the walks cost, against the same sandbox in an empty workspace and no sandbox at all.',
      akName: sandboxedName(counts.at(-1)!),
      summaries,
      verdicts: [],
      notes,
    }
  } finally {
    for (const server of servers) await server.close()
  }
}
