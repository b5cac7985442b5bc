import os from 'node:os'
import {Worker} from 'node:worker_threads'

import {DispatchFailedError, LimitReachedError, isDescriptorShortage, tooManyFilesOpen} from '../../errors.js'
import {SEARCH_MAX_WORKERS, SEARCH_TIME_LIMIT_MS} from '../limits.js'
import type {RuntimeService} from '../runtime.js'
import type {ScanRequest, ScanResult} from './scanner.js'
import type {WalkRequest, WalkResult} from './walk-task.js'
import {searchWorkerSource, type WorkerReply, type WorkerTask} from './worker-source.js'

/** Options of a search worker pool; the defaults suit a server. */
export interface SearchWorkerPoolOptions {
  /** Worker threads at most (default: `defaultSearchPoolSize()`). */
  size?: number
  /** Wall time of one search job in ms before its workers are terminated (default `SEARCH_TIME_LIMIT_MS`). */
  timeLimitMs?: number
}

/** Workers a pool starts at most on this machine: its parallelism, capped at `SEARCH_MAX_WORKERS`. */
export function defaultSearchPoolSize(): number {
  return Math.max(1, Math.min(os.availableParallelism(), SEARCH_MAX_WORKERS))
}

/**
 * The search time limit for a server: `AK_SEARCH_TIME_LIMIT_MS` when it holds a positive
 * integer, else `SEARCH_TIME_LIMIT_MS`.
 */
export function searchTimeLimitFromEnv(env: NodeJS.ProcessEnv = process.env): number {
  const value = Number(env.AK_SEARCH_TIME_LIMIT_MS)
  return Number.isSafeInteger(value) && value > 0 ? value : SEARCH_TIME_LIMIT_MS
}

/**
 * A batch that has run this long (ms) counts as stalled (a regex backtracking, a file system that
 * hangs): the pool may start a worker beyond its size for other work, so one search cannot hold
 * every other search up until its time limit. Batches normally take a few milliseconds.
 */
export const STALLED_BATCH_MS = 1000

/**
 * Workers `prestart` starts ahead of the first search, whatever the pool's size. Each idle worker
 * holds about 12 MiB of the server's resident memory (a V8 isolate and Node.js's own start-up),
 * so a server keeps one ready, not one per core: the first search's batches run on it while the
 * pool starts the others (see `pump`), and a small search is over before they have loaded.
 */
export const PRESTARTED_WORKERS = 1

/**
 * While a worker has loaded, how long the batch at the head of the queue waits for one before the pool starts
 * another, in ms. Loading a worker takes about 30 ms of a core, longer than a small search takes
 * whole: such a search runs on the loaded workers alone instead of sharing the machine with a
 * start whose worker it would not use, and the pool grows for the searches that last.
 */
export const WORKER_GROW_AFTER_MS = 10

/** Workers a pool may start beyond its size while batches are stalled. */
export const MAX_EXTRA_WORKERS = 4

/**
 * Times a batch whose worker could not start (the server out of descriptors or memory at that
 * moment) is queued again before its search fails with a message saying what ran out.
 */
export const WORKER_START_RETRIES = 3

/** After a worker could not start, how long the pool waits before starting another, in ms. */
export const WORKER_START_RETRY_MS = 100

/** The tasks of one search call, under one time limit. */
export interface SearchJob {
  /**
   * Scans one batch on a worker.
   * @throws LimitReachedError when the job passed its time limit (its workers were terminated).
   * @throws DispatchFailedError when a worker died or the pool closed.
   * @throws SearchJobFinishedError for a batch still queued when `finish` was called.
   */
  scan(request: ScanRequest): Promise<ScanResult>
  /** Runs one walk task (see walk-task.ts) on a worker; rejects as `scan` does. */
  walk(request: WalkRequest): Promise<WalkResult>
  /**
   * Ends the job: batches still queued are dropped, batches already running finish (still under
   * the time limit) and their results are discarded by the caller.
   */
  finish(): void
}

