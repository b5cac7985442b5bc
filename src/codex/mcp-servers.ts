import path from 'node:path'

import {parse as parseShell} from 'shell-quote'

/**
 * `[mcp_servers.<name>]` entries of a Codex config or agent file (format: notes/codex.md §3).
 */

/** One MCP server entry as written in TOML (command, args, enabled_tools, …). */
export type McpServerEntry = Record<string, unknown>

/**
 * The `mcp_servers` table of a parsed config or agent file; entries that are not tables are left
 * out. The map has no prototype, so a server named `constructor` or `__proto__` is looked up as
 * what it is.
 */
export function mcpServersOf(config: Record<string, unknown>): Record<string, McpServerEntry> {
  const table = config.mcp_servers
  if (!table || typeof table !== 'object' || Array.isArray(table)) return {}
  const servers: Record<string, McpServerEntry> = Object.create(null) as Record<string, McpServerEntry>
  for (const [name, entry] of Object.entries(table as Record<string, unknown>)) {
    if (entry && typeof entry === 'object' && !Array.isArray(entry)) servers[name] = entry as McpServerEntry
  }
  return servers
}

/** The subcommand whose presence marks an entry as this runtime. */
export const RUNTIME_SUBCOMMAND = 'codex-agent-runtime'

/**
 * A word (without white space: a longer text is read as a command line instead) that names the subcommand: alone, as a path's last part (`…/codex-agent-runtime`), in
 * oclif's colon form (`codex-agent-runtime:serve`), or assigned (`r=codex-agent-runtime`); not
 * as part of a longer name (`codex-agent-runtime-docs`).
 */
const NAMES_RUNTIME = new RegExp(`(?:^|[^A-Za-z0-9_-])${RUNTIME_SUBCOMMAND}(?:$|[^A-Za-z0-9_-])`)

/** Shells whose `-c` script is read for the runtime: they take `-c` and their options the POSIX way. */
const SHELLS = new Set(['sh', 'bash', 'zsh', 'dash', 'ksh', 'mksh', 'ash'])

/** Long shell options that take the next argument as their value (bash's `--rcfile FILE`, `--init-file FILE`). */
const LONG_OPTIONS_WITH_VALUE = new Set(['--rcfile', '--init-file'])

/** How deep shell scripts starting shells are followed (`sh -c "bash -c '…'"`). */
const MAX_SHELL_NESTING = 4

/**
 * True when the entry starts this runtime as far as its words tell: its command or one of its
 * arguments names the `codex-agent-runtime` subcommand (see NAMES_RUNTIME), whether given directly or through
 * `env` (`env -S` too), `node`, `npx`, or a shell's `-c` script (`sh -c "exec ak codex-agent-runtime serve"`,
 * `bash -lc …`, shells started by shells). A dispatched `codex exec` must not start it again, or
 * agents could spawn agents without bound (DESIGN §5.4). An entry that merely mentions the
 * subcommand counts too: disabling one server too many is safe, one too few is not. Spellings
 * that build the name at run time (an interpreter, a wrapper script) cannot all be recognised:
 * the depth marker (agent-depth.ts) bounds those.
 */
export function runsAgentRuntime(entry: McpServerEntry): boolean {
  const words = [entry.command, ...(Array.isArray(entry.args) ? entry.args : [])].filter((word): word is string => typeof word === 'string')
  // A launcher may take the whole command line as one argument and split it itself (`env -S`,
  // `env --split-string=…`), so an argument holding spaces is also read as a command line.
  const splitWords = words.filter((word) => /\s/.test(word)).flatMap((word) => shellCommandsOf(word))
  return wordsRunRuntime(words, 0) || splitWords.some((command) => wordsRunRuntime(command, 1))
}

function wordsRunRuntime(words: string[], depth: number): boolean {
  if (words.some((word) => !/\s/.test(word) && NAMES_RUNTIME.test(word))) return true
  if (depth >= MAX_SHELL_NESTING) return false
  return words.some((word, index) => {
    if (!SHELLS.has(path.basename(word))) return false
    const script = shellScriptOf(words.slice(index + 1))
    return script !== undefined && shellCommandsOf(script).some((command) => wordsRunRuntime(command, depth + 1))
  })
}

/**
 * The script a shell runs given `args` (what follows the shell's name): with `-c` among its
 * options (alone or in a cluster such as `-lc`, `-ec`), the first operand after the options;
 * undefined when the shell reads a script file or stdin instead. `-o`/`-O` and bash's
 * `--rcfile`/`--init-file` take the next argument as their value; `--` and `-` end the options.
 * Source: POSIX `sh` (Shell Command Language, "sh" utility) and `bash(1)` INVOCATION.
 */
function shellScriptOf(args: string[]): string | undefined {
  let readsCommandString = false
  for (let index = 0; index < args.length; index += 1) {
    const arg = args[index] as string
    if (arg === '--' || arg === '-') return readsCommandString ? args[index + 1] : undefined
    if (arg.startsWith('--')) {
      if (LONG_OPTIONS_WITH_VALUE.has(arg)) index += 1
      continue
    }
    if (/^[-+][A-Za-z]+$/.test(arg)) {
      const letters = arg.slice(1)
      if (arg.startsWith('-') && letters.includes('c')) readsCommandString = true
      index += [...letters].filter((letter) => letter === 'o' || letter === 'O').length
      continue
    }
    return readsCommandString ? arg : undefined
  }
  return undefined
}

/**
 * The simple commands of a shell script as lists of words, split the way the shell splits them
 * (quotes removed, variables left as written, `;`, `&&`, `|`, `(` … separating commands;
 * comments dropped), by shell-quote.
 */
function shellCommandsOf(script: string): string[][] {
  const commands: string[][] = [[]]
  for (const entry of parseShell(script, (name) => `$${name}`)) {
    const current = commands[commands.length - 1] as string[]
    if (typeof entry === 'string') current.push(entry)
    else if ('op' in entry) {
      if (entry.op === 'glob') current.push(entry.pattern)
      else commands.push([])
    }
  }
  return commands
}

/** True when `name` can be written as one segment of a Codex `-c` key path (Codex splits keys on dots). */
export function isOverridableKey(name: string): boolean {
  return /^[A-Za-z0-9_-]+$/.test(name)
}
