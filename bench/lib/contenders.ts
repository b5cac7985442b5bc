/**
 * How each contender is started: ak (the bundle when built, else bin/run.js), the official
 * filesystem server, Desktop Commander, and command-line tools spawned directly.
 */
import {spawn, spawnSync} from 'node:child_process'
import {copyFileSync, existsSync, mkdirSync, readdirSync, symlinkSync} from 'node:fs'
import {homedir} from 'node:os'
import path from 'node:path'
import {performance} from 'node:perf_hooks'
import {fileURLToPath} from 'node:url'
import type {LocatedPeer, Peers} from './peers.js'
import type {ServerLine} from './mcp.js'

/** Everything a case needs to know about the run. */
export interface BenchContext {
  quick: boolean
  repoRoot: string
  /** The ak checkout measured (this one unless --ak names another). */
  akCheckout: string
  /** A temporary folder for this run, removed at the end. */
  tmp: string
  peers: Peers
  ak: AkLauncher
  /** When set, ak servers run with `--cpu-prof` and write their profiles here. */
  profileDir?: string
  /** Lines for the report's setup section (corpus size, file sizes, shells). */
  setup: string[]
  /** Untimed rounds before the timed ones in the slow cases (none for --quick, whose files were just written and are cached). */
  warmups: number
  /** Timed runs per contender: `full` for the full run, `quick` for --quick. */
  runs(counts: {full: number; quick: number}): number
}

/** How ak is started, and which form (bundle or bin/run.js) the run used. */
export interface AkLauncher {
  form: string
  isBundle: boolean
  line(workspace: string, level: string, profileDir?: string): ServerLine
}

/** The one-file bundle's possible names, newest first. */
const BUNDLE_FILES = ['dist/ak.mjs', 'dist/ak.js']

/**
 * The ak the cases measure: the standalone server dist/agentexec.js when `checkout` built it (the
 * form MCP clients are told to start), else the CLI bundle (dist/ak.mjs or dist/ak.js), else
 * `bin/run.js`. Every form serves the same tool code.
 */
export function akLauncher(checkout: string): AkLauncher {
  const standalone = akStandaloneLauncher(checkout)
  if (standalone) return standalone
  return akBundleLauncher(checkout) ?? akRunJsLauncher(checkout, 'bin/run.js (no bundle built)')
}

/** ak's whole CLI in one file (dist/ak.mjs or dist/ak.js), serving with `exec serve`, when built. */
export function akBundleLauncher(checkout: string): AkLauncher | undefined {
  const bundle = BUNDLE_FILES.map((f) => path.join(checkout, f)).find((f) => existsSync(f))
  return bundle ? launcherFor(bundle, `bundle ${path.relative(checkout, bundle)}`) : undefined
}

/** ak started through `bin/run.js` (`ak exec serve` as installed from npm). */
export function akRunJsLauncher(checkout: string, form = 'bin/run.js'): AkLauncher {
  return launcherFor(path.join(checkout, 'bin', 'run.js'), form)
}

/** The standalone server file, relative to a checkout. */
export const STANDALONE_SERVER_FILE = 'dist/agentexec.js'

/** ak's standalone AgentExec server `node dist/agentexec.js`, when `checkout` has built it. */
export function akStandaloneLauncher(checkout: string): AkLauncher | undefined {
  const file = path.join(checkout, STANDALONE_SERVER_FILE)
  return existsSync(file) ? launcherFor(file, STANDALONE_SERVER_FILE, []) : undefined
}

/**
 * The two-file form of the standalone server (a launcher and dist/agentexec-bundle.cjs beside it,
 * bench/lib/pair-launcher.js), built into `tmp` from `checkout`'s bundle, when it has one.
 */
export async function akPairLauncher(checkout: string, tmp: string): Promise<AkLauncher | undefined> {
  const bundle = path.join(checkout, 'dist', 'agentexec-bundle.cjs')
  if (!existsSync(bundle)) return undefined
  const dir = path.join(tmp, 'agentexec-pair')
  mkdirSync(dir, {recursive: true})
  copyFileSync(bundle, path.join(dir, 'agentexec-bundle.cjs'))
  const {build} = await import('esbuild')
  await build({
    bundle: true,
    platform: 'node',
    format: 'esm',
    target: 'node22',
    banner: {js: '#!/usr/bin/env node'},
    entryPoints: [path.join(path.dirname(fileURLToPath(import.meta.url)), 'pair-launcher.js')],
    outfile: path.join(dir, 'agentexec.js'),
    logLevel: 'warning',
    plugins: [{name: 'bundle-beside', setup: (b) => b.onResolve({filter: /agentexec-bundle\.cjs$/}, () => ({path: './agentexec-bundle.cjs', external: true}))}],
  })
  return launcherFor(path.join(dir, 'agentexec.js'), 'launcher + agentexec-bundle.cjs', [])
}

/**
 * A launcher whose servers get `env` on top of the bench's environment (e.g. a feature switched
 * off), shown as `form (NAME=value …)`.
 */
export function withEnv(launcher: AkLauncher, env: Record<string, string>): AkLauncher {
  const shown = Object.entries(env).map(([name, value]) => `${name}=${value}`).join(' ')
  return {
    ...launcher,
    form: `${launcher.form} (${shown})`,
    line: (workspace, level, profileDir) => {
      const line = launcher.line(workspace, level, profileDir)
      return {...line, env: {...line.env, ...env}}
    },
  }
}

/** The oldest Node.js ak runs on (package.json's `engines`). */
const AK_MIN_NODE = [22, 15]

