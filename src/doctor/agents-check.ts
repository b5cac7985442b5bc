import {readdir, stat} from 'node:fs/promises'
import path from 'node:path'

import {describeOrigin} from '../codex/agent-file.js'
import {type Discovery, RootUnreadableError, discoverAgents} from '../codex/discovery.js'
import type {CodexRoots} from '../codex/roots.js'
import {describeFsError} from '../codex/toml-file.js'
import {type CheckResult, fail, ok, warn} from './check.js'

/** At most this many agents are named in the check's one line; the rest are counted. */
export const AGENTS_NAMED_MAX = 8

/**
 * Checks the plugin root: missing is fine (no staged kits, DESIGN §5.2); a folder lists its kits;
 * anything that cannot be read fails, as it makes the agent runtime exit 1.
 */
export async function checkPluginRoot(pluginRoot: string): Promise<CheckResult> {
  try {
    if (!(await stat(pluginRoot)).isDirectory()) {
      return fail('plugin root', `${pluginRoot} is not a folder`, 'pass --plugin-root DIR or set AGENTKIT_PLUGIN_DIR to a folder')
    }
    const kits = (await readdir(pluginRoot, {withFileTypes: true})).filter((entry) => entry.isDirectory()).map((entry) => entry.name)
    return ok('plugin root', `${pluginRoot} (${kits.length} ${kits.length === 1 ? 'kit' : 'kits'}${kits.length ? `: ${kits.sort().join(', ')}` : ''})`)
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return ok('plugin root', `${pluginRoot} does not exist (no staged kits)`)
    return fail('plugin root', `cannot read ${pluginRoot}: ${describeFsError(error)}`, `check the folder: ls -ld ${pluginRoot}`)
  }
}

/**
 * Runs the agent runtime's discovery from `cwd` and reports what it would serve: failing when a
 * root cannot be read, warning when no agent is found or discovery has something to say (a
 * project folder skipped, a file that cannot be parsed: one note each), naming the agents otherwise.
 * `listFix` is the list command to suggest (with the roots doctor was given).
 */
export async function checkAgents(
  roots: CodexRoots,
  options: {cwd: string; homeDir: string; listFix?: string},
): Promise<CheckResult> {
  const listFix = options.listFix ?? 'ak codex-agent-runtime serve --list-only'
  let discovery: Discovery
  try {
    discovery = await discoverAgents(roots, {cwd: options.cwd, homeDir: options.homeDir})
  } catch (error) {
    if (error instanceof RootUnreadableError) return fail('agents', error.message, listFix)
    throw error
  }
  const count = discovery.agents.length
  const names = discovery.agents.slice(0, AGENTS_NAMED_MAX).map((agent) => `${agent.slug} (${describeOrigin(agent.origin)})`)
  const more = count > AGENTS_NAMED_MAX ? `, and ${count - AGENTS_NAMED_MAX} more` : ''
  const found = `${count} ${count === 1 ? 'agent' : 'agents'}${count ? `: ${names.join(', ')}${more}` : ''}`
  if (discovery.notes.length > 0) {
    return {...warn('agents', found, `${listFix} (shows the same notes)`), notes: discovery.notes}
  }
  if (count === 0) {
    return warn('agents', 'no agent files found', `add <slug>.toml agent files to ${path.join(roots.codexHome, 'agents')}`)
  }
  return ok('agents', found)
}
