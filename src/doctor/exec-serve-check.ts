import path from 'node:path'

import {akLaunch} from '../launch/ak-launch.js'
import {type CheckResult, type DoctorEnvironment, fail, ok} from './check.js'
import {clientEnvironment, probeStdioServer} from './stdio-probe.js'

/**
 * Starts `ak exec serve --workspace <cwd>` with the launch line of this very ak (absolute Node.js
 * and entry file, as `ak exec config` writes from a clone), from the filesystem root, with a client's reduced environment; lists
 * its tools through an MCP client and stops it.
 */
export async function checkExecServe(environment: DoctorEnvironment): Promise<CheckResult> {
  const launch = akLaunch(['exec', 'serve', '--workspace', environment.cwd])
  const outcome = await probeStdioServer({
    ...launch,
    // Clients start servers from a folder of their own: the workspace must come from the flag.
    cwd: path.parse(environment.cwd).root || '/',
    env: clientEnvironment(environment.env),
  })
  if (!outcome.started) {
    return fail(
      'exec serve',
      `does not start on ${environment.cwd}: ${outcome.reason}`,
      `run "ak exec serve --workspace ${environment.cwd}" to see the whole error`,
    )
  }
  const count = outcome.tools.length
  return ok('exec serve', `starts on ${environment.cwd} and lists ${count} ${count === 1 ? 'tool' : 'tools'} (${outcome.tools.join(', ')})`)
}
