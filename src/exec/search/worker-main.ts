/**
 * The entry of a search worker: answers each `WorkerTask` with a `WorkerReply`, scanning a batch
 * of files or running a walk task. The build bundles this file with everything it imports into
 * one script (see worker-source.ts), so a worker never loads a file of the host application.
 */
import {parentPort} from 'node:worker_threads'

import {createScanner, type ScanRequest, type ScanResult} from './scanner.js'
import {createWalker, type WalkRequest, type WalkResult} from './walk-task.js'

/** A message from the pool to a worker: scan one batch, or run one walk task. */
export type WorkerTask = {id: number; kind: 'scan'; request: ScanRequest} | {id: number; kind: 'walk'; request: WalkRequest}

/** A worker's reply to one task. */
export type WorkerReply = {id: number; ok: true; result: ScanResult | WalkResult} | {id: number; ok: false; error: string}

if (parentPort) {
  const port = parentPort
  const scanner = createScanner()
  const walker = createWalker(scanner)
  port.on('message', (task: WorkerTask) => {
    let reply: WorkerReply
    try {
      reply = {id: task.id, ok: true, result: task.kind === 'walk' ? walker.walk(task.request) : scanner.scan(task.request)}
    } catch (error) {
      reply = {id: task.id, ok: false, error: error instanceof Error ? error.message : String(error)}
    }
    port.postMessage(reply)
  })
}
