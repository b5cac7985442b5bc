import {type TrustLevel, canonical, trustLevelOf} from './codex-config.js'
import {repositoryRootOf} from './discovery.js'

/** How Codex's config trusts a project folder. */
export interface ProjectTrust {
  /** The project folder, symlinks resolved. */
  projectDir: string
  /** The repository root containing it (first folder at or above it holding `.git`), if any. */
  repoRoot: string | undefined
  /** `trusted` when the folder or its repository root is trusted; else `untrusted` when either is marked so; else `not-recorded`. */
  level: TrustLevel
}

/**
 * The trust `config` (a parsed `<codexHome>/config.toml`) gives the project at `dir`: its own
 * `[projects."<path>"]` entry or that of its repository root, as discovery decides whether the
 * project's `.codex/agents` are served (DESIGN §5.2; Codex looks the folder up first, then the
 * repository root: notes/codex.md §3).
 */
export async function projectTrustOf(config: Record<string, unknown>, dir: string): Promise<ProjectTrust> {
  const projectDir = await canonical(dir)
  const repoRoot = await repositoryRootOf(projectDir)
  const levels = [await trustLevelOf(config, projectDir)]
  if (repoRoot) levels.push(await trustLevelOf(config, repoRoot))
  const level: TrustLevel = levels.includes('trusted') ? 'trusted' : levels.includes('untrusted') ? 'untrusted' : 'not-recorded'
  return {projectDir, repoRoot, level}
}
