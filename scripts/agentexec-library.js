// The AgentExec library's entry, dist/exec.js (`import {createAgentExec} from "@agentorg/exec"`):
// checks the Node.js version before anything of the bundle is loaded, so an older Node.js gets one
// line saying what to install instead of a link error, then re-exports the bundle's library.
// The bundle (dist/agentexec-bundle.cjs) is imported like any module, so the host's own settings
// and a host's bundler apply to it. Its types are dist/exec.d.ts (src/index.ts).
// scripts/build.js bundles this file with its helper.
import {checkNodeVersion} from '../bin/node-version.js'

checkNodeVersion('@agentorg/exec', 'run this program with it')
// A CommonJS module imported: its module.exports is the default export.
const {createAgentExec, LEVELS, SANDBOX_MODES} = await (await import('./agentexec-bundle.cjs')).default.loadLibrary()

export {createAgentExec, LEVELS, SANDBOX_MODES}
