import {type CheckResult, fail, ok} from './check.js'

/**
 * The oldest Node.js ak supports. Equal to `engines.node` in package.json and to the start-up
 * check in bin/node-version.js (a unit test keeps the three equal).
 */
export const MINIMUM_NODE_VERSION = '22.15.0'

/** Whether `version` ("22.15.0", with or without a leading "v") is at least MINIMUM_NODE_VERSION. */
export function isSupportedNodeVersion(version: string): boolean {
  const [major = 0, minor = 0] = version.replace(/^v/, '').split('.').map(Number)
  const [needMajor = 0, needMinor = 0] = MINIMUM_NODE_VERSION.split('.').map(Number)
  return major > needMajor || (major === needMajor && minor >= needMinor)
}

/**
 * Checks the Node.js running ak (the one `ak exec config` writes into client configs).
 * @param version e.g. `process.versions.node`; `execPath` the binary's absolute path.
 */
export function checkNode(version: string = process.versions.node, execPath: string = process.execPath): CheckResult {
  if (isSupportedNodeVersion(version)) return ok('node', `Node.js ${version} at ${execPath}`)
  return fail(
    'node',
    `Node.js ${version} at ${execPath} is older than ${MINIMUM_NODE_VERSION}`,
    'install Node.js 22 LTS or newer (https://nodejs.org) and run ak with it',
  )
}
