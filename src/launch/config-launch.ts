/**
 * The launch lines ak writes into configs for other programs (`ak exec config`, `register`), in
 * the form that fits where this ak runs from:
 * - a clone (or any copy outside an installed npm package): the absolute Node.js binary and ak's
 *   absolute entry file, as `akLaunch` gives them, since nothing of a clone is on PATH;
 * - an installed `@agentorg/ak` whose bin is the one on PATH (a global install): the bin's name,
 *   `agentexec` or `ak`, which survives upgrades and moves of Node.js;
 * - an installed `@agentorg/ak` whose bins are not on PATH (a project's dependency, a tarball
 *   installed into a prefix): the absolute Node.js binary and the absolute file of the installed
 *   package's bin (`bin/run.js` for `ak`, `dist/agentexec.js` for `agentexec`, as its package.json
 *   names them), which is what starts that install; never `npx -y` of the package, which starts
 *   another copy from the registry (and fails while the package is not published).
 * MCP clients start servers with a reduced environment, but PATH is among what they keep (Codex
 * passes HOME, PATH, SHELL, USER and a few more), so a bin name found on PATH now is found then.
 */
import {accessSync, constants, realpathSync, statSync} from 'node:fs'
import path from 'node:path'

import {AK_VERSION} from '../version.js'
import {type AkLaunch, akEntryFile} from './ak-launch.js'

/** The npm package of the whole CLI (bins `ak` and `agentexec`). */
export const AK_PACKAGE = '@agentorg/ak'

/** The npm package of AgentExec alone (bin `agentexec`). */
export const EXEC_PACKAGE = '@agentorg/exec'

/** The bins of the `@agentorg/ak` package. */
export type AkBin = 'ak' | 'agentexec'

/** Where the running ak lives, as far as launch lines are concerned. */
export type AkInstall =
  | {kind: 'clone'; node: string; entryFile: string}
  | {kind: 'package'; version: string; binsOnPath: AkBin[]; node: string; packageRoot: string}

/** Where each bin of the `@agentorg/ak` package lies in it (its package.json's `bin`). */
export const AK_BIN_FILES: Record<AkBin, string> = {ak: path.join('bin', 'run.js'), agentexec: path.join('dist', 'agentexec.js')}

/**
 * Decides where ak runs from. `entryFile` (real path) inside `…/node_modules/@agentorg/ak/` is an
 * installed package (`packageRoot`, without the final separator), whose bins count as on PATH when
 * the file PATH finds for them (real path, given in `pathBins`) lies inside that same package;
 * anything else is a clone. Pure.
 */
export function akInstallOf(input: {entryFile: string; node: string; version: string; pathBins: Partial<Record<AkBin, string>>}): AkInstall {
  const marker = `${path.sep}node_modules${path.sep}${AK_PACKAGE.split('/').join(path.sep)}${path.sep}`
  const at = input.entryFile.lastIndexOf(marker)
  if (at < 0) return {kind: 'clone', node: input.node, entryFile: input.entryFile}
  const packageRoot = input.entryFile.slice(0, at + marker.length)
  const binsOnPath = (['ak', 'agentexec'] as const).filter((bin) => input.pathBins[bin]?.startsWith(packageRoot))
  return {kind: 'package', version: input.version, binsOnPath, node: input.node, packageRoot: packageRoot.slice(0, -path.sep.length)}
}

/** The launch line of the AgentExec server with `serveArgs` (`--workspace`, `--level`, …). Pure. */
export function agentExecLaunch(install: AkInstall, serveArgs: string[]): AkLaunch {
  if (install.kind === 'clone') return {command: install.node, args: [install.entryFile, 'exec', 'serve', ...serveArgs]}
  if (install.binsOnPath.includes('agentexec')) return {command: 'agentexec', args: serveArgs}
  return {command: install.node, args: [path.join(install.packageRoot, AK_BIN_FILES.agentexec), ...serveArgs]}
}

/** The launch line of `ak <akArgs…>`. Pure. */
export function akCommandLaunch(install: AkInstall, akArgs: string[]): AkLaunch {
  if (install.kind === 'clone') return {command: install.node, args: [install.entryFile, ...akArgs]}
  if (install.binsOnPath.includes('ak')) return {command: 'ak', args: akArgs}
  return {command: install.node, args: [path.join(install.packageRoot, AK_BIN_FILES.ak), ...akArgs]}
}

/** Where this very ak runs from: its entry file, the Node.js running it, and its bins on `searchPath` (default: PATH). */
export function currentAkInstall(searchPath: string | undefined = process.env.PATH): AkInstall {
  return akInstallOf({entryFile: akEntryFile(), node: process.execPath, version: AK_VERSION, pathBins: akBinsOnPath(searchPath)})
}

/**
 * The real path of the file each of ak's bin names runs from `searchPath` (a PATH value): the first
 * executable file of that name in its absolute folders (relative ones are skipped, as a client
 * started from another folder would not find them).
 */
export function akBinsOnPath(searchPath: string | undefined): Partial<Record<AkBin, string>> {
  const found: Partial<Record<AkBin, string>> = {}
  for (const bin of ['ak', 'agentexec'] as const) {
    const file = executableOnPath(bin, searchPath)
    if (file) found[bin] = file
  }
  return found
}

/** The real path of the first executable file `name` in the absolute folders of `searchPath`, or undefined. */
function executableOnPath(name: string, searchPath: string | undefined): string | undefined {
  for (const folder of (searchPath ?? '').split(path.delimiter)) {
    if (!folder || !path.isAbsolute(folder)) continue
    const candidate = path.join(folder, name)
    try {
      if (!statSync(candidate).isFile()) continue
      accessSync(candidate, constants.X_OK)
      return realpathSync(candidate)
    } catch {
      // not there, or not executable: keep looking
    }
  }
  return undefined
}
