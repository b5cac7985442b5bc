import path from 'node:path'
import {fileURLToPath} from 'node:url'

import {BadInputError} from '../../errors.js'
import type {SandboxMode, SandboxPolicy} from './sandbox-policy.js'

/**
 * Codex's sandbox for one tool call, and the ak sandbox that follows it (issue 39, DESIGN §4.8).
 *
 * A Codex MCP client sends its turn's sandbox to a server that declares the experimental
 * capability `codex/sandbox-state-meta`, in every `tools/call` request's
 * `_meta["codex/sandbox-state-meta"]`. The shape, from codex-rs (`SandboxState`, serde camelCase):
 * `{sandboxPolicy, sandboxCwd, permissionProfile?, codexLinuxSandboxExe?, useLegacyLandlock?}`,
 * where `sandboxPolicy` is Codex's `SandboxPolicy` (tagged by `type`, kebab-case:
 * `danger-full-access`, `read-only`, `external-sandbox` {network_access},
 * `workspace-write` {writable_roots, network_access, exclude_tmpdir_env_var, exclude_slash_tmp}).
 * `sandboxPolicy` is read; `permissionProfile`, the newer form of the same choice, is not needed.
 */

/** The experimental capability, and the `_meta` key, Codex uses for its sandbox state. */
export const CODEX_SANDBOX_STATE_META = 'codex/sandbox-state-meta'

/** What Codex asks for one call, in ak's terms. */
export interface CodexSandboxRequest {
  /** Codex's mode; `off` for `danger-full-access` and `external-sandbox` (nothing asked of ak). */
  mode: SandboxMode
  /** Whether Codex lets commands use the network. */
  network: boolean
  /** Absolute paths Codex lets commands write under `workspace-write`: `sandboxCwd` and its `writable_roots`. */
  writableRoots: string[]
}

/** The sandbox one command runs in: the mode, the network, and (under `workspace-write`) where it may write. */
export interface CallSandboxPolicy extends SandboxPolicy {
  /** Real absolute paths inside the workspace the command may write; only under `workspace-write`. */
  writableRoots: string[]
}

/** How strict each mode is: a higher rank allows less. */
const MODE_RANK: Record<SandboxMode, number> = {off: 0, 'workspace-write': 1, 'read-only': 2}

/** A path Codex sent: an absolute path or a `file:` URL. */
function codexPath(value: unknown, field: string): string {
  if (typeof value !== 'string' || value === '') throw malformed(`${field} must be a path`)
  const text = value.startsWith('file:') ? fileURLToPath(value) : value
  if (!path.isAbsolute(text)) throw malformed(`${field} must be an absolute path`)
  return path.resolve(text)
}

function malformed(what: string): BadInputError {
  return new BadInputError(
    `The Codex sandbox state in _meta["${CODEX_SANDBOX_STATE_META}"] is malformed: ${what}. ` +
      'The command was not run; update Codex, or leave the metadata out to use the server\'s sandbox.',
  )
}

/**
 * Reads Codex's sandbox state from a `tools/call` request's `_meta`.
 * @param meta the request's `_meta` object (or undefined)
 * @returns undefined when the call carries no Codex sandbox state (the server's flags apply)
 * @throws BadInputError when the state is present but not understood (an unknown policy type
 *   or a missing field): the call is refused rather than run with less than Codex asked.
 */
export function parseCodexSandboxState(meta: Record<string, unknown> | undefined): CodexSandboxRequest | undefined {
  const state = meta?.[CODEX_SANDBOX_STATE_META]
  if (state === undefined) return undefined
  if (typeof state !== 'object' || state === null) throw malformed('it must be an object')
  const {sandboxPolicy, sandboxCwd} = state as {sandboxPolicy?: unknown; sandboxCwd?: unknown}
  if (typeof sandboxPolicy !== 'object' || sandboxPolicy === null) throw malformed('sandboxPolicy is missing')
  const policy = sandboxPolicy as {type?: unknown; network_access?: unknown; writable_roots?: unknown}
  switch (policy.type) {
    case 'danger-full-access':
    case 'external-sandbox': {
      return {mode: 'off', network: true, writableRoots: []}
    }
    case 'read-only': {
      return {mode: 'read-only', network: policy.network_access === true, writableRoots: []}
    }
    case 'workspace-write': {
      const roots = policy.writable_roots ?? []
      if (!Array.isArray(roots)) throw malformed('sandboxPolicy.writable_roots must be a list of paths')
      const cwd = codexPath(sandboxCwd, 'sandboxCwd')
      return {
        mode: 'workspace-write',
        network: policy.network_access === true,
        writableRoots: [cwd, ...roots.map((root, index) => codexPath(root, `sandboxPolicy.writable_roots[${index}]`))],
      }
    }
    default: {
      throw malformed(`sandboxPolicy.type ${JSON.stringify(policy.type)} is not one ak knows (read-only, workspace-write, danger-full-access, external-sandbox)`)
    }
  }
}

/** Whether `inner` is `outer` or lies inside it (lexically, with a separator boundary). */
function isWithin(outer: string, inner: string): boolean {
  const relative = path.relative(outer, inner)
  return relative === '' || (!relative.startsWith('..') && !path.isAbsolute(relative))
}

/**
 * The sandbox one command runs in: never weaker than the server's flags, nor than what Codex
 * reports for the call. The stricter mode wins; the network is allowed only if both allow it;
 * under `workspace-write` the command writes only in the workspace and, when Codex sent its
 * state, only in Codex's writable roots that lie inside the workspace (a root around the
 * workspace narrows to the workspace). When none of Codex's roots meets the workspace the
 * command runs read-only.
 * @param server the server's own policy (`--sandbox`, `--sandbox-network`)
 * @param codex what Codex asked for the call (parseCodexSandboxState), or undefined
 * @param workspace the workspace's real absolute path
 */
export function sandboxForCall(server: SandboxPolicy, codex: CodexSandboxRequest | undefined, workspace: string): CallSandboxPolicy {
  if (!codex) return {...server, writableRoots: server.mode === 'workspace-write' ? [workspace] : []}
  const mode = MODE_RANK[codex.mode] > MODE_RANK[server.mode] ? codex.mode : server.mode
  if (mode === 'off') return {mode, network: true, writableRoots: []}
  const network = (server.mode === 'off' || server.network) && (codex.mode === 'off' || codex.network)
  if (mode === 'read-only') return {mode, network, writableRoots: []}
  if (codex.mode === 'off') return {mode, network, writableRoots: [workspace]}
  const roots = new Set<string>()
  for (const root of codex.writableRoots) {
    if (isWithin(workspace, root)) roots.add(root)
    else if (isWithin(root, workspace)) roots.add(workspace)
  }
  if (roots.size === 0) return {mode: 'read-only', network, writableRoots: []}
  return {mode, network, writableRoots: [...roots].sort()}
}
