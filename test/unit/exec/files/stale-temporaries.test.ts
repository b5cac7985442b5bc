import {expect} from 'chai'
import {spawnSync} from 'node:child_process'
import {readFileSync} from 'node:fs'
import {mkdir, mkdtemp, readdir, rm, writeFile} from 'node:fs/promises'
import {tmpdir} from 'node:os'
import path from 'node:path'

import {editTool} from '../../../../src/exec/tools/edit.js'
import type {ToolContext} from '../../../../src/exec/tools/tool.js'
import {runTool, toolContext} from '../../../helpers/exec-context.js'

/**
 * A pid no process can have: one above the system's highest (Linux's pid_max), so no process
 * that starts meanwhile can take it, as it could take the pid of a process that has ended.
 */
function endedPid(): number {
  const pidMax = Number(readFileSync('/proc/sys/kernel/pid_max', 'utf8').trim())
  return Number.isSafeInteger(pidMax) ? pidMax + 1 : (spawnSync('true').pid as number)
}

describe('temporary files of edits', () => {
  let ws: string
  let context: ToolContext

  beforeEach(async () => {
    ws = await mkdtemp(path.join(tmpdir(), 'ak-temps-'))
    await mkdir(path.join(ws, 'src'))
    await writeFile(path.join(ws, 'src', 'a.txt'), 'one\n')
    context = await toolContext(ws)
  })

  afterEach(async () => {
    await context.runtime.close()
    await rm(ws, {recursive: true, force: true})
  })

  it("removes a killed server's leftovers the next time their folder is edited, and keeps a running one's", async () => {
    const stale = `.ak-edit-${endedPid()}-0123456789abcdef.tmp`
    const live = `.ak-edit-${process.ppid}-fedcba9876543210.tmp`
    const unrelated = '.ak-edit-notes.tmp'
    for (const name of [stale, live, unrelated]) await writeFile(path.join(ws, 'src', name), 'partial')
    await runTool(editTool, context, {path: 'src/a.txt', old_text: 'one', new_text: 'two'})
    expect((await readdir(path.join(ws, 'src'))).sort()).to.deep.equal([live, unrelated, 'a.txt'].sort())
  })

  it('leaves none behind when an edit is refused or fails', async () => {
    await writeFile(path.join(ws, 'src', 'b.txt'), 'same same\n')
    for (const args of [
      {path: 'src/b.txt', old_text: 'same', new_text: 'x'},
      {path: 'src/b.txt', old_text: 'absent', new_text: 'x'},
      {path: 'src/a.txt', old_text: '', new_text: 'exists already'},
    ]) {
      let failed = false
      try {
        await runTool(editTool, context, args)
      } catch {
        failed = true
      }
      expect(failed, JSON.stringify(args)).to.equal(true)
    }
    expect((await readdir(path.join(ws, 'src'))).filter((name) => name.startsWith('.ak-edit-'))).to.deep.equal([])
  })
})
