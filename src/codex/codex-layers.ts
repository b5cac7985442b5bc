import {stat} from 'node:fs/promises'
import path from 'node:path'

import {DispatchFailedError} from '../errors.js'
import {canonical, codexConfigPath} from './codex-config.js'
import {CODEX_CONFIG_MAX_BYTES} from './limits.js'
import {isTable} from './policy.js'
import {projectRootMarkersOf, projectRootOf, projectTrustOf} from './project-trust.js'
import {type TomlFile, readTomlFile} from './toml-file.js'

/** Codex's system-wide config file on Unix (`SYSTEM_CONFIG_TOML_FILE_UNIX` in Codex). */
export const SYSTEM_CODEX_CONFIG = '/etc/codex/config.toml'

/** One config file a Codex run loads, parsed. */
export interface CodexConfigLayer {
  file: string
  data: Record<string, unknown>
}

/**
 * The config files a `codex exec` run in `cwd` with `CODEX_HOME=<codexHome>` loads, lowest
 * precedence first: the system config, `<codexHome>/config.toml`, then the `.codex/config.toml`
 * of every folder from the project root down to `cwd` that Codex trusts (projectTrustOf; an
 * untrusted project's layer is loaded disabled, so it counts for nothing). A `.codex` folder that
 * is the Codex home itself is not a project layer. Missing files are left out.
 * Source: openai/codex `codex-rs/core/src/config_loader/mod.rs` (`load_config_layers_state`,
 * `load_project_layers`).
 * @throws DispatchFailedError when one of them cannot be read or does not parse: Codex refuses to
 *   run then, and the MCP servers a run would start are unknown.
 */
export async function codexConfigLayers(codexHome: string, cwd: string, options: {systemConfig?: string} = {}): Promise<CodexConfigLayer[]> {
  const layers: CodexConfigLayer[] = []
  for (const file of [options.systemConfig ?? SYSTEM_CODEX_CONFIG, codexConfigPath(codexHome)]) {
    const data = usable(file, await readTomlFile(file, CODEX_CONFIG_MAX_BYTES))
    if (data) layers.push({file, data})
  }
  const base = mergeLayers(layers)
  const runDir = await canonical(cwd)
  const projectRoot = await projectRootOf(runDir, projectRootMarkersOf(base))
  const home = await canonical(codexHome)
  const dirs: string[] = []
  for (let dir = runDir; ; dir = path.dirname(dir)) {
    dirs.unshift(dir)
    if (dir === projectRoot || path.dirname(dir) === dir) break
  }
  for (const dir of dirs) {
    const dotCodex = path.join(dir, '.codex')
    if (!(await stat(dotCodex).then((info) => info.isDirectory(), () => false))) continue
    if ((await canonical(dotCodex)) === home) continue
    if ((await projectTrustOf(base, dir, runDir)).level !== 'trusted') continue
    const file = path.join(dotCodex, 'config.toml')
    const data = usable(file, await readTomlFile(file, CODEX_CONFIG_MAX_BYTES))
    if (data) layers.push({file, data})
  }
  return layers
}

/** The layers merged as Codex merges them: tables key by key, any other value replaced by the later layer's. */
export function mergeLayers(layers: CodexConfigLayer[]): Record<string, unknown> {
  const merged = table()
  for (const layer of layers) mergeInto(merged, layer.data)
  return merged
}

/** A table without a prototype (as smol-toml makes them), so that keys such as `__proto__` stay keys. */
function table(entries: Record<string, unknown> = {}): Record<string, unknown> {
  return Object.assign(Object.create(null) as Record<string, unknown>, entries)
}

function mergeInto(target: Record<string, unknown>, source: Record<string, unknown>): void {
  for (const [key, value] of Object.entries(source)) {
    const current = Object.hasOwn(target, key) ? target[key] : undefined
    if (isTable(current) && isTable(value)) {
      const copy = table(current)
      mergeInto(copy, value)
      target[key] = copy
    } else {
      target[key] = isTable(value) ? table(value) : value
    }
  }
}

function usable(file: string, read: TomlFile): Record<string, unknown> | undefined {
  switch (read.status) {
    case 'ok':
      return read.data
    case 'missing':
      return undefined
    case 'invalid':
      throw new DispatchFailedError(`${file} does not parse (${read.reason}), so the MCP servers a dispatched Codex would start are unknown. Fix the file, then call again.`)
    case 'unreadable':
    case 'too-large':
    case 'not-regular':
      throw new DispatchFailedError(`Cannot read ${file} (${read.reason}), so the MCP servers a dispatched Codex would start are unknown. Fix the file, then call again.`)
  }
}
