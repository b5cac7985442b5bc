import {homedir} from 'node:os'
import path from 'node:path'

import {BadInputError} from '../errors.js'

/** The two folders discovery starts from, as absolute paths. */
export interface CodexRoots {
  /** Codex's home: `config.toml` (trust, MCP servers) and the user agents in `agents/`. */
  codexHome: string
  /** The folder of staged kits: `<pluginRoot>/<kit>/.codex/agents/`. */
  pluginRoot: string
}

/**
 * Resolves the Codex home and plugin root (DESIGN §5.1): a flag wins, then `$CODEX_HOME` /
 * `$AGENTKIT_PLUGIN_DIR`, then `~/.codex` / `~/.claude/plugins`. A leading `~/` is expanded and
 * relative paths are resolved against `cwd`.
 * @throws BadInputError when a flag is given but empty.
 */
export function resolveRoots(
  flags: {codexHome?: string | undefined; pluginRoot?: string | undefined},
  options: {env?: NodeJS.ProcessEnv; cwd?: string; homeDir?: string} = {},
): CodexRoots {
  const env = options.env ?? process.env
  const home = options.homeDir ?? homedir()
  const cwd = options.cwd ?? process.cwd()
  const pick = (flag: string | undefined, flagName: string, variable: string, fallback: string): string => {
    if (flag !== undefined && flag.trim() === '') {
      throw new BadInputError(`${flagName} is empty. Give a folder, or leave the flag out to use $${variable} or ${fallback}.`)
    }
    const chosen = flag ?? (env[variable]?.trim() ? env[variable] : undefined) ?? fallback
    const expanded = chosen === '~' ? home : chosen.startsWith('~/') ? path.join(home, chosen.slice(2)) : chosen
    return path.resolve(cwd, expanded)
  }
  return {
    codexHome: pick(flags.codexHome, '--codex-home', 'CODEX_HOME', path.join(home, '.codex')),
    pluginRoot: pick(flags.pluginRoot, '--plugin-root', 'AGENTKIT_PLUGIN_DIR', path.join(home, '.claude', 'plugins')),
  }
}
