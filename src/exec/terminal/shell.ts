import {accessSync, constants, statSync} from 'node:fs'
import path from 'node:path'

import {CHILD_ENV_REMOVED} from '../../token-env.js'

/**
 * Shells `$SHELL` may name to be used as is. They all take `-l -c` and speak the POSIX syntax
 * that models trained on Codex write; anything else (fish, nologin, a program) is passed over for
 * the fallbacks.
 */
export const POSIX_SHELL_NAMES: readonly string[] = ['bash', 'zsh', 'sh', 'dash', 'ksh', 'mksh', 'ash', 'yash']

/** Shells tried, in order, when `$SHELL` is unset, unknown or not executable. */
export const FALLBACK_SHELLS: readonly string[] = ['/bin/bash', '/bin/sh']

/**
 * Variables set in every command's environment so that tools print plain, predictable UTF-8 and
 * never wait on a pager: the values Codex's unified exec forces on the commands it starts
 * (`codex-rs/core/src/unified_exec/process_manager.rs`: NO_COLOR, TERM, LANG, LC_CTYPE, LC_ALL,
 * COLORTERM, PAGER, GIT_PAGER, GH_PAGER). COLORTERM is set empty, as there: cleared, so a tool
 * that looks for truecolor support finds none.
 */
export const COMMAND_ENV_OVERRIDES: Readonly<Record<string, string>> = {
  NO_COLOR: '1',
  TERM: 'dumb',
  LANG: 'C.UTF-8',
  LC_CTYPE: 'C.UTF-8',
  LC_ALL: 'C.UTF-8',
  COLORTERM: '',
  PAGER: 'cat',
  GIT_PAGER: 'cat',
  GH_PAGER: 'cat',
}

/**
 * The variable that tags every process of a command: a comma-separated list of random tags (any
 * tags inherited from an enclosing ak, then the owner's, then the command's). Descendants inherit
 * it, so a scan of `/proc/<pid>/environ` finds them even after they left the process group and
 * their parent died (see process-tree.ts).
 */
export const COMMAND_TAG_VARIABLE = 'AK_EXEC_TAG'

function isExecutableFile(file: string): boolean {
  try {
    accessSync(file, constants.X_OK)
    return statSync(file).isFile()
  } catch {
    return false
  }
}

/**
 * The shell that runs commands: `$SHELL` when it is an absolute path to an executable POSIX-family
 * shell (POSIX_SHELL_NAMES), else the first executable of FALLBACK_SHELLS. Codex runs commands the
 * same way, with the user's shell as a login shell.
 */
export function resolveShell(env: NodeJS.ProcessEnv = process.env): string {
  const own = env.SHELL
  const candidates = [...FALLBACK_SHELLS]
  if (own && path.isAbsolute(own) && POSIX_SHELL_NAMES.includes(path.basename(own))) candidates.unshift(own)
  return candidates.find(isExecutableFile) ?? '/bin/sh'
}

/**
 * The environment of one command: `base` without CHILD_ENV_REMOVED, plus COMMAND_ENV_OVERRIDES,
 * plus COMMAND_TAG_VARIABLE with `tags` appended to any inherited value.
 */
export function commandEnvironment(base: NodeJS.ProcessEnv, tags: string[]): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = {...base, ...COMMAND_ENV_OVERRIDES}
  for (const name of CHILD_ENV_REMOVED) delete env[name]
  const inherited = base[COMMAND_TAG_VARIABLE]
  env[COMMAND_TAG_VARIABLE] = [...(inherited ? [inherited] : []), ...tags].join(',')
  return env
}

/** `text` as one single-quoted shell word. */
export function quoteForShell(text: string): string {
  return `'${text.replaceAll("'", `'\\''`)}'`
}

/**
 * The `-c` script that runs `command` after sourcing `snapshotFile` (a shell snapshot,
 * shell-snapshot.ts): the snapshot first, quietly, as Codex does; then the command through
 * `eval`, so that it is parsed after the snapshot's aliases exist (zsh parses a whole `-c` string
 * before running any of it).
 */
export function snapshotCommandScript(snapshotFile: string, command: string): string {
  return `. ${quoteForShell(snapshotFile)} >/dev/null 2>&1\neval ${quoteForShell(command)}`
}

/**
 * The descriptor on which the command's first process waits for the server before it starts the
 * shell (see shellInvocation): the spawn must give it a pipe there, and end it once ready.
 */
export const START_GATE_FD = 3

/** How shellInvocation runs a command besides the shell itself. */
export interface InvocationOptions {
  /**
   * A shell snapshot to source (shell-snapshot.ts): the command then runs in a non-login shell
   * (`-c`) that sources it first, instead of a login shell (`-lc`).
   */
  snapshotFile?: string
  /** A program and arguments the shell runs under (the sandbox's `bwrap … --`). */
  wrapper?: readonly string[]
}

/**
 * The program and arguments that run `command` in `shell` with stderr joined to stdout: as a
 * login shell (`-lc`), or with `snapshotFile` as a non-login shell that sources it
 * (snapshotCommandScript); under `wrapper` when given.
 *
 * Node cannot give a child one pipe as both fd 1 and fd 2, so the command goes through
 * `/bin/sh -c 'read -r _ <&3; exec "$0" "$@" 2>&1 3<&-'`: that sh points fd 2 at fd 1 (the stdout
 * pipe) and then replaces itself with the shell (or the wrapper), so it keeps the spawned pid (the
 * process group leader) and it and every descendant write both streams into the same pipe, in
 * the exact order they wrote them.
 *
 * Before that, the sh waits until fd 3 (a pipe from the server, closed in the command) gives a
 * line or ends: the server reads which pipe the command's output goes to from `/proc/<pid>/fd/1`
 * while the process surely lives (see `START_GATE_FD`), then lets it go. A quick command's shell
 * could otherwise be gone before it was read, and processes the command left behind
 * (`env -i setsid …`) could not be found when it is stopped.
 */
export function shellInvocation(shell: string, command: string, options: InvocationOptions = {}): {file: string; args: string[]} {
  const shellArgs = options.snapshotFile ? ['-c', snapshotCommandScript(options.snapshotFile, command)] : ['-lc', command]
  return {file: '/bin/sh', args: ['-c', `read -r _ <&${START_GATE_FD}; exec "$0" "$@" 2>&1 ${START_GATE_FD}<&-`, ...(options.wrapper ?? []), shell, ...shellArgs]}
}
