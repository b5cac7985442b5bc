import path from 'node:path'

import {codexConfigPath} from '../codex/codex-config.js'
import {discoverProject, untrustedReason} from '../codex/discovery.js'
import {projectTrustOf} from '../codex/project-trust.js'
import type {TomlFile} from '../codex/toml-file.js'
import {type CheckResult, ok, warn} from './check.js'

/**
 * Checks whether Codex trusts the project whose `.codex/agents` discovery finds from `cwd` (as
 * Codex decides it: projectTrustOf). Not trusted is a warning: the agent runtime does not serve
 * those agents. Where there are no project agents, trust does not matter to ak and the check
 * passes. ak never writes trust, so the fix is done in Codex.
 */
export async function checkProjectTrust(codexHome: string, config: TomlFile, cwd: string, homeDir: string): Promise<CheckResult> {
  const file = codexConfigPath(codexHome)
  const project = await discoverProject(codexHome, cwd, homeDir)
  if (project.status === 'none') return ok('project trust', `no project agents (.codex/agents) at or above ${cwd}, so trust does not matter here`)
  if (config.status !== 'ok' && config.status !== 'missing') {
    return warn('project trust', `cannot tell: ${file} cannot be read or parsed`, `fix ${file} first (see "codex config")`)
  }
  const projectDir = path.dirname(path.dirname(project.dir)) // <projectDir>/.codex/agents
  const trust = await projectTrustOf(config.status === 'ok' ? config.data : {}, projectDir, cwd)
  const key = trust.decidedBy ?? trust.trustKey
  const fix =
    trust.level === 'invalid'
      ? `set [projects."${key}"] trust_level = "trusted" (or "untrusted") in ${file}`
      : `run "codex" in ${key} and trust the folder when asked, or set [projects."${key}"] trust_level = "trusted" in ${file}`
  if (trust.level === 'trusted') return ok('project trust', `${trust.projectDir} is trusted${trust.decidedBy !== trust.projectDir ? ` through [projects."${trust.decidedBy}"]` : ''}`)
  return warn('project trust', `${untrustedReason(trust, file).replace(/^the project /, '').replace(/; trust it in Codex first$/, '')}, so its .codex/agents are not served`, fix)
}
