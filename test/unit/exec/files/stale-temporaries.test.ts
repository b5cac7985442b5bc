import {expect} from 'chai'
import {spawnSync} from 'node:child_process'
import {createHash} from 'node:crypto'
import {readFileSync} from 'node:fs'
import {mkdir, mkdtemp, readFile, readdir, rm, writeFile} from 'node:fs/promises'
import {tmpdir} from 'node:os'
import path from 'node:path'

import {editTool} from '../../../../src/exec/tools/edit.js'
import type {ToolContext} from '../../../../src/exec/context.js'
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
    const unrelated = ['.ak-edit-notes.tmp', `.ak-edit-${endedPid()}-abc.tmp`, '.ak-edit-lock-notes']
    const staleLock = '.ak-edit-lock-0123456789abcdef'
    const liveLock = '.ak-edit-lock-fedcba9876543210'
    // Claims of a takeover, left by a server killed in the middle of one, and one in progress.
    const staleClaim = '.ak-edit-lock-0123456789abcdef.0011223344556677'
    const liveClaim = '.ak-edit-lock-fedcba9876543210.8899aabbccddeeff'
    for (const name of [stale, live, ...unrelated]) await writeFile(path.join(ws, 'src', name), 'partial')
    for (const name of [staleLock, staleClaim]) await writeFile(path.join(ws, 'src', name), `${endedPid()} 0123456789abcdef\n`)
    for (const name of [liveLock, liveClaim]) await writeFile(path.join(ws, 'src', name), `${process.ppid}\n`)
    await runTool(editTool, context, {path: 'src/a.txt', old_text: 'one', new_text: 'two'})
    expect((await readdir(path.join(ws, 'src'))).sort()).to.deep.equal([live, ...unrelated, liveLock, liveClaim, 'a.txt'].sort())
  })

  it("waits while another server holds the file's replace lock, and takes over one whose process is gone", async () => {
    const lock = path.join(ws, 'src', `.ak-edit-lock-${createHash('sha256').update('a.txt').digest('hex').slice(0, 16)}`)
    await writeFile(lock, `${process.ppid}\n`)
    let isDone = false
    const edit = runTool(editTool, context, {path: 'src/a.txt', old_text: 'one', new_text: 'two'}).then(() => (isDone = true))
    await new Promise((resolve) => setTimeout(resolve, 300))
    expect(isDone, 'the edit waits for the lock').to.equal(false)
    expect(await readFile(path.join(ws, 'src', 'a.txt'), 'utf8')).to.equal('one\n')
    await rm(lock)
    await edit
    expect(await readFile(path.join(ws, 'src', 'a.txt'), 'utf8')).to.equal('two\n')
    await writeFile(lock, `${endedPid()}\n`)
    await runTool(editTool, context, {path: 'src/a.txt', old_text: 'two', new_text: 'three'})
    expect(await readFile(path.join(ws, 'src', 'a.txt'), 'utf8')).to.equal('three\n')
    expect((await readdir(path.join(ws, 'src'))).filter((name) => name.startsWith('.ak-edit-'))).to.deep.equal([])
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
