import {createGlobTester, createScanner, type ScanRequest, type ScanResult, type Scanner} from './scanner.js'

/** A message from the pool to a worker: scan one batch. */
export interface WorkerTask {
  /** Task id, echoed in the reply. */
  id: number
  request: ScanRequest
}

/** A worker's reply to one task. */
export type WorkerReply = {id: number; ok: true; result: ScanResult} | {id: number; ok: false; error: string}

/**
 * The body of a search worker: answers each `WorkerTask` with a `WorkerReply`. Self-contained
 * like `createScanner` (it is evaluated from its source text), and it receives the scanner
 * factory and the glob tester as its arguments rather than importing them.
 */
function searchWorkerMain(makeScanner: typeof createScanner, makeGlobTester: typeof createGlobTester): void {
  const {parentPort} = process.getBuiltinModule('node:worker_threads') as typeof import('node:worker_threads')
  if (!parentPort) return
  const scanner: Scanner = makeScanner(makeGlobTester)
  parentPort.on('message', (task: WorkerTask) => {
    let reply: WorkerReply
    try {
      reply = {id: task.id, ok: true, result: scanner.scan(task.request)}
    } catch (error) {
      reply = {id: task.id, ok: false, error: error instanceof Error ? error.message : String(error)}
    }
    parentPort.postMessage(reply)
  })
}

/**
 * The source text a search worker runs (`new Worker(source, {eval: true})`).
 *
 * Built from the three functions' own source, so a worker never loads a file: it does not re-run
 * the host application's entry file, and it works the same when ak is bundled into someone
 * else's single file (DESIGN §4.6). TypeScript runners and bundlers that keep function names
 * (tsx, esbuild's `keepNames`) wrap nested functions in a `__name(fn, "name")` helper that
 * exists only in the original module; the worker defines a harmless stand-in for it.
 */
export function searchWorkerSource(): string {
  return [
    '"use strict";',
    'var __name = (target) => target;',
    `(${searchWorkerMain.toString()})(${createScanner.toString()}, ${createGlobTester.toString()});`,
  ].join('\n')
}
