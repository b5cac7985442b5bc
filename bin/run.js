#!/usr/bin/env node
// Entry point of the installed `ak` command.
import module from 'node:module'
import {fileURLToPath} from 'node:url'

import {checkNodeVersion, isSupportedNode} from './node-version.js'
import {privateNode, relaunch} from './private-node.js'
import {endQuietlyOnEpipe} from './stdout-pipe.js'

// In a clone of ak started by an older Node.js (`npm link`, a symlink on PATH), run on the
// clone's private Node.js 22 instead of refusing.
const clonesNode = isSupportedNode(process.versions.node) ? undefined : privateNode()
if (clonesNode) await relaunch(clonesNode, fileURLToPath(import.meta.url))
checkNodeVersion()
endQuietlyOnEpipe()
// Reuse V8's compiled code between starts (Node 22.1+): a server start loads hundreds of modules.
module.enableCompileCache?.()
const args = process.argv.slice(2)
// `ak exec serve` is started by MCP clients, often: it skips loading oclif when its arguments ask
// for nothing but serving (anything else, --help included, goes through oclif as usual).
// The one-file server is used because it loads much faster than the same modules from dist/.
const served = args[0] === 'exec' && args[1] === 'serve' && (await import('../dist/agentexec.js')).serveDirectly(args.slice(2))
if (!(await served)) {
  const {execute} = await import('@oclif/core')
  await execute({dir: import.meta.url})
}
