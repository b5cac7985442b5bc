/**
 * How ak is launched by other programs (MCP clients, Codex): below the services, which import it
 * to write launch lines into client configs.
 */
import {existsSync, realpathSync} from 'node:fs'
import path from 'node:path'
import {fileURLToPath} from 'node:url'

/** The name this module's own file has in the source tree and in `dist/launch/` (without extension). */
const OWN_MODULE_NAME = 'ak-launch'

/**
 * The command line that starts this very `ak`, for configs written for other programs (MCP
 * client configs, Codex's `[mcp_servers.*]`).
 *
 * Clients start MCP servers with a reduced environment (Codex keeps only HOME, PATH, SHELL, USER
 * and a few more), so nothing may depend on PATH or on the current directory: `command` is the
 * absolute path of the Node.js running now (`process.execPath`, at least 22.15 since ak refused to
 * start otherwise) and `args` start with ak's absolute entry file (`akEntryFile()`).
 */
export interface AkLaunch {
  /** Absolute path of the Node.js binary. */
  command: string
  /** ak's entry file, then `akArgs`. */
  args: string[]
}

/** The launch line for `ak <akArgs…>`. See `AkLaunch`. */
export function akLaunch(akArgs: string[]): AkLaunch {
  return {command: process.execPath, args: [akEntryFile(), ...akArgs]}
}

/**
 * ak's entry file, absolute, with symlinks resolved:
 * - installed package or source checkout: the package's `bin/run.js` (this module lives in
 *   `dist/launch/` or `src/launch/`, two levels below the package root);
 * - single-file bundle: the bundle file itself (this module was inlined into it, so the URL of
 *   the running module is the bundle's).
 * When the module URL is unavailable (a CommonJS bundle), the script Node.js was started with.
 */
export function akEntryFile(moduleUrl: string | undefined = import.meta.url): string {
  const here = moduleUrl ? fileURLToPath(moduleUrl) : process.argv[1]
  if (!here) return realOrSelf(path.resolve('bin', 'run.js'))
  const isOwnFile = path.basename(here).replace(/\.[cm]?[jt]s$/, '') === OWN_MODULE_NAME
  if (isOwnFile) {
    const runJs = path.resolve(path.dirname(here), '..', '..', 'bin', 'run.js')
    if (existsSync(runJs)) return realOrSelf(runJs)
  }
  return realOrSelf(here)
}

function realOrSelf(file: string): string {
  try {
    return realpathSync(file)
  } catch {
    return file
  }
}
