import {readFile} from 'node:fs/promises'

import {PROC_ENVIRON_MAX_BYTES, MAX_AGENT_DEPTH} from './limits.js'
import {readNamedFile} from './named-file.js'

/**
 * How deep in a chain of agents this runtime runs, whatever started it (DESIGN §5.2). Every
 * `codex exec` the runtime dispatches gets the variable AGENT_DEPTH_ENV (its depth: 1 for a run
 * dispatched from the top), and so does every stdio MCP server that run starts (`-c
 * mcp_servers.<name>.env.<VAR>=…`, since Codex starts MCP servers with a reduced environment).
 * A runtime finds its depth in its own environment, or, on Linux, in the environment of an
 * ancestor process (`/proc/<pid>/environ`), which holds even when Codex was not given the
 * variable for the server that started it (a server Codex loads from somewhere ak does not read,
 * or a name `-c` cannot express). At MAX_AGENT_DEPTH or deeper, it refuses agent calls: agents
 * do not start agents, as Codex's own `agents.max_depth` (1 by default) has it.
 */

/** The environment variable that marks a dispatched run and its MCP servers with their depth. */
export const AGENT_DEPTH_ENV = 'AK_CODEX_AGENT_DEPTH'

/** How far up the process tree ancestors are looked at. */
const MAX_ANCESTORS = 64

/** This runtime's depth and where it was read; depth 0 (no `source`) for a runtime started by a person or a top-level client. */
export interface AgentDepth {
  depth: number
  /** Where the depth was found: "its environment", or "the environment of its ancestor process 123 (codex)". */
  source?: string
}

/**
 * The depth of a runtime with environment `env` running as process `pid`: the largest marker in
 * `env` and in the environments of its ancestors (Linux `/proc`; elsewhere `env` alone).
 * Ancestors that cannot be read (another user's) are passed over.
 */
export async function detectAgentDepth(env: NodeJS.ProcessEnv, pid = process.pid, procRoot = '/proc'): Promise<AgentDepth> {
  let found: AgentDepth = {depth: 0}
  const own = depthOf(env[AGENT_DEPTH_ENV])
  if (own > 0) found = {depth: own, source: 'its environment'}
  let current = pid
  for (let step = 0; step < MAX_ANCESTORS; step += 1) {
    const parent = await parentOf(procRoot, current)
    if (parent === undefined || parent <= 1) break
    current = parent
    const read = await readNamedFile(`${procRoot}/${current}/environ`, {maxBytes: PROC_ENVIRON_MAX_BYTES, followLinks: true})
    if (read.status !== 'ok') continue
    const depth = depthOf(markerIn(read.bytes))
    if (depth > found.depth) found = {depth, source: `the environment of its ancestor process ${current} (${await commandNameOf(procRoot, current)})`}
  }
  return found
}

/** True when a runtime at `depth` may not dispatch agents. */
export function isTooDeep(depth: AgentDepth): boolean {
  return depth.depth >= MAX_AGENT_DEPTH
}

/** The value of AGENT_DEPTH_ENV in a NUL-separated environment block, if set. */
function markerIn(environ: Buffer): string | undefined {
  const prefix = `${AGENT_DEPTH_ENV}=`
  for (const entry of environ.toString('latin1').split('\0')) {
    if (entry.startsWith(prefix)) return entry.slice(prefix.length)
  }
  return undefined
}

/** A marker's depth: a positive integer; anything else set counts as 1, so a mangled marker still bounds the depth. */
function depthOf(value: string | undefined): number {
  if (value === undefined || value === '') return 0
  return /^[1-9]\d{0,3}$/.test(value) ? Number(value) : 1
}

/** The parent pid from `/proc/<pid>/stat` (the field after the state, which follows the parenthesised command name). */
async function parentOf(procRoot: string, pid: number): Promise<number | undefined> {
  const stat = await readFile(`${procRoot}/${pid}/stat`, 'latin1').catch(() => undefined)
  if (stat === undefined) return undefined
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ')
  const parent = Number(fields[1])
  return Number.isInteger(parent) ? parent : undefined
}

async function commandNameOf(procRoot: string, pid: number): Promise<string> {
  return ((await readFile(`${procRoot}/${pid}/comm`, 'latin1').catch(() => '')) || '?').trim()
}
