import {realpath} from 'node:fs/promises'
import path from 'node:path'
import {fileURLToPath} from 'node:url'

import {BadInputError} from '../../errors.js'
import type {SandboxMode, SandboxPolicy} from './sandbox-policy.js'

/**
 * Codex's sandbox for one tool call, and the ak sandbox that follows it (issue 39, DESIGN §4.8).
 *
 * A Codex MCP client sends its turn's sandbox to a server that declares the experimental
 * capability `codex/sandbox-state-meta`, in every `tools/call` request's
 * `_meta["codex/sandbox-state-meta"]` (without the capability it sends nothing). The object is
 * codex-rs's `SandboxState` (serde camelCase): `{permissionProfile, sandboxCwd,
 * codexLinuxSandboxExe, useLegacyLandlock, useMxc}` as Codex 0.171 sends it, where older
 * releases also (or only) sent `sandboxPolicy`.
 *
 * `permissionProfile` (codex-rs/protocol `PermissionProfile`, tagged by `type`, snake_case) is:
 * - `{type: "disabled"}`: no sandbox (`--dangerously-bypass-approvals-and-sandbox`,
 *   `-s danger-full-access`);
 * - `{type: "external", network}`: an outer sandbox, which encloses Codex and so ak too;
 * - `{type: "managed", network: "restricted"|"enabled", file_system}` with `file_system`
 *   `{type: "unrestricted"}` or `{type: "restricted", entries: [{path, access,
 *   missing_path_behavior?}]}`: `access` is `read`, `write` or `none`; `path` is
 *   `{type: "path", path}` or `{type: "special", value: {kind}}` with kind `root`, `minimal`,
 *   `current_working_directory`, `project_roots` {subpath?}, `tmpdir`, `slash_tmp` (or one a newer
 *   Codex adds). The more specific entry wins, so a `read` entry inside a `write` one is a
 *   read-only carve-out (Codex 0.171 makes `.git`, `.agents`, `.codex`, `.aws` of each writable
 *   root read-only, `missing_path_behavior: "skip"`).
 *
 * `sandboxPolicy` (the older `SandboxPolicy`, tagged by `type`, kebab-case) is `danger-full-access`,
 * `read-only`, `external-sandbox` {network_access} or `workspace-write` {writable_roots,
 * network_access}; it is read only when `permissionProfile` is absent.
 */

/** The experimental capability, and the `_meta` key, Codex uses for its sandbox state. */
export const CODEX_SANDBOX_STATE_META = 'codex/sandbox-state-meta'

/** A path Codex keeps read-only inside one of its writable roots. */
export interface CodexReadOnlyPath {
  /** Absolute path. */
  path: string
  /** Codex's `missing_path_behavior: "skip"`: nothing to protect when the path does not exist. */
  skipIfMissing: boolean
}

/** What Codex asks for one call, in ak's terms. */
export interface CodexSandboxRequest {
  /** Codex's mode; `off` when Codex runs without a sandbox or inside an outer one. */
  mode: SandboxMode
  /** Whether Codex lets commands use the network. */
  network: boolean
  /** Absolute paths Codex lets commands write under `workspace-write` (not its temporary folders). */
  writableRoots: string[]
  /** Paths inside the writable roots that Codex keeps read-only. */
  readOnlyPaths: CodexReadOnlyPath[]
}

/** The sandbox one command runs in: the mode, the network, and (under `workspace-write`) where it may write. */
export interface CallSandboxPolicy extends SandboxPolicy {
  /** Real absolute paths inside the workspace the command may write; only under `workspace-write`. */
  writableRoots: string[]
  /** Real absolute paths inside those roots the command may not write; only under `workspace-write`. */
  readOnlyPaths: string[]
}

/** How strict each mode is: a higher rank allows less. */
const MODE_RANK: Record<SandboxMode, number> = {off: 0, 'workspace-write': 1, 'read-only': 2}

/** What the error says to do, whatever was wrong. */
const MALFORMED_ADVICE =
  'The command was not run. Update ak, or run Codex with a sandbox mode ak knows (-s read-only, -s workspace-write, ' +
  'or --dangerously-bypass-approvals-and-sandbox).'

function malformed(what: string): BadInputError {
  return new BadInputError(`Codex's sandbox state (_meta["${CODEX_SANDBOX_STATE_META}"]) is not one ak understands: ${what}. ${MALFORMED_ADVICE}`)
}

