import {TaskStore} from '../../mcp/tasks/task-store.js'
import {runtimeService} from '../runtime.js'
import type {ExecConnection, ExecRuntime} from '../context.js'

/** The key of the runtime's TaskStore among its services. */
export const TASK_STORE_SERVICE = 'tasks'

const attached = new WeakSet<ExecConnection>()

/**
 * The runtime's tasks (DESIGN §4.11; created on first use, cancelled with the runtime), with the
 * tasks of `connection` cancelled and dropped when it closes. Stateless requests (no connection
 * id) share one owner, where the random task id is the capability.
 */
export function taskStoreFor(runtime: ExecRuntime, connection: ExecConnection): TaskStore {
  const store = runtimeService(runtime, TASK_STORE_SERVICE, () => new TaskStore())
  const owner = connection.id
  if (owner !== undefined && !attached.has(connection)) {
    attached.add(connection)
    connection.onClose(() => store.closeOwner(owner))
  }
  return store
}
