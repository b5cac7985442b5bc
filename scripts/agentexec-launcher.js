// The `agentexec` command, dist/agentexec.js: checks the Node.js version, turns on V8's compile
// cache, then runs the server from the bundle beside it (dist/agentexec-bundle.mjs). A bundle
// started as the entry module is compiled before any of its code could turn the cache on, so the
// launcher is a file of its own. scripts/build.js bundles this file with its two helpers.
import module from 'node:module'

import {checkNodeVersion} from '../bin/node-version.js'
import {endQuietlyOnEpipe} from '../bin/stdout-pipe.js'

checkNodeVersion('agentexec')
endQuietlyOnEpipe()
// Reuses the compiled code of the bundle between starts (Node.js 22.1+): MCP clients start servers often.
module.enableCompileCache?.()
const {runAgentExec} = await import('./agentexec-bundle.mjs')
await runAgentExec(process.argv.slice(2))