/** Rejects a batch that was still queued when its job finished; callers ignore it. */
export class SearchJobFinishedError extends Error {}

interface JobState {
  running: Set<Task>
  failure: Error | undefined
  finished: boolean
  timer: NodeJS.Timeout
  stopListening(): void
}

interface Task {
  id: number
  job: JobState
  /** When it was queued first (performance.now()). */
  queuedAt: number
  /** When a worker took it (performance.now()), or undefined while queued. */
  startedAt?: number
  work: WorkerWork
  /** Workers that could not start while this task waited for them. */
  startFailures?: number
  resolve(result: ScanResult | WalkResult): void
  reject(error: Error): void
}

/** What a task asks of a worker: a WorkerTask without its id. */
type WorkerWork = {kind: 'scan'; request: ScanRequest} | {kind: 'walk'; request: WalkRequest}

interface Slot {
  worker: Worker
  task: Task | undefined
  /** Whether the worker's thread started running (its `online` event). */
  isOnline: boolean
  /** Tasks the worker has answered. */
  answered: number
}

/**
 * A small pool of search worker threads, reused between calls (DESIGN §4.6).
 *
 * Workers start on demand, up to `size`, from one self-contained script (`searchWorkerSource`),
 * so they never load a file of the host application. Each runs one batch at a time. A job that
 * passes its time limit has its busy workers terminated (V8 stops even a regex stuck in
 * catastrophic backtracking) and removed; new workers are started when work needs them. While a
 * worker has loaded, a batch waits for a loaded one rather than for one still loading. An idle
 * worker is `unref`'d, so the pool never keeps a process alive on its own; a busy one is ref'd
 * until it answers.
 *
 * Queued batches go first to a job that has none running, so a new search is not queued behind
 * every batch of an earlier one. A batch running longer than `STALLED_BATCH_MS` does not count
 * against `size`: up to `MAX_EXTRA_WORKERS` more workers start for other work meanwhile, and stop
 * again once idle while the pool is over its size.
 */
export class SearchWorkerPool implements RuntimeService {
  readonly size: number
  readonly timeLimitMs: number
  /** Workers terminated because their job passed its time limit (for tests and diagnostics). */
  terminatedForTimeLimit = 0
  /** Workers started so far, replacements included. */
  workersStarted = 0
  /** Jobs started so far (searches, file listings). */
  jobsStarted = 0

  private readonly slots: Slot[] = []
  private readonly queue: Task[] = []
  private readonly jobs = new Set<JobState>()
  private readonly source = searchWorkerSource()
  private nextTaskId = 1
  private closed = false
  /** A pump planned for when the oldest running batch stalls, while work waits. */
  private stallTimer: NodeJS.Timeout | undefined
  /** No worker starts before this time (performance.now()), after one could not start. */
  private startPausedUntil = 0
  private startPauseTimer: NodeJS.Timeout | undefined
  /** A pump planned for when the head of the queue has waited WORKER_GROW_AFTER_MS. */
  private growTimer: NodeJS.Timeout | undefined
  /** Calls of `withoutGrowth` running: while any is, the pool grows to PRESTARTED_WORKERS only. */
  private growthHeld = 0

  constructor(options: SearchWorkerPoolOptions = {}) {
    this.size = Math.max(1, options.size ?? defaultSearchPoolSize())
    this.timeLimitMs = options.timeLimitMs ?? SEARCH_TIME_LIMIT_MS
  }

  /** Workers alive now. */
  get workerCount(): number {
    return this.slots.length
  }

  /** Tasks handed to a worker and not answered yet (for tests and diagnostics). */
  get runningTasks(): number {
    return this.slots.filter((slot) => slot.task).length
  }

  /** How many tasks each worker alive now has answered, in the order they started (for tests and diagnostics). */
  get answeredPerWorker(): number[] {
    return this.slots.map((slot) => slot.answered)
  }