function unsupported(what: string, fix: string): BadInputError {
  return new BadInputError(`Codex's sandbox for this call ${what}, which ak's sandbox cannot do, so the command was not run. ${fix}`)
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value)
}

/** A path Codex sent: an absolute path or a `file:` URL. */
function codexPath(value: unknown, field: string): string {
  if (typeof value !== 'string' || value === '') throw malformed(`${field} must be a path`)
  let text = value
  if (value.startsWith('file:')) {
    try {
      text = fileURLToPath(value)
    } catch {
      throw malformed(`${field} must be a file: URL of a local path`)
    }
  }
  if (!path.isAbsolute(text)) throw malformed(`${field} must be an absolute path`)
  return path.resolve(text)
}

/**
 * Reads Codex's sandbox state from a `tools/call` request's `_meta`: `permissionProfile` when
 * present (what Codex 0.171 sends), else the older `sandboxPolicy`.
 * @param meta the request's `_meta` object (or undefined)
 * @returns undefined when the call carries no Codex sandbox state (the server's flags apply)
 * @throws BadInputError when the state is present but not understood (an unknown type, a missing
 *   field), or asks for what ak's sandbox cannot do (confined reads, paths hidden from reading):
 *   the call is refused rather than run with less than Codex asked, and the message says why.
 */
export function parseCodexSandboxState(meta: Readonly<Record<string, unknown>> | undefined): CodexSandboxRequest | undefined {
  const state = meta?.[CODEX_SANDBOX_STATE_META]
  if (state === undefined) return undefined
  if (!isObject(state)) throw malformed('it must be an object')
  const cwd = codexPath(state.sandboxCwd, 'sandboxCwd')
  if (state.permissionProfile !== undefined && state.permissionProfile !== null) return readPermissionProfile(state.permissionProfile, cwd)
  if (state.sandboxPolicy !== undefined && state.sandboxPolicy !== null) return readSandboxPolicy(state.sandboxPolicy, cwd)
  throw malformed('it has neither permissionProfile nor sandboxPolicy')
}

/** Codex's `NetworkSandboxPolicy`: `enabled` or `restricted`. */
function readNetwork(value: unknown, field: string): boolean {
  if (value === 'enabled') return true
  if (value === 'restricted') return false
  throw malformed(`${field} ${JSON.stringify(value)} is neither "enabled" nor "restricted"`)
}

function readPermissionProfile(profile: unknown, cwd: string): CodexSandboxRequest {
  if (!isObject(profile)) throw malformed('permissionProfile must be an object')
  switch (profile.type) {
    case 'disabled': {
      return {mode: 'off', network: true, writableRoots: [], readOnlyPaths: []}
    }
    case 'external': {
      // The outer sandbox encloses Codex, and so the server Codex started and its commands.
      return {mode: 'off', network: readNetwork(profile.network, 'permissionProfile.network'), writableRoots: [], readOnlyPaths: []}
    }
    case 'managed': {
      const network = readNetwork(profile.network, 'permissionProfile.network')
      const fileSystem = profile.file_system
      if (!isObject(fileSystem)) throw malformed('permissionProfile.file_system must be an object')
      if (fileSystem.type === 'unrestricted') {
        // Writes anywhere: with the network the same as no sandbox; without it, ak's sandbox
        // is the only way to cut the network, and it confines writes to the workspace.
        return network
          ? {mode: 'off', network, writableRoots: [], readOnlyPaths: []}
          : {mode: 'workspace-write', network, writableRoots: ['/'], readOnlyPaths: []}
      }
      if (fileSystem.type !== 'restricted') {
        throw malformed(`permissionProfile.file_system.type ${JSON.stringify(fileSystem.type)} is not one ak knows (restricted, unrestricted)`)
      }
      return readEntries(fileSystem.entries, network, cwd)
    }
    default: {
      throw malformed(`permissionProfile.type ${JSON.stringify(profile.type)} is not one ak knows (managed, disabled, external)`)
    }
  }
}

/** Where a special path of Codex lies; `tmp` for Codex's temporary folders (ak gives commands a private /tmp). */
type SpecialPlace = string | 'tmp' | 'unknown'

