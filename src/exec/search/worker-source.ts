import {SEARCH_WORKER_SCRIPT} from './generated/worker-script.js'

export type {WorkerReply, WorkerTask} from './worker-main.js'

/**
 * The source text a search worker runs (`new Worker(source, {eval: true})`): worker-main.ts and
 * everything it imports, bundled into one script by the build (scripts/build.js).
 *
 * A worker never loads a file: it does not re-run the host application's entry file, and it works
 * the same when ak is bundled into someone else's single file (DESIGN §4.6), since the script is
 * a string constant of whatever module holds it.
 */
export function searchWorkerSource(): string {
  return SEARCH_WORKER_SCRIPT
}
