import {randomBytes} from 'node:crypto'

import {ProtocolError, ProtocolErrorCode} from '@modelcontextprotocol/server'

import {
  ENDED_TASK_KEPT_MS,
  MAX_ENDED_TASK_BYTES,
  MAX_ENDED_TASKS,
  MAX_RUNNING_TASKS,
  TASK_IDLE_LIMIT_MS,
  TASK_POLL_INTERVAL_MS,
  TASK_STATUS_MESSAGE_CHARS,
  TASK_STATUS_NOTIFICATION_INTERVAL_MS,
} from './limits.js'

/** A task's status (the extension's `Task.status`); the last three are terminal. */
export type TaskStatus = 'working' | 'input_required' | 'completed' | 'failed' | 'cancelled'

/** What a task runs: handed over by the tool call that became the task. */
export interface TaskWork {
  /**
   * Settles once the work is over: resolves with the call's result (a CallToolResult; an
   * `isError` one too: the task then completes, as the extension says of tool errors), or rejects
   * with a ProtocolError, which the task carries as its JSON-RPC `error` (status `failed`).
   */
  readonly outcome: Promise<Record<string, unknown>>
  /** Stops the work (tasks/cancel, the idle limit, its connection closing); settles once it is stopped. Never rejects. */
  cancel(): Promise<void>
  /** A short message on the work's progress now (a command's last output line); read on each look at the task. */
  statusMessage?(): string | undefined
  /**
   * Requests the work waits on its client for (the extension's `inputRequests`, keyed by ids
   * unique within the task): the task is `input_required` while there are some.
   */
  inputRequests?(): Record<string, unknown> | undefined
  /** Takes answers to inputRequests (`tasks/update`'s `inputResponses`); keys not outstanding are ignored. */
  update?(inputResponses: Record<string, unknown>): void
  /** Called whenever its client asks about the task (tasks/get). */
  onPoll?(): void
}

/**
 * A task as `tasks/get` answers it and notifications carry it (the extension's `DetailedTask`):
 * the `Task` fields, plus `result` once completed, `error` once failed, `inputRequests` while
 * input is required.
 */
export interface DetailedTask {
  taskId: string
  status: TaskStatus
  statusMessage?: string
  /** ISO 8601. */
  createdAt: string
  /** ISO 8601. */
  lastUpdatedAt: string
  /** From creation, in ms; null while the task runs (it lives as long as its work does). */
  ttlMs: number | null
  pollIntervalMs: number
  result?: Record<string, unknown>
  error?: {code: number; message: string; data?: unknown}
  inputRequests?: Record<string, unknown>
}

/** Settings of a TaskStore; the defaults are the limits of limits.ts. Tests shorten them. */
export interface TaskStoreOptions {
  pollIntervalMs?: number
  endedKeptMs?: number
  maxEnded?: number
  maxEndedBytes?: number
  maxRunning?: number
  idleLimitMs?: number
  notificationIntervalMs?: number
}

/** Called with a task's state when it changes, for its owner's notifications. */
export type TaskListener = (task: DetailedTask) => void

interface TaskEntry {
  id: string
  owner: string | undefined
  work: TaskWork
  createdAt: number
  lastUpdatedAt: number
  status: TaskStatus
  /** The last status message shown, to tell when it changes. */
  shownMessage: string | undefined
  endMessage?: string
  result?: Record<string, unknown>
  error?: DetailedTask['error']
  bytes: number
  endedAt?: number
  isCancelling: boolean
  timers: NodeJS.Timeout[]
  idleTimer?: NodeJS.Timeout
}

/**
 * The tasks of one server process, shared by all its connections (stateless requests share one
 * owner, `undefined`, where the random task id is the capability), after the MCP Tasks extension
 * (modelcontextprotocol/ext-tasks, specification/2026-07-28/tasks.md):
 * - a task belongs to the owner that started it; any other owner is told it does not exist;
 * - a running task nobody asks about for `idleLimitMs` is cancelled;
 * - an ended task is kept `endedKeptMs` for its answer to be fetched (its `ttlMs` says so), and
 *   at most `maxEnded` of them, holding at most `maxEndedBytes` of answers, are kept: past either,
 *   the one that ended first is dropped;
 * - at most `maxRunning` tasks run at once (`canStart`);
 * - closing an owner cancels its running tasks and drops its ended ones.
 */
