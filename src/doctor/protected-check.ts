import {lstat} from 'node:fs/promises'
import path from 'node:path'

import {ALLOW_PROTECTED_FLAG, ALLOW_PROTECTED_SEPARATOR, PROTECTED_NAMES, describeProtectedNames} from '../exec/protected-paths.js'
import {escapeControls} from '../text-escape.js'
import {type CheckResult, type DoctorEnvironment, ok, warn} from './check.js'

/**
 * What AgentExec protects (DESIGN §4.9, src/exec/protected-paths.ts): the protected names, which
 * of them the current folder (the workspace `exec serve` starts on) holds, and a warning for one
 * that is a symbolic link, since the workspace-write sandbox refuses to run commands until it is
 * replaced or allowed. Looks at the folder itself only, not below it.
 */
export async function checkProtectedPaths(environment: DoctorEnvironment): Promise<CheckResult> {
  const present: string[] = []
  const links: string[] = []
  for (const rule of PROTECTED_NAMES) {
    const info = await lstat(path.join(environment.cwd, rule.name)).catch(() => undefined)
    if (!info) continue
    if (info.isSymbolicLink()) links.push(rule.name)
    else present.push(info.isDirectory() ? `${rule.name}/` : rule.name)
  }
  const detail =
    `edit refuses, and the workspace-write sandbox binds read-only, ${describeProtectedNames()}; ` +
    `here: ${present.length > 0 ? present.map(escapeControls).join(', ') : 'none of them'} (operators allow one with exec serve ${ALLOW_PROTECTED_FLAG})`
  if (links.length === 0) return ok('protected paths', detail)
  const shown = links.map(escapeControls).join(', ')
  return warn(
    'protected paths',
    `${detail}; ${shown} ${links.length === 1 ? 'is a symbolic link' : 'are symbolic links'}, which the sandbox cannot keep read-only, so exec serve --sandbox workspace-write runs no command here`,
    `replace ${shown} by what ${links.length === 1 ? 'it points' : 'they point'} to, or serve with ${ALLOW_PROTECTED_FLAG} ${links.join(ALLOW_PROTECTED_SEPARATOR)}`,
  )
}
