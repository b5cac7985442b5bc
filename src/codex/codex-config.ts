import {realpath} from 'node:fs/promises'
import path from 'node:path'

import {CODEX_CONFIG_MAX_BYTES} from './limits.js'
import {type TomlFile, readTomlFile} from './toml-file.js'

/** The path of Codex's config file under a Codex home. */
export function codexConfigPath(codexHome: string): string {
  return path.join(codexHome, 'config.toml')
}

/** Reads `<codexHome>/config.toml` (missing, unreadable and unparsable are results, not errors). */
export function readCodexConfig(codexHome: string): Promise<TomlFile> {
  return readTomlFile(codexConfigPath(codexHome), CODEX_CONFIG_MAX_BYTES)
}

/** A project's trust as Codex's config records it. */
export type TrustLevel = 'trusted' | 'untrusted' | 'not-recorded'

/**
 * The trust Codex's config gives `folder`: the `trust_level` of the `[projects."<abs path>"]`
 * entry whose path names the same folder once symlinks are resolved on both sides (Codex writes
 * canonical paths; see notes/codex.md §3). Anything but `"trusted"` in a matching entry is
 * `untrusted`; no matching entry is `not-recorded`.
 */
export async function trustLevelOf(config: Record<string, unknown>, folder: string): Promise<TrustLevel> {
  const projects = config.projects
  if (!projects || typeof projects !== 'object' || Array.isArray(projects)) return 'not-recorded'
  const target = await canonical(folder)
  let level: TrustLevel = 'not-recorded'
  for (const [key, entry] of Object.entries(projects as Record<string, unknown>)) {
    if (!path.isAbsolute(key) || (await canonical(key)) !== target) continue
    const trust = (entry as {trust_level?: unknown} | undefined)?.trust_level
    if (trust === 'trusted') return 'trusted'
    level = 'untrusted'
  }
  return level
}

/** `folder` with symlinks resolved, or just normalised when it does not exist. */
export async function canonical(folder: string): Promise<string> {
  try {
    return await realpath(folder)
  } catch {
    return path.resolve(folder)
  }
}
