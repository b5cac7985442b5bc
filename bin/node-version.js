// Refuses to start on a Node.js older than the product supports, with one line saying what to do.
// Plain JavaScript with no imports, so it runs (and explains) even on the old Node it refuses.
export const MINIMUM_NODE_VERSION = '22.15.0'

/** True when `version` (e.g. "22.15.0") is at least MINIMUM_NODE_VERSION. */
export function isSupportedNode(version) {
  const [major, minor] = version.split('.').map(Number)
  const [needMajor, needMinor] = MINIMUM_NODE_VERSION.split('.').map(Number)
  return major > needMajor || (major === needMajor && minor >= needMinor)
}

/** Where to get a supported Node.js, quoted by every refusal. */
export const NODE_DOWNLOAD_URL = 'https://nodejs.org/en/download'

/**
 * Prints one line on stderr and exits 1 when the running Node.js is too old; returns otherwise.
 * The line names `program` (what refuses to run: "ak", "agentexec", "@agentorg/exec"), the
 * version needed and the version found, and says where to get Node.js 22 and what to run on it
 * (`runWith`: "run ak with it" by default). No stack trace: the cause is the Node.js, not the code.
 * @param program the name a user knows the refusing program by
 * @param runWith what to do once Node.js 22 is installed
 */
export function checkNodeVersion(program = 'ak', runWith = `run ${program} with it`) {
  const version = process.versions.node
  if (isSupportedNode(version)) return
  process.stderr.write(
    `${program} needs Node.js ${MINIMUM_NODE_VERSION} or later, but this is Node.js ${version} (${process.execPath}): ` +
      `install Node.js 22 LTS or newer (${NODE_DOWNLOAD_URL}) and ${runWith}.\n`,
  )
  process.exit(1)
}
