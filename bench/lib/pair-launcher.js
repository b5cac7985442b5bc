// The two-file form dist/agentexec.js had before it carried its bundle (a launcher that loads
// agentexec-bundle.cjs from beside it, with the same V8 code cache), for the initialize case to
// time against the one file in the same run. bench/lib/contenders.ts bundles this file with
// esbuild beside a copy of dist/agentexec-bundle.cjs, as scripts/build.js bundled the launcher.
import {loadBundle} from '../../bin/bundle-loader.js'
import {privateCacheDir} from '../../bin/cache-dir.js'
import {checkNodeVersion} from '../../bin/node-version.js'
import {endQuietlyOnEpipe} from '../../bin/stdout-pipe.js'

checkNodeVersion('agentexec')
endQuietlyOnEpipe()
const {runAgentExec} = loadBundle(new URL('./agentexec-bundle.cjs', import.meta.url), {cacheDir: privateCacheDir()})
await runAgentExec(process.argv.slice(2))
