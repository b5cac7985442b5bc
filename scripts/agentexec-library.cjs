// The AgentExec library's CommonJS entry, dist/exec.cjs (`require("@agentorg/exec")`), which the
// ES module entry dist/exec.js re-exports (`import {createAgentExec} from "@agentorg/exec"`):
// checks the Node.js version before anything of the bundle is loaded, so an older Node.js gets one
// line saying what to install instead of a link error, then exports the bundle's library. No
// top-level await, so a host's CommonJS bundle (and a single executable application) can hold it.
// The bundle (dist/agentexec-bundle.cjs) is required like any module, so the host's own settings
// and a host's bundler apply to it. Its types are dist/exec.d.ts (src/index.ts).
// scripts/build.js bundles this file with its helper.
const {checkNodeVersion} = require('../bin/node-version.js')

checkNodeVersion('@agentorg/exec', 'run this program with it')
const {createAgentExec, LEVELS, SANDBOX_MODES} = require('./agentexec-bundle.cjs').requireLibrary()

module.exports = {createAgentExec, LEVELS, SANDBOX_MODES}
