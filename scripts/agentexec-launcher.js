// The `agentexec` command, dist/agentexec.js: checks the Node.js version, then runs the server
// from the bundle beside it (dist/agentexec-bundle.cjs) with the V8 code cache an earlier start
// wrote in the user's private cache folder (bin/bundle-loader.js, bin/cache-dir.js). MCP clients
// start servers often, and a start that reuses compiled code answers `initialize` sooner.
// scripts/build.js bundles this file with its helpers.
import {loadBundle} from '../bin/bundle-loader.js'
import {privateCacheDir} from '../bin/cache-dir.js'
import {checkNodeVersion} from '../bin/node-version.js'
import {endQuietlyOnEpipe} from '../bin/stdout-pipe.js'

checkNodeVersion('agentexec')
endQuietlyOnEpipe()
const {runAgentExec} = loadBundle(new URL('./agentexec-bundle.cjs', import.meta.url), {cacheDir: privateCacheDir()})
await runAgentExec(process.argv.slice(2))