/**
 * The Node.js that runs every server of the bench: this one when it is recent enough for ak,
 * else the project's private Node (node_modules/.bin/node, from the `node` dev dependency), so a
 * bench started by an older Node first in PATH (as `npx tsx` may find) still measures ak.
 * @throws Error when neither is recent enough, saying which Node to put first in PATH.
 */
export function serverNode(): string {
  serverNodeFound ??= findServerNode()
  return serverNodeFound
}

let serverNodeFound: string | undefined

function findServerNode(): string {
  const isRecent = (version: string): boolean => {
    const [major = 0, minor = 0] = version.replace(/^v/, '').split('.').map(Number)
    return major > AK_MIN_NODE[0]! || (major === AK_MIN_NODE[0] && minor >= AK_MIN_NODE[1]!)
  }
  if (isRecent(process.version)) return process.execPath
  const own = path.join(REPO_ROOT, 'node_modules', '.bin', 'node')
  if (existsSync(own)) {
    const version = spawnSync(own, ['--version'], {encoding: 'utf8'}).stdout?.trim() ?? ''
    if (isRecent(version)) return own
  }
  throw new Error(`ak needs Node.js ${AK_MIN_NODE.join('.')} or newer; this is ${process.version} and ${own} is missing or older. Run npm ci, or put a newer node first in PATH.`)
}

const REPO_ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..')

function launcherFor(entry: string, form: string, serve = ['exec', 'serve']): AkLauncher {
  return {
    form,
    isBundle: !entry.endsWith(path.join('bin', 'run.js')),
    line: (workspace, level, profileDir) => ({
      command: serverNode(),
      args: [...(profileDir ? ['--cpu-prof', `--cpu-prof-dir=${profileDir}`] : []), entry, ...serve, '--workspace', workspace, '--level', level],
      cwd: workspace,
    }),
  }
}

/** The official filesystem server allowed into `dir`. */
export function filesystemLine(peer: LocatedPeer, dir: string): ServerLine {
  return {command: serverNode(), args: [peer.entry, dir], cwd: dir}
}

/**
 * Desktop Commander, with its telemetry off and its configuration in a home folder of its own.
 * Every other entry of that home links to the user's, so its login shells read the same profile
 * and find the same tools under $HOME as everyone else's (a profile that fails fast on a missing
 * tool would make its shells look quicker than they are).
 */
export function desktopCommanderLine(peer: LocatedPeer, tmp: string, cwd: string): ServerLine {
  const home = path.join(tmp, 'dc-home')
  if (!existsSync(home)) {
    mkdirSync(home, {recursive: true})
    for (const entry of readdirSync(homedir())) {
      if (entry !== DC_CONFIG_DIR) symlinkSync(path.join(homedir(), entry), path.join(home, entry))
    }
  }
  return {command: serverNode(), args: [peer.entry], cwd, env: {HOME: home, DESKTOP_COMMANDER_DISABLE_TELEMETRY: '1'}}
}

/**
 * Version managers whose `init`, run by a login shell's profile, rewrites their shims with the
 * root it derives from $HOME. Desktop Commander's shells run with the linked home above, so the
 * user's shims would point into the run's temporary folder once it is gone: they are written
 * again with the real root when the run ends (see `restoreVersionManagerShims`).
 */
const VERSION_MANAGERS = [
  {folder: '.pyenv', command: 'pyenv', rootVariable: 'PYENV_ROOT'},
  {folder: '.rbenv', command: 'rbenv', rootVariable: 'RBENV_ROOT'},
  {folder: '.nodenv', command: 'nodenv', rootVariable: 'NODENV_ROOT'},
]

/** Rewrites the shims of the user's version managers (see VERSION_MANAGERS) with their real root. */
export function restoreVersionManagerShims(): void {
  for (const manager of VERSION_MANAGERS) {
    const root = path.join(homedir(), manager.folder)
    const command = path.join(root, 'bin', manager.command)
    if (!existsSync(command)) continue
    spawnSync(command, ['rehash'], {env: {...process.env, [manager.rootVariable]: root}, stdio: 'ignore', timeout: 30_000})
  }
}

/** Where Desktop Commander keeps its configuration and usage statistics, under $HOME. */
const DC_CONFIG_DIR = '.claude-server-commander'

/** What a spawned command printed, and how long it took from spawn to exit, in ms. */
export interface CommandRun {
  ms: number
  status: number | null
  stdout: string
  lines: number
}

/**
 * Spawns `command args` and waits for it to exit, timing spawn to exit. stdout is read (counted,
 * and kept up to `keepBytes`) so a chatty command pays for its output as a server would.
 */
export function runCommand(command: string, args: string[], options: {cwd?: string; keepBytes?: number; env?: NodeJS.ProcessEnv} = {}): Promise<CommandRun> {
  const keep = options.keepBytes ?? 0
  return new Promise((resolve, reject) => {
    const started = performance.now()
    const child = spawn(command, args, {cwd: options.cwd, env: options.env ?? process.env, stdio: ['ignore', 'pipe', 'ignore']})
    const kept: Buffer[] = []
    let keptBytes = 0
    let lines = 0
    child.stdout.on('data', (chunk: Buffer) => {
      for (let i = chunk.indexOf(10); i !== -1; i = chunk.indexOf(10, i + 1)) lines++
      if (keptBytes < keep) {
        kept.push(chunk)
        keptBytes += chunk.length
      }
    })
    child.on('error', reject)
    child.on('close', (status) => resolve({ms: performance.now() - started, status, stdout: Buffer.concat(kept).toString('utf8'), lines}))
  })
}
