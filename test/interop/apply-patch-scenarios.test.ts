import {expect} from 'chai'
import {cp, mkdir, mkdtemp, readFile, readdir, realpath, rm} from 'node:fs/promises'
import {tmpdir} from 'node:os'
import path from 'node:path'

import {REPO_ROOT, connectStdio} from '../helpers/clients.js'

/** Codex's apply_patch scenarios (see the folder's README), each a folder with input/, expected/ and patch.txt. */
const SCENARIOS = path.join(REPO_ROOT, 'test', 'fixtures', 'apply-patch-scenarios')

/** Scenarios where Codex leaves the operations before a failure applied; ak applies nothing there. */
const PARTIAL_IN_CODEX = new Set(['015_failure_after_partial_success_leaves_changes'])

/** Every folder and file below `root`, relative, with each file's content (what Codex's test compares). */
async function snapshot(root: string): Promise<Record<string, string>> {
  const entries: Record<string, string> = {}
  const walk = async (folder: string): Promise<void> => {
    for (const entry of await readdir(folder, {withFileTypes: true}).catch(() => [])) {
      const full = path.join(folder, entry.name)
      const relative = path.relative(root, full)
      if (entry.isDirectory()) {
        entries[relative] = '<folder>'
        await walk(full)
      } else if (entry.isFile()) {
        entries[relative] = await readFile(full, 'utf8')
      }
    }
  }
  await walk(root)
  return entries
}

describe("Codex's apply_patch scenarios through edit's patch, over a real client", function () {
  this.timeout(300_000)
  let base: string

  before(async () => {
    base = await realpath(await mkdtemp(path.join(tmpdir(), 'ak-scenarios-')))
  })

  after(async () => {
    await rm(base, {recursive: true, force: true})
  })

  it('ends every scenario in its expected workspace, and changes nothing where Codex leaves a partial change', async () => {
    const names = (await readdir(SCENARIOS, {withFileTypes: true})).filter((entry) => entry.isDirectory()).map((entry) => entry.name).sort()
    expect(names.length).to.be.at.least(22)
    for (const name of names) {
      const scenario = path.join(SCENARIOS, name)
      const ws = path.join(base, name)
      await mkdir(ws)
      // A scenario without input/ starts from an empty workspace.
      await cp(path.join(scenario, 'input'), ws, {recursive: true}).catch((error: NodeJS.ErrnoException) => {
        if (error.code !== 'ENOENT') throw error
      })
      const before = await snapshot(ws)
      const patch = await readFile(path.join(scenario, 'patch.txt'), 'utf8')
      const client = await connectStdio('v2 (2026-07-28)', ['exec', 'serve', '--workspace', ws, '--level', 'files', '--quiet'])
      let answer
      try {
        answer = await client.call('edit', {patch})
      } finally {
        await client.close()
      }
      const expected = PARTIAL_IN_CODEX.has(name) ? before : await snapshot(path.join(scenario, 'expected'))
      expect(await snapshot(ws), `${name}: ${answer.text}`).to.deep.equal(expected)
      // A scenario that changes nothing is one Codex refuses; ak refuses it too, as a tool error.
      const isRefusal = JSON.stringify(expected) === JSON.stringify(before)
      expect(answer.isError, `${name}: ${answer.text}`).to.equal(isRefusal)
      if (isRefusal) expect(answer.text, name).to.match(/Nothing was changed|nothing was changed|Nothing exists|is a folder/)
    }
  })
})
