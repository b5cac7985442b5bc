// The AgentExec library's entry, dist/exec.js (`import {createAgentExec} from "@agentorg/exec"`):
// checks the Node.js version before anything of the bundle is loaded, so an older Node.js gets one
// line saying what to install instead of a link error, then re-exports the bundle's library.
// Its types are dist/exec.d.ts (src/index.ts). scripts/build.js bundles this file with its helper.
import {checkNodeVersion} from '../bin/node-version.js'

checkNodeVersion('@agentorg/exec', 'run this program with it')
const {createAgentExec, LEVELS, SANDBOX_MODES} = await (await import('./agentexec-bundle.mjs')).loadLibrary()

export {createAgentExec, LEVELS, SANDBOX_MODES}
