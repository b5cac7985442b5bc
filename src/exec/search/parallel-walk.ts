/**
 * The search walk spread over the search workers (DESIGN §4.6), with its order kept on the
 * server's thread.
 *
 * The walk is a list of segments in walk order (the preorder of `walkFiles`): each segment is a run
 * of consecutive folders waiting for a worker, or what a worker's walk task found in them. A task
 * walks its folders depth first for a while and returns its matches and its frontier, the folders
 * it did not reach (see walk-task.ts); the frontier replaces the task's folders in the list, right
 * after its result, cut into a few segments that idle workers take, earliest first. Results are
 * handed to the caller strictly in walk order as the head of the list completes, so an answer is
 * the same whichever worker finished first, and the caller can stop the walk at `max_results`.
 *
 * What the walk yields, as `git` sees the files below a folder: each folder's regular files sorted
 * by name (bytes), then its subfolders in name order, depth first. Names are bytes from start to
 * end (DESIGN §4.2): a folder is listed and re-entered by the bytes of its name, never by a decoded
 * form, so a name that is not valid UTF-8 can neither vanish nor lead somewhere else. Skipped:
 * whatever the `.gitignore` files of the workspace (nested ones included) and `.git/info/exclude`
 * ignore (see IgnoreRules), matched against the names as git sees them, not their escaped display
 * form; `.git` and `node_modules` folders; and every symlink, to a file or a folder, so the walk
 * never leaves the workspace or loops (git does not follow them either). Only ignore files inside
 * the workspace are read, never through a symlink, within limits (see ignore-file.ts); what they had
 * left out goes to the answer's note. A start folder that is itself ignored (or lies in
 * `node_modules`) is walked anyway, because it was asked for by name, with only the ignore files
 * at and below it. Folders that cannot be read are skipped.
 *
 * Confinement: the start is reached from the verified workspace root through folder descriptors
 * (walk-start.ts); a folder a task lists is opened through its parent's descriptor, and a folder
 * handed to another task is opened by its path and checked through its descriptor to be that very
 * folder (walk-task.ts). Files are opened by path without following a link at the last name, and
 * the scanner checks the descriptor of every file whose lines it returns (scanner.ts).
 */
import type {Workspace} from '../workspace.js'
import type {IgnoreFileNotes} from './ignore-file.js'
import type {ScanRequest} from './scanner.js'
import {walkStart} from './walk-start.js'
import type {IgnoreFileRules, WalkFolder, WalkRequest, WalkResult} from './walk-task.js'
import {SearchJobFinishedError, type SearchJob} from './worker-pool.js'

/**
 * Wall time (ms) a walk task runs before it returns its frontier, while enough folders wait for
 * every worker: long enough that handing work back and forth costs little (a few messages per
 * second per worker), short enough that a worker never holds far more than its share.
 */
export const WALK_TASK_BUDGET_MS = 25

/**
 * The budget (ms) of a task taken while fewer folder runs wait than there are workers: the task
 * returns its frontier soon, so the other workers get a share of it. The first task of a walk (its
 * start folder alone) gets 0: it lists the start folder and returns.
 */
export const WALK_TASK_SHORT_BUDGET_MS = 3

/** Walk tasks in flight per worker: one running and one waiting, so no worker idles between tasks. */
const TASKS_IN_FLIGHT_PER_WORKER = 2

/** Ids that tell one walk's ignore files from another's in the workers' caches. */
let nextSearchId = 1

/** A run of consecutive folders of the walk: waiting, being walked, or walked. */
interface Segment {
  folders: WalkFolder[]
  isRunning: boolean
  result?: WalkResult
  next?: Segment
}

/** What `walkInParallel` needs. */
export interface ParallelWalkOptions {
  workspace: Workspace
  /** The folder to walk, workspace-relative, as bytes (empty for the root), already confined. */
  start: Buffer
  /** The search job whose workers run the tasks (its time limit covers the walk). */
  job: SearchJob
  /** Workers of the pool. */
  poolSize: number
  /** What each file is scanned for (see ScanRequest); `maxMatches` bounds each task. */
  scan: Omit<ScanRequest, 'files' | 'paths'>
  /** See WalkRequest.folderBases. */
  folderBases?: string[]
  /** Collects the ignore files that had rules left out, in walk order. */
  notes: IgnoreFileNotes
  /** Receives each task's result in walk order; returns true to stop the walk (the answer is complete). */
  onResult(result: WalkResult): boolean
  /** The budget (ms) of every task instead of the ones above (0: each task walks one folder; for tests). */
  taskBudgetMs?: number
}