export class TaskStore {
  private readonly tasks = new Map<string, TaskEntry>()
  /** Ended tasks, in the order they ended. */
  private readonly ended = new Set<TaskEntry>()
  private readonly listeners = new Map<string | undefined, Set<TaskListener>>()
  private readonly stopping = new Set<Promise<void>>()
  private endedBytes = 0
  private runningCount = 0
  private isClosed = false
  private readonly pollIntervalMs: number
  private readonly endedKeptMs: number
  private readonly maxEnded: number
  private readonly maxEndedBytes: number
  private readonly maxRunning: number
  private readonly idleLimitMs: number
  private readonly notificationIntervalMs: number

  constructor(options: TaskStoreOptions = {}) {
    this.pollIntervalMs = options.pollIntervalMs ?? TASK_POLL_INTERVAL_MS
    this.endedKeptMs = options.endedKeptMs ?? ENDED_TASK_KEPT_MS
    this.maxEnded = options.maxEnded ?? MAX_ENDED_TASKS
    this.maxEndedBytes = options.maxEndedBytes ?? MAX_ENDED_TASK_BYTES
    this.maxRunning = options.maxRunning ?? MAX_RUNNING_TASKS
    this.idleLimitMs = options.idleLimitMs ?? TASK_IDLE_LIMIT_MS
    this.notificationIntervalMs = options.notificationIntervalMs ?? TASK_STATUS_NOTIFICATION_INTERVAL_MS
  }

  /** Whether a new task may start now (fewer than `maxRunning` run and the store is open). */
  get canStart(): boolean {
    return !this.isClosed && this.runningCount < this.maxRunning
  }

  /** Tasks kept now, running and ended. */
  get size(): number {
    return this.tasks.size
  }

  /**
   * Starts a task for `owner` running `work`, and returns its first state (for the
   * CreateTaskResult): it can be looked up from now on, as the extension requires before the
   * result is sent.
   * @throws Error when `canStart` is false (the caller checks it first).
   */
  start(owner: string | undefined, work: TaskWork): DetailedTask {
    if (!this.canStart) throw new Error('TaskStore.start called while no task can start')
    let id = newTaskId()
    while (this.tasks.has(id)) id = newTaskId()
    const now = Date.now()
    const entry: TaskEntry = {
      id,
      owner,
      work,
      createdAt: now,
      lastUpdatedAt: now,
      status: 'working',
      shownMessage: undefined,
      bytes: 0,
      isCancelling: false,
      timers: [],
    }
    this.tasks.set(id, entry)
    this.runningCount++
    this.touch(entry)
    const notifier = setInterval(() => this.notifyIfChanged(entry), this.notificationIntervalMs)
    notifier.unref()
    entry.timers.push(notifier)
    work.outcome.then(
      (result) => this.end(entry, {result}),
      (error: unknown) => this.end(entry, {error}),
    )
    return this.detailed(entry)
  }

  /**
   * The task `taskId` of `owner`, as tasks/get answers it; counts as its client asking about it.
   * @throws ProtocolError -32602 (Invalid params) when `owner` has no such task, as the extension requires.
   */
  get(taskId: string, owner: string | undefined): DetailedTask {
    const entry = this.find(taskId, owner)
    if (entry.endedAt === undefined) {
      this.touch(entry)
      entry.work.onPoll?.()
    }
    return this.detailed(entry)
  }

  /**
   * Cancels the task `taskId` of `owner`: stops its work and, once stopped, settles it as
   * `cancelled`. A task that already ended stays as it ended (the call is acknowledged all the same).
   * @throws ProtocolError -32602 when `owner` has no such task.
   */
  async cancel(taskId: string, owner: string | undefined): Promise<void> {
    await this.stop(this.find(taskId, owner), 'Cancelled by its client (tasks/cancel).')
  }

