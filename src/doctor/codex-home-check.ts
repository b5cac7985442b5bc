import {stat} from 'node:fs/promises'

import {codexConfigPath} from '../codex/codex-config.js'
import {shellQuote} from '../codex/inspect.js'
import type {TomlFile} from '../codex/toml-file.js'
import {type CheckResult, fail, ok, warn} from './check.js'

/** Where to point ak at another Codex home, for fixes. */
const CHOOSE_HOME = 'pass --codex-home DIR or set CODEX_HOME'

/**
 * Checks that the Codex home exists and is a folder. For a missing one, the fix creates it:
 * `mkdir -p <home>`, or running Codex once when it is Codex's default home (`~/.codex`, which
 * Codex creates; a home chosen with `--codex-home` or `CODEX_HOME` it does not).
 * @param options.given whether the home was chosen by `--codex-home` or `CODEX_HOME`
 */
export async function checkCodexHome(codexHome: string, options: {given?: boolean} = {}): Promise<CheckResult> {
  try {
    if ((await stat(codexHome)).isDirectory()) return ok('codex home', codexHome)
    return fail('codex home', `${codexHome} is not a folder`, `move the file away, or ${CHOOSE_HOME}`)
  } catch {
    const create = `mkdir -p ${shellQuote(codexHome)}`
    return warn('codex home', `${codexHome} does not exist`, `${options.given ? create : `run "codex" once to create it (or ${create})`}, or ${CHOOSE_HOME}`)
  }
}

/** Whether `dir` exists and is a folder (symlinks followed). */
export async function isFolder(dir: string): Promise<boolean> {
  return (await stat(dir).catch(() => undefined))?.isDirectory() ?? false
}

/**
 * Checks `<codexHome>/config.toml` as read by `readCodexConfig`: a file that cannot be read or
 * parsed fails (Codex refuses it too, and ak cannot check trust or registration); a missing file
 * is a warning (Codex runs on its defaults; nothing is trusted or registered), whose fix is to
 * register, unless the Codex home itself is missing: then `register` would fail, and the fix is
 * the one "codex home" gives (so it is printed once, and every fix works when followed).
 * @param registerFix the register command to suggest (with the roots doctor was given)
 * @param options.homeExists false when the Codex home does not exist
 */
export function checkCodexConfig(codexHome: string, config: TomlFile, registerFix = 'ak codex-agent-runtime register', options: {homeExists?: boolean} = {}): CheckResult {
  const file = codexConfigPath(codexHome)
  switch (config.status) {
    case 'ok':
      return ok('codex config', `${file} parses`)
    case 'missing':
      if (options.homeExists === false) {
        return {check: 'codex config', status: 'warn', detail: `${file} does not exist, as the Codex home ${codexHome} does not exist (see "codex home")`}
      }
      return warn('codex config', `${file} does not exist, so no project is trusted and nothing is registered`, registerFix)
    case 'unreadable':
    case 'too-large':
    case 'not-regular':
      return fail('codex config', `cannot read ${file}: ${config.reason}`, `check the file: ls -l ${file}`)
    case 'invalid':
      return fail('codex config', `${file} does not parse: ${config.reason}`, `fix that line of ${file} (Codex cannot read it either)`)
  }
}
