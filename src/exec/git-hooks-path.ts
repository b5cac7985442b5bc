/**
 * The folder a repository's `core.hooksPath` names (DESIGN §4.9): git runs the hooks there instead
 * of `hooks/` in the git folder, so when it lies inside the workspace it is protected like `hooks/`
 * (protected-paths.ts for the file tools, sandbox-protected.ts for the sandbox).
 *
 * Read from the repository's own `config` only, by a small reader of its `[core]` section (the last
 * `hooksPath` wins, quotes and `\` escapes undone, `#`/`;` comments dropped). Not followed:
 * `include.path`/`includeIf` (the config that holds them is protected, so an agent cannot add
 * one, but one the user wrote is not read), `config.worktree`, the user's global and system config,
 * `GIT_CONFIG*` and `-c` given to git, and `~` in the value.
 */
import path from 'node:path'

import {readNamedFileSync} from '../named-file.js'

/** Longest config read for its `core.hooksPath`, in bytes (git configs are a few KiB). */
export const GIT_CONFIG_MAX_BYTES = 1024 * 1024

/** The value of `core.hooksPath` in the text of a git config, as written; undefined when unset. Pure. */
export function parseHooksPath(config: string): string | undefined {
  let section = ''
  let value: string | undefined
  for (const raw of config.split('\n')) {
    let line = raw.trim()
    const header = /^\[\s*([A-Za-z0-9.-]+)(\s+"[^"]*")?\s*\]/.exec(line)
    if (header) {
      section = header[2] ? `${(header[1] as string).toLowerCase()} ` : (header[1] as string).toLowerCase()
      // A variable may follow the header on its line.
      line = line.slice(header[0].length).trim()
    }
    if (section !== 'core') continue
    const entry = /^hookspath\s*=\s*(.*)$/i.exec(line)
    if (entry) value = unquote(entry[1] as string)
  }
  return value === '' ? undefined : value
}

/** A config value with its quotes, escapes and trailing comment undone. */
function unquote(text: string): string {
  let out = ''
  let isQuoted = false
  for (let index = 0; index < text.length; index++) {
    const char = text[index] as string
    if (char === '\\') {
      const next = text[++index] ?? ''
      out += next === 'n' ? '\n' : next === 't' ? '\t' : next
    } else if (char === '"') isQuoted = !isQuoted
    else if (!isQuoted && (char === '#' || char === ';')) break
    else out += char
  }
  return out.trim()
}

/** Reads at most GIT_CONFIG_MAX_BYTES of the regular file `file`, never through a link at its name or blocking; undefined when it cannot. */
export function readConfigSync(file: string): string | undefined {
  try {
    const found = readNamedFileSync(file, GIT_CONFIG_MAX_BYTES)
    return found.kind === 'file' ? found.bytes.toString('utf8') : undefined
  } catch {
    return undefined
  }
}

/**
 * The absolute folder `core.hooksPath` names in the config of the git folder `gitFolder`, resolved
 * as git does against `base` (the work tree of a repository with one, the git folder of a bare
 * one); undefined when it is unset or uses `~`.
 */
export function hooksFolderOf(gitFolder: string, base: string): string | undefined {
  return hooksFolderIn(readConfigSync(path.join(gitFolder, 'config')), base)
}

/** The same for the text of the config (readConfigSync's), when the caller has read it already. Pure. */
export function hooksFolderIn(config: string | undefined, base: string): string | undefined {
  const value = config === undefined ? undefined : parseHooksPath(config)
  if (value === undefined || value.startsWith('~')) return undefined
  return path.resolve(base, value)
}