  /**
   * Hands `inputResponses` to the task `taskId` of `owner` (tasks/update); the work ignores keys it is not waiting on.
   * @throws ProtocolError -32602 when `owner` has no such task.
   */
  update(taskId: string, owner: string | undefined, inputResponses: Record<string, unknown>): void {
    const entry = this.find(taskId, owner)
    if (entry.endedAt === undefined) entry.work.update?.(inputResponses)
  }

  /**
   * Sends `owner`'s task changes to `listener` (its status, its end, a new status message, at most
   * every `notificationIntervalMs` while it runs) until the returned function is called or the
   * owner is closed.
   */
  subscribe(owner: string | undefined, listener: TaskListener): () => void {
    let set = this.listeners.get(owner)
    if (!set) this.listeners.set(owner, (set = new Set()))
    set.add(listener)
    return () => set.delete(listener)
  }

  /** Cancels every running task of `owner`, drops its ended ones and its listeners. Runs when its connection closes. */
  async closeOwner(owner: string | undefined): Promise<void> {
    this.listeners.delete(owner)
    const entries = [...this.tasks.values()].filter((entry) => entry.owner === owner)
    await Promise.all(entries.map((entry) => this.stop(entry, 'Cancelled: its connection closed.')))
    for (const entry of entries) this.drop(entry)
  }

  /** Cancels every running task and refuses new ones. Idempotent. */
  async close(): Promise<void> {
    this.isClosed = true
    const owners = new Set([...this.tasks.values()].map((entry) => entry.owner))
    await Promise.all([...owners].map((owner) => this.closeOwner(owner)))
    await Promise.all([...this.stopping])
  }

  private find(taskId: string, owner: string | undefined): TaskEntry {
    const entry = typeof taskId === 'string' ? this.tasks.get(taskId) : undefined
    if (entry && entry.owner === owner) return entry
    throw new ProtocolError(
      ProtocolErrorCode.InvalidParams,
      `Failed to retrieve task: Task not found. No task "${String(taskId).slice(0, 64)}" is kept for this connection: ` +
        `a task id comes from the tools/call that started it, and an ended task is kept ${Math.round(this.endedKeptMs / 60_000)} minutes.`,
    )
  }

  private async stop(entry: TaskEntry, message: string): Promise<void> {
    if (entry.endedAt !== undefined) return
    if (!entry.isCancelling) {
      entry.isCancelling = true
      entry.endMessage = message
    }
    const stopping = entry.work.cancel().catch(() => undefined)
    this.stopping.add(stopping)
    try {
      await stopping
    } finally {
      this.stopping.delete(stopping)
    }
    // The work is stopped; a result it still delivers afterwards changes nothing.
    this.end(entry, {cancelled: true})
  }

  private end(entry: TaskEntry, how: {result?: Record<string, unknown>; error?: unknown; cancelled?: boolean}): void {
    if (entry.endedAt !== undefined) return
    const now = Date.now()
    entry.endedAt = now
    entry.lastUpdatedAt = now
    this.runningCount--
    for (const timer of entry.timers) clearInterval(timer)
    clearTimeout(entry.idleTimer)
    if (how.cancelled || entry.isCancelling) {
      entry.status = 'cancelled'
    } else if (how.result) {
      entry.status = 'completed'
      entry.result = how.result
    } else {
      entry.status = 'failed'
      entry.error = asJsonRpcError(how.error)
      entry.endMessage = entry.error.message
    }
    entry.bytes = Buffer.byteLength(JSON.stringify(entry.result ?? entry.error ?? {}))
    if (!this.tasks.has(entry.id)) return // dropped while it ran (its owner closed)
    this.ended.add(entry)
    this.endedBytes += entry.bytes
    const expiry = setTimeout(() => this.drop(entry), this.endedKeptMs)
    expiry.unref()
    entry.timers.push(expiry)
    while (this.ended.size > this.maxEnded || (this.endedBytes > this.maxEndedBytes && this.ended.size > 1)) {
      this.drop(this.ended.values().next().value!)
    }
    this.notify(entry)
  }

