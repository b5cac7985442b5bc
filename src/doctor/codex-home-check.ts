import {stat} from 'node:fs/promises'

import {codexConfigPath} from '../codex/codex-config.js'
import type {TomlFile} from '../codex/toml-file.js'
import {type CheckResult, fail, ok, warn} from './check.js'

/** Where to point ak at another Codex home, for fixes. */
const CHOOSE_HOME = 'pass --codex-home DIR or set CODEX_HOME'

/** Checks that the Codex home exists and is a folder. */
export async function checkCodexHome(codexHome: string): Promise<CheckResult> {
  try {
    if ((await stat(codexHome)).isDirectory()) return ok('codex home', codexHome)
    return fail('codex home', `${codexHome} is not a folder`, `move the file away, or ${CHOOSE_HOME}`)
  } catch {
    return warn('codex home', `${codexHome} does not exist`, `run "codex" once to create it, or ${CHOOSE_HOME}`)
  }
}

/**
 * Checks `<codexHome>/config.toml` as read by `readCodexConfig`: a file that cannot be read or
 * parsed fails (Codex refuses it too, and ak cannot check trust or registration); a missing file
 * is a warning (Codex runs on its defaults; nothing is trusted or registered).
 * @param registerFix the register command to suggest (with the roots doctor was given)
 */
export function checkCodexConfig(codexHome: string, config: TomlFile, registerFix = 'ak codex-agent-runtime register'): CheckResult {
  const file = codexConfigPath(codexHome)
  switch (config.status) {
    case 'ok':
      return ok('codex config', `${file} parses`)
    case 'missing':
      return warn('codex config', `${file} does not exist, so no project is trusted and nothing is registered`, registerFix)
    case 'unreadable':
    case 'too-large':
      return fail('codex config', `cannot read ${file}: ${config.reason}`, `check the file: ls -l ${file}`)
    case 'invalid':
      return fail('codex config', `${file} does not parse: ${config.reason}`, `fix that line of ${file} (Codex cannot read it either)`)
  }
}