  /**
   * Starts a job whose time limit counts from now. Aborting `signal` fails the job like the
   * time limit does.
   * @throws DispatchFailedError when the pool is closed.
   */
  startJob(options: {signal?: AbortSignal} = {}): SearchJob {
    if (this.closed) throw new DispatchFailedError('Search is no longer available: the server is shutting down.')
    this.jobsStarted++
    const onAbort = (): void => this.fail(job, new Error('The search was cancelled.'))
    const job: JobState = {
      running: new Set(),
      failure: undefined,
      finished: false,
      timer: setTimeout(() => {
        this.fail(
          job,
          new LimitReachedError(
            `The search passed its time limit of ${this.timeLimitMs} ms and was stopped. Narrow it ` +
              `(a subfolder as path, a glob, a more specific query) or simplify the regex: nested ` +
              `repetition such as (a+)+ can take exponential time.`,
          ),
        )
      }, this.timeLimitMs).unref(),
      stopListening: () => options.signal?.removeEventListener('abort', onAbort),
    }
    this.jobs.add(job)
    options.signal?.addEventListener('abort', onAbort, {once: true})
    if (options.signal?.aborted) onAbort()
    return {
      scan: (request) => this.enqueue(job, {kind: 'scan', request}) as Promise<ScanResult>,
      walk: (request) => this.enqueue(job, {kind: 'walk', request}) as Promise<WalkResult>,
      finish: () => {
        job.finished = true
        this.dropQueued(job, new SearchJobFinishedError('search finished'))
        this.settleIfDone(job)
      },
    }
  }

  /**
   * Starts PRESTARTED_WORKERS workers (at most `size`) ahead of the first search, so that search
   * does not wait for a worker to load. They wait idle and unref'd, keeping nothing alive. Does
   * nothing when a worker is already running or the pool is closed.
   */
  prestart(): void {
    if (this.closed || this.slots.length > 0) return
    for (let i = 0; i < Math.min(this.size, PRESTARTED_WORKERS); i++) this.startWorker()
  }

  /**
   * Runs `work` while the pool grows to PRESTARTED_WORKERS workers only (more while batches are
   * stalled, as ever): its tasks, and those of any search meanwhile, wait for those. The search
   * warm-up runs this way, so that it warms the prestarted worker and leaves the pool that small.
   */
  async withoutGrowth<T>(work: () => Promise<T>): Promise<T> {
    this.growthHeld++
    try {
      return await work()
    } finally {
      this.growthHeld--
      this.pump()
    }
  }

  /** Terminates every worker and fails whatever is queued or running. Idempotent. */
  async close(): Promise<void> {
    if (this.closed) return
    this.closed = true
    const closing = new DispatchFailedError('Search stopped: the server is shutting down.')
    for (const job of this.jobs) this.fail(job, closing)
    clearTimeout(this.stallTimer)
    clearTimeout(this.startPauseTimer)
    clearTimeout(this.growTimer)
    const slots = this.slots.splice(0)
    await Promise.all(slots.map((slot) => slot.worker.terminate().catch(() => undefined)))
  }

  private enqueue(job: JobState, work: WorkerWork): Promise<ScanResult | WalkResult> {
    return new Promise((resolve, reject) => {
      if (job.failure) return reject(job.failure)
      if (job.finished) return reject(new SearchJobFinishedError('search finished'))
      this.queue.push({id: this.nextTaskId++, job, work, queuedAt: performance.now(), resolve, reject})
      this.pump()
    })
  }