/**
 * Walks `start` and scans its files on the job's workers, handing results to `onResult` in walk
 * order until it returns true or the walk ends.
 * @throws LimitReachedError, DispatchFailedError and the job's other failures (see SearchJob.walk).
 */
export async function walkInParallel(options: ParallelWalkOptions): Promise<void> {
  const {job, poolSize} = options
  const start = await walkStart(options.workspace, options.start, options.notes)
  const searchId = nextSearchId++
  const ignoreFiles = new Map<string, IgnoreFileRules>()
  const startRules = start.ignoreFiles.map((file, index): IgnoreFileRules => ({id: `a${index}`, ...file}))
  for (const file of startRules) ignoreFiles.set(file.id, file)

  let head: Segment | undefined = {
    folders: [{prefix: start.prefix, shown: start.shown, ruled: start.ruled, rules: startRules.map((file) => file.id)}],
    isRunning: false,
  }
  let waitingSegments = 1
  let inFlight = 0
  let nextTaskId = 0
  let isStopped = false
  let failure: unknown
  let wake: () => void = () => undefined

  const finished = (segment: Segment, result: WalkResult): void => {
    inFlight--
    segment.result = result
    segment.folders = []
    for (const file of result.ignoreFiles) ignoreFiles.set(file.id, file)
    // The frontier follows the task's own result, cut into runs the workers can share.
    const runs = splitRuns(result.frontier, poolSize * TASKS_IN_FLIGHT_PER_WORKER)
    let after = segment
    for (const folders of runs) {
      const next: Segment = {folders, isRunning: false, ...(after.next ? {next: after.next} : {})}
      after.next = next
      after = next
    }
    waitingSegments += runs.length
    result.frontier = []
    while (head?.result && !isStopped) {
      for (const [path, skipped] of head.result.notes) options.notes.add(path, skipped)
      if (options.onResult(head.result)) isStopped = true
      head = head.next
    }
    dispatch()
    wake()
  }

  const dispatch = (): void => {
    const maxInFlight = poolSize * TASKS_IN_FLIGHT_PER_WORKER
    for (let segment = head; segment && inFlight < maxInFlight && !isStopped && failure === undefined; segment = segment.next) {
      if (segment.isRunning || segment.result) continue
      segment.isRunning = true
      inFlight++
      waitingSegments--
      const taskId = nextTaskId++
      const request: WalkRequest = {
        searchId,
        taskId,
        folders: segment.folders,
        ignoreFiles: ignoreFilesOf(segment.folders, ignoreFiles),
        scan: options.scan,
        ...(options.folderBases ? {folderBases: options.folderBases} : {}),
        budgetMs: options.taskBudgetMs ?? (taskId === 0 ? 0 : waitingSegments < poolSize ? WALK_TASK_SHORT_BUDGET_MS : WALK_TASK_BUDGET_MS),
      }
      const current = segment
      job.walk(request).then(
        (result) => finished(current, result),
        (error: unknown) => {
          inFlight--
          if (!(error instanceof SearchJobFinishedError)) failure ??= error
          wake()
        },
      )
    }
  }

  dispatch()
  while (head && !isStopped && failure === undefined) {
    await new Promise<void>((resolve) => {
      wake = resolve
    })
  }
  if (failure !== undefined) throw failure
}

/** `folders` cut into at most `count` runs of consecutive folders, as even as can be. */
function splitRuns(folders: WalkFolder[], count: number): WalkFolder[][] {
  const runs: WalkFolder[][] = []
  const size = Math.ceil(folders.length / Math.max(1, count))
  for (let index = 0; index < folders.length; index += size) runs.push(folders.slice(index, index + size))
  return runs
}

/** The ignore files the rules of `folders` name, each once. */
function ignoreFilesOf(folders: WalkFolder[], known: Map<string, IgnoreFileRules>): IgnoreFileRules[] {
  const ids = new Set<string>()
  for (const folder of folders) for (const id of folder.rules) ids.add(id)
  return [...ids].map((id) => known.get(id) as IgnoreFileRules)
}
