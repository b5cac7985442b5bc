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
 * (tsx, esbuild's `keepNames`, ak's own minified bundles) wrap nested functions in a helper call,
 * `__name(fn, "name")` or a minified `o(fn, "name")`, whose helper exists only in the original
 * module; the worker defines a harmless stand-in under the name this copy of the code uses.
 */
export function searchWorkerSource(): string {
  const helpers = new Set(['__name', ...keepNamesHelpers()])
  return [
    '"use strict";',
    ...[...helpers].map((helper) => `var ${helper} = (target) => target;`),
    `(${searchWorkerMain.toString()})(${createScanner.toString()}, ${createGlobTester.toString()});`,
  ].join('\n')
}

/**
 * The names of the helpers that tools keeping function names wrapped this module's nested
 * functions in (one per tool: ak's bundle, then a host's bundler), read from the source of
 * keepNamesProbe as it is now: every function it calls. Empty when nothing wrapped them.
 */
export function keepNamesHelpers(): string[] {
  const body = keepNamesProbe.toString().replace(/^[^{]*\{/, '')
  return [...body.matchAll(/([\w$]+)\s*\(/g)].map((match) => match[1]!)
}

/**
 * A nested arrow function bound to a name, which a name-keeping tool wraps like the worker's own,
 * and no other call: every call in its body is such a wrapper.
 */
function keepNamesProbe(): () => number {
  const probe = () => 0
  return probe
}
