/**
 * Search warmed up while a server is idle after `initialized`, so that the first search is not
 * the slow one: V8 compiles a function on its first call, a search worker loads parts of Node.js
 * on first use, and the first `search` call would otherwise pay for all of it, on the server's
 * thread and on every worker (DESIGN §4.6).
 *
 * The warm-up makes `search` calls as a client does (JSON-RPC `tools/call`), to a server instance
 * of its own over an in-memory transport, on a tiny folder of its own in the system's temporary
 * folder, through the runtime's worker pool; then it removes that folder. It warms the worker the
 * pool prestarted and starts no other (SearchWorkerPool.withoutGrowth): each idle worker holds
 * memory, and the first search's batches run on the warmed one while the pool starts the others. It reads and writes
 * nothing of the workspace, logs nothing, and its calls are not the user's.
 */
import {lstatSync, mkdirSync, mkdtempSync, readdirSync, realpathSync, rmSync, writeFileSync} from 'node:fs'
import os from 'node:os'
import path from 'node:path'

import {InMemoryTransport, type JSONRPCMessage, LATEST_PROTOCOL_VERSION, type McpServer} from '@modelcontextprotocol/server'

import {silentLogger} from '../../log.js'
import {AK_VERSION} from '../../version.js'
import {createExecConnection, isRuntimeClosed} from '../runtime.js'
import {PRESTARTED_WORKERS} from '../search/worker-pool.js'
import {searchPoolOf} from '../tools/search.js'
import {Workspace} from '../workspace.js'
import type {ExecConnection, ExecRuntime} from '../context.js'

/** The `search` calls a warm-up makes: each mode a search runs in (literal, regex, file list, one file). */
export const SEARCH_WARM_UP_CALLS: ReadonlyArray<Record<string, unknown>> = [
  {query: 'warm match'},
  {query: 'WARM\\s+m[a-z]+$', regex: true, case_sensitive: false, glob: ['*.ts', '!*.log']},
  {glob: '**/*.ts'},
  {query: 'warm', path: 'notes.txt', max_results: 1},
]

/** How a warm-up's folder in the system's temporary folder is named: this, then random characters. */
export const SEARCH_WARM_UP_FOLDER_PREFIX = 'ak-search-warm-up-'

/**
 * A warm-up folder older than this (ms, by its modification time) was left by a server stopped
 * during its warm-up (killed, so it could not remove it): the next warm-up removes it. A warm-up
 * takes well under a second.
 */
export const SEARCH_WARM_UP_STALE_MS = 60_000

/**
 * How long after `initialized` the warm-up starts, in ms: the client's first requests (tools/list)
 * are answered first, and a one-shot command (`ak exec call`) is over before it would start.
 */
export const SEARCH_WARM_UP_DELAY_MS = 100

/** Builds the server instance a warm-up calls (createExecServer, passed in so this module does not import it). */
export type ServeExec = (runtime: ExecRuntime, connection: ExecConnection) => McpServer

/** Runtimes whose search was warmed up (or is being), so that each is warmed once whatever its connections. */
const warmed = new WeakSet<ExecRuntime>()

/**
 * Plans the runtime's warm-up SEARCH_WARM_UP_DELAY_MS from now, on a timer that keeps no process
 * alive; nothing when the runtime was warmed already. The warm-up is skipped when the runtime has
 * closed by then.
 */
export function scheduleSearchWarmUp(runtime: ExecRuntime, serve: ServeExec): void {
  if (warmed.has(runtime)) return
  setTimeout(() => void warmUpSearch(runtime, serve), SEARCH_WARM_UP_DELAY_MS).unref()
}

/**
 * Warms the runtime's search up once (see the module's comment). Answers the text of each of
 * SEARCH_WARM_UP_CALLS that answered without an error, in order (for tests and diagnostics): none
 * when the runtime was warmed already or is closed, a search has run on it already, or no warm-up
 * folder could be made. Stops between calls once the runtime closes. Never throws: whatever fails
 * leaves search as it is without a warm-up.
 */
