/** The machine's own Node.js older than 22.15, and the one-line refusal ak's entries give it. */
import {expect} from 'chai'
import {execFileSync, type spawnSync} from 'node:child_process'
import path from 'node:path'

/**
 * A Node.js older than 22.15 found on PATH outside this project, or at /usr/bin/node (the
 * machine's own), if any.
 */
export function olderSystemNode(): string | undefined {
  const dirs = (process.env.PATH ?? '').split(path.delimiter).filter((dir) => dir && !dir.includes('node_modules'))
  for (const candidate of [...dirs.map((dir) => path.join(dir, 'node')), '/usr/bin/node']) {
    try {
      const version = execFileSync(candidate, ['--version'], {encoding: 'utf8'}).trim()
      const [major, minor] = version.slice(1).split('.').map(Number)
      if (major! < 22 || (major === 22 && minor! < 15)) return candidate
    } catch {
      // not there
    }
  }
  return undefined
}

/**
 * Checks that a start ended with exit code 1, nothing on stdout and, on stderr, the one line of
 * bin/node-version.js naming `program`, the version needed and where to get it.
 */
export function expectRefusal(result: ReturnType<typeof spawnSync>, program = 'ak'): void {
  expect(result.status, result.stderr.toString()).to.equal(1)
  expect(result.stdout.toString()).to.equal('')
  const lines = result.stderr.toString().trim().split('\n')
  expect(lines).to.have.length(1)
  const escaped = program.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&')
  expect(lines[0]).to.match(new RegExp(`^${escaped} needs Node\\.js 22\\.15\\.0 or later, but this is Node\\.js \\d+\\.\\d+\\.\\d+ .*install Node\\.js 22 .*https://nodejs\\.org`))
}

