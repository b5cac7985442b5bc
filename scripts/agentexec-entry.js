// Entry of the one-file standalone server dist/agentexec.js; scripts/build.js bundles it with
// dist/agentexec-main.js. Not shipped on its own.
import {realpathSync} from 'node:fs'
import {fileURLToPath} from 'node:url'

import {checkNodeVersion} from '../bin/node-version.js'
import {endQuietlyOnEpipe} from '../bin/stdout-pipe.js'

/**
 * `ak exec serve` through this file's copy of the server, for bin/run.js (see serveDirectly in
 * src/agentexec-main.ts): true when it served, false when oclif must handle the arguments.
 */
export async function serveDirectly(args) {
  return (await import('../dist/agentexec-main.js')).serveDirectly(args)
}

if (isMainModule()) {
  checkNodeVersion()
  endQuietlyOnEpipe()
  // A dynamic import, so the version check above runs before any of the server is evaluated.
  const {runAgentExec} = await import('../dist/agentexec-main.js')
  await runAgentExec(process.argv.slice(2))
}

/** Whether Node was started with this file (`node dist/agentexec.js`, or the `agentexec` bin link). */
function isMainModule() {
  try {
    return process.argv[1] !== undefined && realpathSync(process.argv[1]) === realpathSync(fileURLToPath(import.meta.url))
  } catch {
    return false
  }
}
