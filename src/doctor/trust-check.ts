import {codexConfigPath} from '../codex/codex-config.js'
import {projectTrustOf} from '../codex/project-trust.js'
import type {TomlFile} from '../codex/toml-file.js'
import {type CheckResult, ok, warn} from './check.js'

/**
 * Checks whether Codex trusts the project at `cwd` (its folder or its repository root). Not
 * trusted is a warning: Codex ignores the project's own config, and the agent runtime does not
 * serve its `.codex/agents`. ak never writes trust, so the fix is done in Codex.
 */
export async function checkProjectTrust(codexHome: string, config: TomlFile, cwd: string): Promise<CheckResult> {
  const file = codexConfigPath(codexHome)
  if (config.status !== 'ok' && config.status !== 'missing') {
    return warn('project trust', `cannot tell: ${file} cannot be read or parsed`, `fix ${file} first (see "codex config")`)
  }
  const trust = await projectTrustOf(config.status === 'ok' ? config.data : {}, cwd)
  const where = trust.repoRoot && trust.repoRoot !== trust.projectDir ? `${trust.projectDir} (repository ${trust.repoRoot})` : trust.projectDir
  const trustKey = trust.repoRoot ?? trust.projectDir
  const fix = `run "codex" in ${trustKey} and trust the folder when asked, or add [projects."${trustKey}"] trust_level = "trusted" to ${file}`
  switch (trust.level) {
    case 'trusted':
      return ok('project trust', `${where} is trusted`)
    case 'untrusted':
      return warn('project trust', `${where} is marked untrusted, so its .codex/agents are not served`, fix)
    case 'not-recorded':
      return warn('project trust', `${where} is not recorded as trusted, so its .codex/agents are not served`, fix)
  }
}
