/**
 * What a long command costs a client, in calls and bytes sent to the server, when the client
 * follows it as an MCP task (the Tasks extension: exec_command once, then tasks/get every
 * pollIntervalMs) against polling it (exec_command, then write_stdin without chars at the longest
 * yield, 30 s, until it ends). Counts, not times, so it needs no quiet machine. The model's side
 * differs more than the bytes: with polling every write_stdin is a model turn; with a task the
 * client polls and the model reads one answer.
 *
 * Run: `npx tsx bench/cases/exec-tasks.ts [--seconds 300]` (build first: it runs bin/run.js).
 */
import {mkdtempSync, rmSync} from 'node:fs'
import {tmpdir} from 'node:os'
import path from 'node:path'
import {parseArgs} from 'node:util'

import {MAX_YIELD_TIME_MS} from '../../src/exec/terminal/limits.js'
import {RawConnection} from '../../test/helpers/raw-mcp.js'

/** Calls and bytes one way of following a command sent to the server, after its opening. */
export interface FollowCost {
  calls: number
  bytes: number
  seconds: number
}

/** Counts what `connection` writes to the server from now on. */
function meter(connection: RawConnection): () => {calls: number; bytes: number} {
  const stdin = connection.child.stdin!
  const write = stdin.write.bind(stdin)
  let calls = 0
  let bytes = 0
  stdin.write = ((chunk: string, ...rest: unknown[]) => {
    calls++
    bytes += Buffer.byteLength(chunk)
    return (write as (...args: unknown[]) => boolean)(chunk, ...rest)
  }) as typeof stdin.write
  return () => ({calls, bytes})
}

/** Follows `sleep <seconds>` as a task (extension declared) or by polling (not declared). */
export async function followCommand(workspace: string, seconds: number, asTask: boolean): Promise<FollowCost> {
  const connection = await RawConnection.open(workspace, '2026-07-28', asTask)
  try {
    const counted = meter(connection)
    const started = performance.now()
    const cmd = `sleep ${seconds}; echo finished`
    if (asTask) {
      const created = await connection.call({cmd})
      if (created.resultType === 'task') await connection.settle(String(created.taskId), (seconds + 60) * 1000, Number(created.pollIntervalMs))
    } else {
      let answer = (await connection.call({cmd, yield_time_ms: MAX_YIELD_TIME_MS})).structuredContent as {exit_code: unknown; session_id: string}
      while (answer.exit_code === 'running') {
        const reply = await connection.request('tools/call', {name: 'write_stdin', arguments: {session_id: answer.session_id, yield_time_ms: MAX_YIELD_TIME_MS}})
        answer = reply.result!.structuredContent as typeof answer
      }
    }
    return {...counted(), seconds: (performance.now() - started) / 1000}
  } finally {
    await connection.close()
  }
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const {values} = parseArgs({options: {seconds: {type: 'string', default: '300'}}})
  const seconds = Number(values.seconds)
  const workspace = mkdtempSync(path.join(tmpdir(), 'ak-bench-tasks-'))
  try {
    // Side by side: each counts only its own connection's calls, so running both at once changes no figure.
    const [polling, task] = await Promise.all([followCommand(workspace, seconds, false), followCommand(workspace, seconds, true)])
    console.log(`| a ${seconds} s command | calls to the server | bytes to the server | model turns |`)
    console.log('|---|---|---|---|')
    console.log(`| polled with write_stdin (30 s yields) | ${polling.calls} | ${polling.bytes} | ${polling.calls} |`)
    console.log(`| followed as a task (tasks/get) | ${task.calls} | ${task.bytes} | 1 |`)
  } finally {
    rmSync(workspace, {recursive: true, force: true})
  }
}
