import {expect} from 'chai'
import {execFileSync, spawnSync} from 'node:child_process'
import {mkdtempSync, rmSync, writeFileSync} from 'node:fs'
import {tmpdir} from 'node:os'
import path from 'node:path'

import {REPO_ROOT, RUN_JS} from '../helpers/clients.js'

const BUNDLE = path.join(REPO_ROOT, 'dist', 'ak.mjs')

/** A Node.js older than 22.15 found on PATH outside this project (the machine's own), if any. */
function olderSystemNode(): string | undefined {
  const dirs = (process.env.PATH ?? '').split(path.delimiter).filter((dir) => dir && !dir.includes('node_modules'))
  for (const dir of dirs) {
    const candidate = path.join(dir, 'node')
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

function expectRefusal(result: ReturnType<typeof spawnSync>): void {
  expect(result.status).to.equal(1)
  expect(result.stdout.toString()).to.equal('')
  const lines = result.stderr.toString().trim().split('\n')
  expect(lines).to.have.length(1)
  expect(lines[0]).to.match(/^ak needs Node\.js 22\.15\.0 or later, but this is Node\.js \d+\.\d+\.\d+ .*install Node\.js 22/)
}

describe('start-up on a Node.js older than 22.15', () => {
  let scratch: string
  let pretendOld: string

  before(() => {
    scratch = mkdtempSync(path.join(tmpdir(), 'ak-node-version-'))
    pretendOld = path.join(scratch, 'pretend-node-20.cjs')
    writeFileSync(pretendOld, 'Object.defineProperty(process.versions, "node", {value: "20.20.0"})\n')
  })

  after(() => rmSync(scratch, {recursive: true, force: true}))

  for (const [name, entry] of [['bin/run.js', RUN_JS], ['the one-file bundle', BUNDLE]] as const) {
    it(`${name} exits 1 with one line saying what to install`, () => {
      expectRefusal(spawnSync(process.execPath, ['--require', pretendOld, entry, 'exec', 'serve'], {input: ''}))
    })
  }

  it("refuses the machine's own older Node.js the same way, when it has one", function () {
    const node = olderSystemNode()
    if (!node) this.skip()
    expectRefusal(spawnSync(node!, [RUN_JS, '--version'], {input: ''}))
  })
})
