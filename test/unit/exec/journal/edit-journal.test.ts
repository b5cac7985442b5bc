import {expect} from 'chai'
import {chmod, mkdtemp, readFile, rm, writeFile} from 'node:fs/promises'
import {tmpdir} from 'node:os'
import path from 'node:path'

import {createExecConnection, createExecRuntime} from '../../../../src/exec/runtime.js'
import {sha256} from '../../../../src/exec/journal/file-digest.js'
import {editTool} from '../../../../src/exec/tools/edit.js'
import {Workspace} from '../../../../src/exec/workspace.js'
import {runTool} from '../../../helpers/exec-context.js'
import type {ToolContext} from '../../../../src/exec/context.js'

describe('edit records its changes in the journal', () => {
  let dir: string
  let context: ToolContext

  beforeEach(async () => {
    dir = await mkdtemp(path.join(tmpdir(), 'ak-edit-journal-'))
    await writeFile(path.join(dir, 'a.txt'), 'hello\n')
    await chmod(path.join(dir, 'a.txt'), 0o640)
    const workspace = await Workspace.open(path.join(dir))
    const runtime = createExecRuntime({workspace, level: 'files', journal: {folder: path.join(dir, '..', `${path.basename(dir)}-state`)}})
    context = {runtime, workspace, connection: createExecConnection(), signal: new AbortController().signal}
  })
  afterEach(async () => {
    await context.runtime.close()
    await rm(dir, {recursive: true, force: true})
    await rm(`${dir}-state`, {recursive: true, force: true})
  })

  it('records a replacement with the content and mode before, and a creation with nothing before', async () => {
    await runTool(editTool, context, {path: 'a.txt', old_text: 'hello', new_text: 'world'})
    await runTool(editTool, context, {path: 'new/b.txt', old_text: '', new_text: 'fresh'})
    const journal = context.runtime.changeLog as import('../../../../src/exec/journal/journal.js').Journal
    const entries = await journal.entries()
    expect(entries.map((entry) => [entry.tool, entry.state, entry.changes.map((change) => [Buffer.from(change.path, 'base64').toString(), change.operation])])).to.deep.equal([
      ['edit', 'committed', [['a.txt', 'updated']]],
      ['edit', 'committed', [['new/b.txt', 'added']]],
    ])
    const [edited, created] = entries.map((entry) => entry.changes[0]!)
    expect((await journal.readBlob(edited!.before!.sha256)).toString()).to.equal('hello\n')
    expect(edited!.before!.mode).to.equal(0o640)
    expect(edited!.after).to.deep.equal({sha256: sha256(await readFile(path.join(dir, 'a.txt'))), mode: 0o640})
    expect(created!.before).to.equal(null)
    expect(created!.after!.sha256).to.equal(sha256(Buffer.from('fresh')))
  })

  it('records nothing for an edit that fails', async () => {
    const answer = await runTool(editTool, context, {path: 'a.txt', old_text: 'absent', new_text: 'x'}).catch((error: Error) => error.message)
    expect(answer).to.match(/not found|does not occur|0 occurrences|no occurrence/i)
    const journal = context.runtime.changeLog as import('../../../../src/exec/journal/journal.js').Journal
    expect(await journal.entries()).to.deep.equal([])
  })
})
