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

/** The `trust_level` values Codex accepts (notes/codex.md §3: "trusted" or "untrusted", lowercase). */
export const TRUST_LEVEL_VALUES = ['trusted', 'untrusted'] as const

/**
 * A project's trust as Codex's config records it: `invalid` when the deciding entry's
 * `trust_level` is not a value Codex accepts, which trusts nothing.
 */
export type TrustLevel = 'trusted' | 'untrusted' | 'invalid' | 'not-recorded'

/**
 * What one `[projects."<path>"]` entry says: its trust level, a `trust_level` Codex does not accept
 * (with the value), no `trust_level` key, or no entry at all.
 */
export type EntryTrust = 'trusted' | 'untrusted' | {invalid: unknown} | 'no-trust-level' | 'none'

/**
 * What Codex's config records for `folder`: the `trust_level` of the `[projects."<abs path>"]`
 * entry whose path names the same folder once symlinks are resolved on both sides (Codex writes
 * canonical paths; see notes/codex.md §3). A value other than `"trusted"` or `"untrusted"` (a
 * wrong case such as `"Trusted"`, a number) is `{invalid: value}`: Codex refuses such a config,
 * so nothing is trusted through it. An entry without `trust_level` is `no-trust-level`, which
 * Codex ignores.
 */
export async function entryTrustOf(config: Record<string, unknown>, folder: string): Promise<EntryTrust> {
  const projects = config.projects
  if (!projects || typeof projects !== 'object' || Array.isArray(projects)) return 'none'
  const target = await canonical(folder)
  let found: EntryTrust = 'none'
  for (const [key, entry] of Object.entries(projects as Record<string, unknown>)) {
    if (!path.isAbsolute(key) || (await canonical(key)) !== target) continue
    const trust = (entry as {trust_level?: unknown} | undefined)?.trust_level
    if (trust === 'trusted') return 'trusted'
    if (trust === 'untrusted') found = 'untrusted'
    else if (trust !== undefined && found !== 'untrusted') found = {invalid: trust}
    else if (found === 'none') found = 'no-trust-level'
  }
  return found
}

/** `folder` with symlinks resolved, or just normalised when it does not exist. */
export async function canonical(folder: string): Promise<string> {
  try {
    return await realpath(folder)
  } catch {
    return path.resolve(folder)
  }
}