  /**
   * Hands queued tasks to idle workers, starting workers up to `size` (more while batches are
   * stalled). A worker that is still loading takes a task only while no worker has loaded (a cold
   * pool): otherwise the task waits for whichever is free first, the loaded workers as they answer
   * or the new one once it has loaded (its `online` event pumps), since loading a worker takes
   * longer than most searches.
   */
  private pump(): void {
    while (this.queue.length > 0 && !this.closed) {
      // A job with nothing running goes first; otherwise first come, first served.
      const fresh = this.queue.findIndex((queued) => queued.job.running.size === 0)
      const anyOnline = this.slots.some((candidate) => candidate.isOnline)
      let slot = this.slots.find((candidate) => !candidate.task && (candidate.isOnline || !anyOnline))
      if (!slot) {
        // Beyond its size the pool takes only work of a job with nothing running: a search whose
        // batches stall gets no extra worker, the searches waiting behind it do.
        const mayGrow = this.slots.length < this.baseSize() || (fresh !== -1 && this.slots.length < this.capacity())
        if (!mayGrow) {
          if (fresh !== -1) this.pumpWhenStalled()
          return
        }
        // A worker loading for the queue already takes the next task once loaded.
        if (this.slots.some((candidate) => !candidate.isOnline && !candidate.task)) return
        if (performance.now() < this.startPausedUntil) return this.pumpAfterStartPause()
        if (anyOnline && this.pumpWhenWaitedToGrow()) return
        slot = this.startWorker()
        if (anyOnline) return
      } else if (this.slots.length > this.size && fresh === -1) {
        return
      }
      const task = this.queue.splice(fresh === -1 ? 0 : fresh, 1)[0] as Task
      task.startedAt = performance.now()
      slot.task = task
      task.job.running.add(task)
      slot.worker.ref()
      slot.worker.postMessage({id: task.id, ...task.work} satisfies WorkerTask)
    }
  }

  /** Workers the pool grows to for queued work: `size`, or PRESTARTED_WORKERS while `withoutGrowth` runs. */
  private baseSize(): number {
    return this.growthHeld > 0 ? Math.min(this.size, PRESTARTED_WORKERS) : this.size
  }

  /** Workers the pool may have now: `baseSize()`, plus one per stalled batch up to MAX_EXTRA_WORKERS. */
  private capacity(): number {
    const now = performance.now()
    const stalled = this.slots.filter((slot) => slot.task?.startedAt !== undefined && now - slot.task.startedAt >= STALLED_BATCH_MS).length
    return this.baseSize() + Math.min(stalled, MAX_EXTRA_WORKERS)
  }

  /** Plans a pump for when the oldest running batch counts as stalled (work is waiting). */
  private pumpWhenStalled(): void {
    if (this.stallTimer || this.slots.length >= this.size + MAX_EXTRA_WORKERS) return
    const oldest = Math.min(...this.slots.map((slot) => slot.task?.startedAt ?? Number.POSITIVE_INFINITY))
    if (!Number.isFinite(oldest)) return
    const wait = Math.max(0, oldest + STALLED_BATCH_MS - performance.now()) + 1
    this.stallTimer = setTimeout(() => {
      this.stallTimer = undefined
      this.pump()
    }, wait).unref()
  }

  private startWorker(): Slot {
    // execArgv: [] keeps the parent's loaders and preloads (--import, --require) out of the worker.
    const worker = new Worker(this.source, {eval: true, execArgv: []})
    const slot: Slot = {worker, task: undefined, isOnline: false, answered: 0}
    worker.once('online', () => {
      slot.isOnline = true
      this.pump()
    })
    worker.unref()
    worker.on('message', (reply: WorkerReply) => this.onReply(slot, reply))
    worker.on('error', (error) => this.onWorkerLost(slot, error))
    worker.on('exit', (code) => this.onWorkerLost(slot, new Error(`exit code ${code}`)))
    this.slots.push(slot)
    this.workersStarted++
    return slot
  }

  private onReply(slot: Slot, reply: WorkerReply): void {
    const task = slot.task
    if (!task || task.id !== reply.id) return
    slot.task = undefined
    slot.answered++
    slot.worker.unref()
    task.job.running.delete(task)
    if (this.slots.length > this.size && !this.queue.some((queued) => queued.job.running.size === 0)) {
      // A worker started beyond the size while batches were stalled, with no waiting search to take.
      this.slots.splice(this.slots.indexOf(slot), 1)
      void slot.worker.terminate().catch(() => undefined)
    }
    if (reply.ok) task.resolve(reply.result)
    else task.reject(new DispatchFailedError(`A search worker failed: ${reply.error}. Retry the search.`))
    this.settleIfDone(task.job)
    this.pump()
  }

