// Refuses to start on a Node.js older than the product supports, with one line saying what to do.
// Plain JavaScript with no imports, so it runs (and explains) even on the old Node it refuses.
export const MINIMUM_NODE_VERSION = '22.15.0'

/** True when `version` (e.g. "22.15.0") is at least MINIMUM_NODE_VERSION. */
export function isSupportedNode(version) {
  const [major, minor] = version.split('.').map(Number)
  const [needMajor, needMinor] = MINIMUM_NODE_VERSION.split('.').map(Number)
  return major > needMajor || (major === needMajor && minor >= needMinor)
}

/** Prints a one-line message and exits 1 when the running Node.js is too old. */
export function checkNodeVersion() {
  const version = process.versions.node
  if (isSupportedNode(version)) return
  process.stderr.write(
    `ak needs Node.js ${MINIMUM_NODE_VERSION} or later, but this is Node.js ${version} (${process.execPath}): ` +
      `install Node.js 22 LTS or newer and run ak with it.\n`,
  )
  process.exit(1)
}