function specialPlace(value: unknown, cwd: string, field: string): SpecialPlace {
  if (!isObject(value) || typeof value.kind !== 'string') throw malformed(`${field}.value must name a kind`)
  switch (value.kind) {
    case 'root': {
      return '/'
    }
    case 'current_working_directory': {
      return cwd
    }
    case 'project_roots': {
      // The project roots of a `codex exec` are its folder: never wider than what Codex named.
      if (value.subpath === undefined || value.subpath === null) return cwd
      if (typeof value.subpath !== 'string' || path.isAbsolute(value.subpath)) throw malformed(`${field}.value.subpath must be a relative path`)
      return path.resolve(cwd, value.subpath)
    }
    case 'tmpdir':
    case 'slash_tmp': {
      return 'tmp'
    }
    default: {
      // `minimal`, `unknown` and kinds a newer Codex adds: a place ak cannot locate.
      return 'unknown'
    }
  }
}

const ACCESS_MODES = ['read', 'write', 'none'] as const
type AccessMode = (typeof ACCESS_MODES)[number]

/** Whether `inner` is `outer` or lies inside it (lexically, with a separator boundary). */
function isWithin(outer: string, inner: string): boolean {
  const relative = path.relative(outer, inner)
  return relative === '' || (!relative.startsWith('..') && !path.isAbsolute(relative))
}

function readEntries(entries: unknown, network: boolean, cwd: string): CodexSandboxRequest {
  if (!Array.isArray(entries)) throw malformed('permissionProfile.file_system.entries must be a list')
  let readsEverywhere = false
  const writable: string[] = []
  const readOnly: CodexReadOnlyPath[] = []
  entries.forEach((entry: unknown, index) => {
    const field = `permissionProfile.file_system.entries[${index}]`
    if (!isObject(entry) || !isObject(entry.path)) throw malformed(`${field} must have a path`)
    if (!(ACCESS_MODES as readonly unknown[]).includes(entry.access)) {
      throw malformed(`${field}.access ${JSON.stringify(entry.access)} is not one ak knows (read, write, none)`)
    }
    const access = entry.access as AccessMode
    const place: SpecialPlace =
      entry.path.type === 'path'
        ? codexPath(entry.path.path, `${field}.path.path`)
        : entry.path.type === 'special'
          ? specialPlace(entry.path.value, cwd, `${field}.path`)
          : (() => {
              throw malformed(`${field}.path.type ${JSON.stringify(entry.path.type)} is not one ak knows (path, special)`)
            })()
    if (access === 'none') {
      throw unsupported(
        'hides a path from reading (an entry with access "none")',
        'ak\'s sandbox confines writes and the network, not reads. Remove the "none" entry from Codex\'s permission profile to run commands through ak.',
      )
    }
    if (place === '/' && (access === 'read' || access === 'write')) readsEverywhere = true
    if (place === 'tmp' || place === 'unknown') return
    if (access === 'write') writable.push(place)
    else readOnly.push({path: place, skipIfMissing: entry.missing_path_behavior === 'skip'})
  })
  if (!readsEverywhere) {
    throw unsupported(
      'limits what commands may read (no entry gives the root ":root" read access)',
      'ak\'s sandbox confines writes and the network, not reads. Give the root read access in Codex\'s permission profile to run commands through ak.',
    )
  }
  // A read entry matters only as a carve-out of a wider writable root.
  const carveOuts = readOnly.filter((entry) => writable.some((root) => root !== entry.path && isWithin(root, entry.path)))
  if (writable.length === 0) return {mode: 'read-only', network, writableRoots: [], readOnlyPaths: []}
  return {mode: 'workspace-write', network, writableRoots: writable, readOnlyPaths: carveOuts}
}

/** Codex's older `SandboxPolicy` (tagged by `type`, kebab-case), sent before `permissionProfile`. */
function readSandboxPolicy(policy: unknown, cwd: string): CodexSandboxRequest {
  if (!isObject(policy)) throw malformed('sandboxPolicy must be an object')
  switch (policy.type) {
    case 'danger-full-access':
    case 'external-sandbox': {
      return {mode: 'off', network: true, writableRoots: [], readOnlyPaths: []}
    }
    case 'read-only': {
      return {mode: 'read-only', network: policy.network_access === true, writableRoots: [], readOnlyPaths: []}
    }
    case 'workspace-write': {
      const roots = policy.writable_roots ?? []
      if (!Array.isArray(roots)) throw malformed('sandboxPolicy.writable_roots must be a list of paths')
      return {
        mode: 'workspace-write',
        network: policy.network_access === true,
        writableRoots: [cwd, ...roots.map((root, index) => codexPath(root, `sandboxPolicy.writable_roots[${index}]`))],
        readOnlyPaths: [],
      }
    }
    default: {
      throw malformed(`sandboxPolicy.type ${JSON.stringify(policy.type)} is not one ak knows (read-only, workspace-write, danger-full-access, external-sandbox)`)
    }
  }
}