  private drop(entry: TaskEntry): void {
    if (this.tasks.get(entry.id) === entry) this.tasks.delete(entry.id)
    if (this.ended.delete(entry)) this.endedBytes -= entry.bytes
    for (const timer of entry.timers) clearTimeout(timer)
  }

  /** Restarts the idle clock of a running task. */
  private touch(entry: TaskEntry): void {
    clearTimeout(entry.idleTimer)
    entry.idleTimer = setTimeout(
      () =>
        void this.stop(
          entry,
          `Cancelled: nobody asked about this task (tasks/get) for ${Math.round(this.idleLimitMs / 60_000)} minutes.`,
        ),
      this.idleLimitMs,
    )
    entry.idleTimer.unref()
  }

  private detailed(entry: TaskEntry): DetailedTask {
    const running = entry.endedAt === undefined
    const message = running ? boundedStatusMessage(entry.work.statusMessage?.()) : entry.endMessage
    if (running && message !== entry.shownMessage) {
      entry.shownMessage = message
      entry.lastUpdatedAt = Date.now()
    }
    const inputRequests = running && !entry.isCancelling ? entry.work.inputRequests?.() : undefined
    const hasInput = inputRequests !== undefined && Object.keys(inputRequests).length > 0
    const status: TaskStatus = running ? (hasInput ? 'input_required' : 'working') : entry.status
    return {
      taskId: entry.id,
      status,
      ...(message === undefined ? {} : {statusMessage: message}),
      createdAt: new Date(entry.createdAt).toISOString(),
      lastUpdatedAt: new Date(entry.lastUpdatedAt).toISOString(),
      ttlMs: running ? null : entry.endedAt! - entry.createdAt + this.endedKeptMs,
      pollIntervalMs: this.pollIntervalMs,
      ...(entry.result ? {result: entry.result} : {}),
      ...(entry.error ? {error: entry.error} : {}),
      ...(hasInput ? {inputRequests} : {}),
    }
  }

  private notifyIfChanged(entry: TaskEntry): void {
    if (!this.listeners.get(entry.owner)?.size) return
    const before = entry.shownMessage
    const task = this.detailed(entry)
    if (task.statusMessage !== before) this.emit(entry.owner, task)
  }

  private notify(entry: TaskEntry): void {
    if (this.listeners.get(entry.owner)?.size) this.emit(entry.owner, this.detailed(entry))
  }

  private emit(owner: string | undefined, task: DetailedTask): void {
    for (const listener of this.listeners.get(owner) ?? []) {
      try {
        listener(task)
      } catch {
        // a listener's failure (a closed transport) is its own business
      }
    }
  }
}

/** A random task id: 128 bits, base64url (the extension: "sufficient entropy that a third party cannot ... guess them"). */
function newTaskId(): string {
  return randomBytes(16).toString('base64url')
}

/** `message` on one line, at most TASK_STATUS_MESSAGE_CHARS characters (keeping its end), or undefined when empty. */
export function boundedStatusMessage(message: string | undefined, maxChars = TASK_STATUS_MESSAGE_CHARS): string | undefined {
  if (message === undefined) return undefined
  // eslint-disable-next-line no-control-regex
  const line = message.replace(/[\u0000-\u001f\u007f]+/g, ' ').trim()
  if (line === '') return undefined
  const points = [...line]
  return points.length <= maxChars ? line : `…${points.slice(points.length - maxChars + 1).join('')}`
}

/** A work's failure as the JSON-RPC error a failed task carries. */
function asJsonRpcError(error: unknown): {code: number; message: string; data?: unknown} {
  if (error instanceof ProtocolError) return {code: error.code, message: error.message, ...(error.data === undefined ? {} : {data: error.data})}
  const message = error instanceof Error ? error.message : String(error)
  return {code: ProtocolErrorCode.InternalError, message: `Internal error: ${message}`}
}
