// The `agentexec` command, dist/agentexec.js: one file that checks the Node.js version, then runs
// the server it carries after its own code (scripts/build.js appends dist/agentexec-bundle.cjs as
// comment lines, see embedBundle in bin/bundle-loader.js), with the V8 code cache an earlier start
// wrote in the user's private cache folder (bin/cache-dir.js). Copied alone anywhere, it serves;
// MCP clients start servers often, and a start that reuses compiled code answers `initialize`
// sooner. scripts/build.js bundles this file with its helpers into a script that is valid both as
// CommonJS and as an ES module (no import, import.meta or top-level await; built-ins through
// process.getBuiltinModule): copied alone, with no package.json to say which, Node.js runs it as
// CommonJS at once instead of compiling the whole file twice (CommonJS first, then ESM), and its
// CommonJS loader starts sooner; installed by npm ("type": "module") it runs as an ES module.
import {EmbeddedBundleError, loadEmbeddedBundle} from '../bin/bundle-loader.js'
import {privateCacheDir} from '../bin/cache-dir.js'
import {checkNodeVersion} from '../bin/node-version.js'
import {endQuietlyOnEpipe} from '../bin/stdout-pipe.js'

checkNodeVersion('agentexec')
endQuietlyOnEpipe()
// This file: CommonJS has __filename; as an ES module it is the main script Node was given.
// eslint-disable-next-line no-undef
const self = typeof __filename === 'string' ? __filename : process.argv[1]
let server
try {
  server = loadEmbeddedBundle(self, {cacheDir: privateCacheDir()})
} catch (error) {
  // One line, never a stack trace: the file cannot be read, or does not carry its server whole.
  const reason =
    error instanceof EmbeddedBundleError
      ? error.message
      : `cannot load the server this file carries (${String(error?.message ?? error).split('\n', 1)[0]}). Install it again (npm install -g @agentorg/exec).`
  process.stderr.write(`agentexec: ${reason}\n`)
  process.exit(1)
}
// runAgentExec never rejects: its outcome is process.exitCode.
void server.runAgentExec(process.argv.slice(2))