/**
 * Codex's request with its paths made real (symbolic links resolved), so that they compare with
 * the workspace's real path: a writable root that does not exist is dropped (nothing to write
 * in), a read-only path that does not exist is dropped when Codex says to skip it.
 * @param workspace the workspace's real path, to name a path in an error
 * @throws BadInputError when a read-only path Codex does not let skip does not exist: ak's
 *   sandbox cannot keep a missing path from being created.
 */
export async function realCodexRequest(request: CodexSandboxRequest, workspace: string): Promise<CodexSandboxRequest> {
  const real = async (target: string) => realpath(target).catch((error: NodeJS.ErrnoException) => {
    if (error.code === 'ENOENT' || error.code === 'ENOTDIR') return undefined
    throw error
  })
  const writableRoots: string[] = []
  for (const root of request.writableRoots) {
    const found = await real(root)
    if (found) writableRoots.push(found)
  }
  const readOnlyPaths: CodexReadOnlyPath[] = []
  for (const entry of request.readOnlyPaths) {
    const found = await real(entry.path)
    if (found) readOnlyPaths.push({...entry, path: found})
    else if (!entry.skipIfMissing) {
      const shown = isWithin(workspace, entry.path) ? path.relative(workspace, entry.path) || '.' : 'a path outside the workspace'
      throw unsupported(
        `keeps ${JSON.stringify(shown)} read-only, which does not exist yet`,
        'ak\'s sandbox can only keep an existing path read-only. Create it, or run Codex without that entry.',
      )
    }
  }
  return {...request, writableRoots, readOnlyPaths}
}

/**
 * The sandbox one command runs in: never weaker than the server's flags, nor than what Codex
 * reports for the call. The stricter mode wins; the network is allowed only if both allow it;
 * under `workspace-write` the command writes only in the workspace and, when Codex sent its
 * state, only in Codex's writable roots that lie inside the workspace (a root around the
 * workspace narrows to the workspace), minus the paths Codex keeps read-only there. When none of
 * Codex's roots meets the workspace the command runs read-only.
 * @param server the server's own policy (`--sandbox`, `--sandbox-network`)
 * @param codex what Codex asked for the call (parseCodexSandboxState, then realCodexRequest), or undefined
 * @param workspace the workspace's real absolute path
 */
export function sandboxForCall(server: SandboxPolicy, codex: CodexSandboxRequest | undefined, workspace: string): CallSandboxPolicy {
  const none = {writableRoots: [], readOnlyPaths: []}
  if (!codex) return {...server, ...none, ...(server.mode === 'workspace-write' ? {writableRoots: [workspace]} : {})}
  const mode = MODE_RANK[codex.mode] > MODE_RANK[server.mode] ? codex.mode : server.mode
  if (mode === 'off') return {mode, network: true, ...none}
  const network = (server.mode === 'off' || server.network) && (codex.mode === 'off' || codex.network)
  if (mode === 'read-only') return {mode, network, ...none}
  if (codex.mode === 'off') return {mode, network, writableRoots: [workspace], readOnlyPaths: []}
  const roots = new Set<string>()
  for (const root of codex.writableRoots) {
    if (isWithin(workspace, root)) roots.add(root)
    else if (isWithin(root, workspace)) roots.add(workspace)
  }
  if (roots.size === 0) return {mode: 'read-only', network, ...none}
  const writableRoots = [...roots].sort()
  const readOnlyPaths = codex.readOnlyPaths
    .map((entry) => entry.path)
    .filter((carveOut) => writableRoots.some((root) => root !== carveOut && isWithin(root, carveOut)))
  return {mode, network, writableRoots, readOnlyPaths: [...new Set(readOnlyPaths)].sort()}
}