export async function warmUpSearch(runtime: ExecRuntime, serve: ServeExec): Promise<string[]> {
  const answered: string[] = []
  if (warmed.has(runtime) || isRuntimeClosed(runtime)) return answered
  warmed.add(runtime)
  const pool = searchPoolOf(runtime)
  // A search that ran already warmed what it used; a one-shot command's search is its only one.
  if (pool.jobsStarted > 0) return answered
  const folder = makeWarmUpFolder(runtime, Math.min(pool.size, PRESTARTED_WORKERS))
  if (folder === undefined) return answered
  const connection = createExecConnection()
  let server: McpServer | undefined
  try {
    // The runtime's services (its worker pool) with the warm-up's folder as workspace, and no log.
    const own: ExecRuntime = {...runtime, workspace: await Workspace.open(folder), log: silentLogger}
    warmed.add(own)
    server = serve(own, connection)
    const [client, serverSide] = InMemoryTransport.createLinkedPair()
    const waiting = new Map<number, {resolve(message: JSONRPCMessage): void; reject(error: Error): void}>()
    client.onmessage = (message) => {
      if ('id' in message && typeof message.id === 'number') waiting.get(message.id)?.resolve(message)
    }
    client.onclose = () => {
      for (const {reject} of waiting.values()) reject(new Error('the warm-up server closed'))
    }
    let nextId = 1
    const request = (method: string, params: Record<string, unknown>): Promise<JSONRPCMessage> => {
      const id = nextId++
      const answer = new Promise<JSONRPCMessage>((resolve, reject) => waiting.set(id, {resolve, reject}))
      return client.send({jsonrpc: '2.0', id, method, params}).then(() => answer)
    }
    await server.connect(serverSide)
    await client.start()
    await request('initialize', {protocolVersion: LATEST_PROTOCOL_VERSION, capabilities: {}, clientInfo: {name: 'ak-search-warm-up', version: AK_VERSION}})
    await client.send({jsonrpc: '2.0', method: 'notifications/initialized'})
    await pool.withoutGrowth(async () => {
      for (const call of SEARCH_WARM_UP_CALLS) {
        if (isRuntimeClosed(runtime)) break
        const answer = await request('tools/call', {name: 'search', arguments: call})
        const result = 'result' in answer ? (answer.result as {isError?: boolean; content?: Array<{text?: string}>}) : undefined
        if (result && result.isError !== true) answered.push(result.content?.[0]?.text ?? '')
      }
    })
  } catch {
    // Best effort: search works the same cold.
  } finally {
    await server?.close().catch(() => undefined)
    await connection.close().catch(() => undefined)
    removeQuietly(folder)
  }
  return answered
}

/**
 * Removes the warm-up folders in `temporary` older than SEARCH_WARM_UP_STALE_MS that belong to
 * this process's user (never a symlink, never another user's).
 */
function removeStaleWarmUpFolders(temporary: string): void {
  let names: string[]
  try {
    names = readdirSync(temporary)
  } catch {
    return
  }
  const now = Date.now()
  for (const name of names) {
    if (!name.startsWith(SEARCH_WARM_UP_FOLDER_PREFIX)) continue
    const folder = path.join(temporary, name)
    try {
      const info = lstatSync(folder)
      if (info.isDirectory() && info.uid === process.getuid?.() && now - info.mtimeMs > SEARCH_WARM_UP_STALE_MS) removeQuietly(folder)
    } catch {
      // Gone meanwhile.
    }
  }
}

/** Removes the warm-up's folder; a failure leaves it to the system's cleaning of temporary files. */
function removeQuietly(folder: string): void {
  try {
    rmSync(folder, {recursive: true, force: true})
  } catch {
    // Nothing more to do.
  }
}

/**
 * Makes the folder a warm-up searches, in the system's temporary folder: an ignore file, a binary
 * file, and two subfolders per worker warmed so that each gets walk tasks. Undefined when the
 * temporary folder cannot be written or lies inside the workspace (where the user would see it).
 */
function makeWarmUpFolder(runtime: ExecRuntime, workers: number): string | undefined {
  let temporary: string
  try {
    temporary = realpathSync(os.tmpdir())
  } catch {
    return undefined
  }
  if (runtime.workspace.isInside(temporary)) return undefined
  removeStaleWarmUpFolders(temporary)
  let folder: string | undefined
  try {
    folder = mkdtempSync(path.join(temporary, SEARCH_WARM_UP_FOLDER_PREFIX))
    writeFileSync(path.join(folder, '.gitignore'), '*.log\n!keep.log\n/ignored.txt\nbuild/\n')
    writeFileSync(path.join(folder, 'notes.txt'), 'first line\nwarm match\r\nlast line')
    writeFileSync(path.join(folder, 'ignored.txt'), 'warm match\n')
    writeFileSync(path.join(folder, 'keep.log'), 'warm match\n')
    writeFileSync(path.join(folder, 'data.bin'), Buffer.from('warm match\0\n'))
    for (let index = 0; index < workers * 2; index++) {
      const part = path.join(folder, `part-${index}`)
      mkdirSync(path.join(part, 'build'), {recursive: true})
      writeFileSync(path.join(part, 'code.ts'), `const part = ${index}\n// WARM Match\n// warm match\n`)
      writeFileSync(path.join(part, 'build', 'out.ts'), 'warm match\n')
    }
    return folder
  } catch {
    if (folder !== undefined) removeQuietly(folder)
    return undefined
  }
}
