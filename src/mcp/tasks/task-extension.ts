import {CLIENT_CAPABILITIES_META_KEY, MissingRequiredClientCapabilityError} from '@modelcontextprotocol/server'

/**
 * The MCP Tasks extension's identifier (modelcontextprotocol/ext-tasks, specification/2026-07-28/tasks.md,
 * "Extension Identifier"): a client declares it under `capabilities.extensions`, per request in
 * 2026-07-28 (`_meta["io.modelcontextprotocol/clientCapabilities"]`) or at `initialize` in the
 * 2025 revisions, and a server offers it back under its own `capabilities.extensions`.
 */
export const TASKS_EXTENSION_ID = 'io.modelcontextprotocol/tasks'

/** Whether a `capabilities` object (a client's, as `initialize` or a request's `_meta` carries it) declares the Tasks extension. */
export function capabilitiesDeclareTasks(capabilities: unknown): boolean {
  if (typeof capabilities !== 'object' || capabilities === null) return false
  const extensions = (capabilities as {extensions?: unknown}).extensions
  return typeof extensions === 'object' && extensions !== null && Object.hasOwn(extensions, TASKS_EXTENSION_ID)
}

/**
 * Whether one request comes from a client that declared the Tasks extension: in its own `_meta`
 * (2026-07-28, where the SDK lifts it into `envelope`; accepted on 2025-era requests too, as the
 * extension's per-request opt-in), or at `initialize` (`connectionCapabilities`, 2025 revisions).
 * The extension forbids a task for a request that did not declare it, "regardless of prior
 * declarations" in the 2026-07-28 revision, which has no `initialize`.
 */
export function requestDeclaresTasks(request: {meta?: unknown; envelope?: unknown; connectionCapabilities?: unknown}): boolean {
  const fromMeta = (holder: unknown) =>
    typeof holder === 'object' && holder !== null && capabilitiesDeclareTasks((holder as Record<string, unknown>)[CLIENT_CAPABILITIES_META_KEY])
  return fromMeta(request.envelope) || fromMeta(request.meta) || capabilitiesDeclareTasks(request.connectionCapabilities)
}

/**
 * The JSON-RPC error for `tasks/get`, `tasks/update` or `tasks/cancel` from a client that did
 * not declare the extension: -32021 (Missing Required Client Capability) naming it, as the
 * extension requires ("Error Handling").
 */
export function tasksNotDeclaredError(method: string): MissingRequiredClientCapabilityError {
  return new MissingRequiredClientCapabilityError(
    {requiredCapabilities: {extensions: {[TASKS_EXTENSION_ID]: {}}}},
    `${method} needs the MCP Tasks extension: declare "${TASKS_EXTENSION_ID}" under capabilities.extensions ` +
      `(in the request's _meta clientCapabilities, or at initialize).`,
  )
}