  private onWorkerLost(slot: Slot, error: Error): void {
    const index = this.slots.indexOf(slot)
    if (index === -1) return // terminated on purpose
    this.slots.splice(index, 1)
    const task = slot.task
    if (task) {
      task.job.running.delete(task)
      if (slot.isOnline) {
        task.reject(new DispatchFailedError(`A search worker stopped unexpectedly (${error.message}). Retry the search.`))
      } else if ((task.startFailures = (task.startFailures ?? 0) + 1) <= WORKER_START_RETRIES) {
        // The worker never started (Worker initialization failure: EMFILE): its batch waits for
        // another, started after a pause, so that a shortage of a moment costs no answer.
        task.startedAt = undefined
        this.queue.unshift(task)
        this.startPausedUntil = performance.now() + WORKER_START_RETRY_MS * task.startFailures
      } else {
        task.reject(workerStartFailure(error))
      }
      this.settleIfDone(task.job)
    } else if (!slot.isOnline) {
      // A worker started for the queue could not start: the next waits as after a failed start.
      this.startPausedUntil = performance.now() + WORKER_START_RETRY_MS
    }
    this.pump()
  }

  /**
   * Plans a pump for when the head of the queue will have waited WORKER_GROW_AFTER_MS; false
   * when it has already, and a worker may start now.
   */
  private pumpWhenWaitedToGrow(): boolean {
    // The head of the queue is its oldest batch (a batch queued again after a failed start goes back to the head).
    const wait = (this.queue[0] as Task).queuedAt + WORKER_GROW_AFTER_MS - performance.now()
    if (wait <= 0) return false
    this.growTimer ??= setTimeout(() => {
      this.growTimer = undefined
      this.pump()
    }, wait + 1).unref()
    return true
  }

  /** Plans a pump for when workers may start again (see startPausedUntil). */
  private pumpAfterStartPause(): void {
    if (this.startPauseTimer) return
    this.startPauseTimer = setTimeout(() => {
      this.startPauseTimer = undefined
      this.pump()
    }, Math.max(0, this.startPausedUntil - performance.now()) + 1).unref()
  }

  /** Fails a job: drops its queued tasks and terminates the workers running its tasks. */
  private fail(job: JobState, error: Error): void {
    if (job.failure) return
    job.failure = error
    this.dropQueued(job, error)
    for (const slot of [...this.slots]) {
      const task = slot.task
      if (task?.job !== job) continue
      this.slots.splice(this.slots.indexOf(slot), 1)
      if (error instanceof LimitReachedError) this.terminatedForTimeLimit++
      void slot.worker.terminate().catch(() => undefined)
      job.running.delete(task)
      task.reject(error)
    }
    this.settleIfDone(job)
    this.pump()
  }

  private dropQueued(job: JobState, error: Error): void {
    for (let index = this.queue.length - 1; index >= 0; index--) {
      const task = this.queue[index] as Task
      if (task.job !== job) continue
      this.queue.splice(index, 1)
      task.reject(error)
    }
  }

  /** Forgets a job once it can create no more work: failed, or finished with nothing running. */
  private settleIfDone(job: JobState): void {
    if (!job.failure && !(job.finished && job.running.size === 0)) return
    clearTimeout(job.timer)
    job.stopListening()
    this.jobs.delete(job)
  }
}

/**
 * The error of a batch whose worker could not start WORKER_START_RETRIES + 1 times: a descriptor
 * shortage reads as every other one does; any other cause, without the system's code.
 */
function workerStartFailure(error: Error): Error {
  const code = /\b(E[A-Z]{3,})\b/.exec(error.message)?.[1]
  if (isDescriptorShortage(code)) return new LimitReachedError(tooManyFilesOpen('start a search worker'))
  if (code === 'ENOMEM' || code === 'EAGAIN') return new LimitReachedError('The server is out of memory or threads to start a search worker now. Retry in a moment.')
  return new DispatchFailedError('A search worker could not be started. Retry the search in a moment.')
}
