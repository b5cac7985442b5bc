import {expect} from 'chai'
import {mkdtemp, readdir, rm, writeFile} from 'node:fs/promises'
import {tmpdir} from 'node:os'
import path from 'node:path'

import {editTool} from '../../../../src/exec/tools/edit.js'
import {readTool} from '../../../../src/exec/tools/read.js'
import type {ToolContext} from '../../../../src/exec/context.js'
import {runTool, toolContext} from '../../../helpers/exec-context.js'

/** Runs `action` and returns the message it threw (fails the test when it did not throw). */
async function failure(action: () => Promise<unknown>): Promise<string> {
  try {
    await action()
  } catch (error) {
    return (error as Error).message
  }
  throw new Error('expected the call to throw')
}

describe('a path ending in "/" names a folder', () => {
  let root: string
  let context: ToolContext

  before(async () => {
    root = await mkdtemp(path.join(tmpdir(), 'ak-slash-'))
    await writeFile(path.join(root, 'file.txt'), 'text\n')
    context = await toolContext(root)
  })

  after(() => rm(root, {recursive: true, force: true}))

  it('read refuses "file.txt/" as the kernel does: a file is not a folder', async () => {
    expect(await failure(() => runTool(readTool, context, {path: 'file.txt/'}))).to.contain('is a file, not a folder')
  })

  it('edit refuses to create "newdir2/" instead of creating a file named newdir2', async () => {
    const message = await failure(() => runTool(editTool, context, {path: 'newdir2/', old_text: '', new_text: 'x'}))
    expect(message).to.contain('names a folder')
    expect(await readdir(root)).to.deep.equal(['file.txt'])
  })
})
