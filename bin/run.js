#!/usr/bin/env node
// Entry point of the `ak` command, in a clone of ak and in the installed package.
import {spawnSync} from 'node:child_process'
import {existsSync} from 'node:fs'
import module from 'node:module'
import path from 'node:path'
import {fileURLToPath} from 'node:url'

import {loadBundle} from './bundle-loader.js'
import {privateCacheDir} from './cache-dir.js'
import {checkNodeVersion, isSupportedNode} from './node-version.js'
import {privateNode, relaunch} from './private-node.js'
import {endQuietlyOnEpipe} from './stdout-pipe.js'

// In a clone of ak started by an older Node.js (`npm link`, a symlink on PATH), run on the
// clone's private Node.js 22 instead of refusing.
const clonesNode = isSupportedNode(process.versions.node) ? undefined : privateNode()
if (clonesNode) await relaunch(clonesNode, fileURLToPath(import.meta.url))
checkNodeVersion()
endQuietlyOnEpipe()
const inDist = (file) => new URL(`../dist/${file}`, import.meta.url)
// A clone is built by `npm run build` (which `npm test` runs); `npm ci` builds nothing, so the
// first `ak` run after it builds dist/ here.
if (!existsSync(inDist('ak.mjs')) && existsSync(new URL('../scripts/build.js', import.meta.url))) buildClone()
// Compiled code is reused between starts, kept in the user's private cache folder (never Node's
// default under the shared temporary folder, which anyone can fill first: see bin/cache-dir.js).
const cacheDir = privateCacheDir()
const args = process.argv.slice(2)
// `ak exec serve` is started by MCP clients, often: it skips loading oclif when its arguments ask
// for nothing but serving (anything else, --help included, goes through oclif as usual).
// The AgentExec bundle is used because it loads much faster than the same modules from dist/.
const served = args[0] === 'exec' && args[1] === 'serve' && loadBundle(inDist('agentexec-bundle.cjs'), {cacheDir}).serveDirectly(args.slice(2))
if (!(await served)) {
  // A start through oclif loads hundreds of modules: Node's compile cache (22.1+) keeps their code.
  if (cacheDir !== undefined) module.enableCompileCache?.(path.join(cacheDir, 'node-compile-cache'))
  if (existsSync(inDist('commands'))) {
    // A clone: oclif loads the commands from dist/ and the plugins from node_modules.
    const {execute} = await import('@oclif/core')
    await execute({dir: import.meta.url})
  } else {
    // The installed package, which has no dependencies: the whole CLI is in dist/ak.mjs.
    await import(inDist('ak.mjs'))
  }
}

/** Runs `npm run build`'s script on this Node.js, its output on stderr (stdout may carry MCP). */
function buildClone() {
  process.stderr.write('ak: building dist/ (first run in this clone; "npm run build" does the same)…\n')
  const build = spawnSync(process.execPath, [fileURLToPath(new URL('../scripts/build.js', import.meta.url))], {stdio: ['ignore', 2, 2]})
  if (build.status !== 0) {
    process.stderr.write('ak: the build failed (above); fix what it says, or run "npm ci" again, then run ak again.\n')
    process.exit(1)
  }
}
