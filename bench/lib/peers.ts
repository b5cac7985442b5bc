/**
 * The peers ak is compared with: npm packages installed into a bench-local folder (never project
 * dependencies, so `npm test` stays lean), Debian's ripgrep, and the system's grep, sed and head.
 */
import {execFileSync, spawnSync} from 'node:child_process'
import {existsSync, mkdirSync, readFileSync, writeFileSync} from 'node:fs'
import path from 'node:path'

/** npm peers, pinned. Desktop Commander installs only without its install scripts. */
export const NPM_PEERS = {
  filesystem: {pkg: '@modelcontextprotocol/server-filesystem', version: '2026.8.31', entry: 'dist/index.js'},
  desktopCommander: {pkg: '@wonderwhy-er/desktop-commander', version: '0.2.52', entry: 'dist/index.js'},
} as const

export type NpmPeerName = keyof typeof NPM_PEERS

/** Where a peer was found: how to run it and which version it is. */
export interface LocatedPeer {
  entry: string
  version: string
}

/** Every peer the cases may use; a missing one is undefined (its contenders are skipped). */
export interface Peers {
  filesystem?: LocatedPeer
  desktopCommander?: LocatedPeer
  rg?: LocatedPeer
  grep?: LocatedPeer
  sed?: LocatedPeer
  head?: LocatedPeer
  /** Why peers are missing, for the report. */
  notes: string[]
}

function installedVersion(peersDir: string, pkg: string): string | undefined {
  const manifest = path.join(peersDir, 'node_modules', pkg, 'package.json')
  if (!existsSync(manifest)) return undefined
  return (JSON.parse(readFileSync(manifest, 'utf8')) as {version: string}).version
}

function installNpmPeers(peersDir: string): void {
  mkdirSync(peersDir, {recursive: true})
  const dependencies = Object.fromEntries(Object.values(NPM_PEERS).map((p) => [p.pkg, p.version]))
  writeFileSync(
    path.join(peersDir, 'package.json'),
    JSON.stringify({name: 'ak-bench-peers', private: true, dependencies}, null, 2) + '\n',
  )
  console.error(`bench: installing ${Object.values(NPM_PEERS).map((p) => `${p.pkg}@${p.version}`).join(', ')} into ${peersDir}`)
  // --ignore-scripts: Desktop Commander's install scripts download browsers and binaries.
  // --omit=optional: leaves out its bundled ripgrep (an optional platform package), so that its
  // search runs the same Debian ripgrep as the ripgrep contender and only its own overhead differs.
  execFileSync('npm', ['install', '--ignore-scripts', '--omit=optional', '--no-audit', '--no-fund', '--loglevel=error'], {
    cwd: peersDir,
    stdio: ['ignore', 'inherit', 'inherit'],
    env: {...process.env, PUPPETEER_SKIP_DOWNLOAD: '1'},
  })
}

/** First line of `command --version`, or undefined when the command is missing. */
function versionLine(command: string): string | undefined {
  const result = spawnSync(command, ['--version'], {encoding: 'utf8'})
  if (result.status !== 0) return undefined
  return result.stdout.split('\n')[0]!.trim()
}

function which(command: string): string | undefined {
  const result = spawnSync('sh', ['-c', `command -v ${command}`], {encoding: 'utf8'})
  const found = result.stdout.trim()
  return result.status === 0 && found ? found : undefined
}

function installRipgrep(): boolean {
  if (process.getuid?.() !== 0 || !which('apt-get')) return false
  console.error('bench: installing Debian ripgrep with apt-get')
  const result = spawnSync('apt-get', ['install', '-y', '--no-install-recommends', 'ripgrep'], {
    stdio: ['ignore', 'ignore', 'inherit'],
    env: {...process.env, DEBIAN_FRONTEND: 'noninteractive'},
  })
  return result.status === 0
}

/**
 * Finds every peer, installing the missing ones when `install` is set (npm peers into
 * `peersDir`, ripgrep with apt-get when running as root).
 */
export function locatePeers(peersDir: string, install: boolean): Peers {
  const peers: Peers = {notes: []}
  const stale = Object.values(NPM_PEERS).some((p) => installedVersion(peersDir, p.pkg) !== p.version)
  if (stale && install) installNpmPeers(peersDir)
  for (const [name, peer] of Object.entries(NPM_PEERS) as Array<[NpmPeerName, (typeof NPM_PEERS)[NpmPeerName]]>) {
    const version = installedVersion(peersDir, peer.pkg)
    if (version === peer.version) {
      peers[name] = {entry: path.join(peersDir, 'node_modules', peer.pkg, peer.entry), version: `${peer.pkg}@${version}`}
    } else {
      peers.notes.push(`${peer.pkg}@${peer.version} is not installed (run \`npm run bench\` without --quick to install it); its contenders were skipped.`)
    }
  }
  if (!which('rg') && install) installRipgrep()
  const rg = which('rg')
  if (rg) peers.rg = {entry: rg, version: versionLine(rg) ?? 'ripgrep'}
  else peers.notes.push('ripgrep (Debian package `ripgrep`) is missing; its contenders were skipped.')
  for (const tool of ['grep', 'sed', 'head'] as const) {
    const found = which(tool)
    if (found) peers[tool] = {entry: found, version: versionLine(found) ?? tool}
  }
  return peers
}
