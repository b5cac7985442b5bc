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
const {execute} = await import('@oclif/core')
await execute({dir: import.meta.url})
