import {expect} from 'chai'
import {execFileSync} from 'node:child_process'
import {mkdir, mkdtemp, realpath, rm, symlink, writeFile} from 'node:fs/promises'
import {tmpdir} from 'node:os'
import path from 'node:path'

import {toolErrorResult} from '../../../src/exec/tooling/tool-result.js'
import {editTool} from '../../../src/exec/tools/edit.js'
import {listTool} from '../../../src/exec/tools/list.js'
import {readTool} from '../../../src/exec/tools/read.js'
import {searchTool} from '../../../src/exec/tools/search.js'
import type {ToolContext} from '../../../src/exec/context.js'
import type {ExecTool} from '../../../src/exec/tools/tool.js'
import {escapeControls} from '../../../src/text-escape.js'
import {runTool, toolContext} from '../../helpers/exec-context.js'

const SECRET = 'FUZZ-OUTSIDE-SECRET'

/** A listing of every path and file content below `dir` (find's view), to compare before and after. */
function snapshot(dir: string): string {
  return execFileSync('sh', ['-c', 'cd "$1" && find . -print0 | sort -z | xargs -0 ls -ld --time-style=+%s.%N', 'sh', dir]).toString()
}

/** A few hundred spellings of paths that must stay inside, built from fragments attackers use. */
function pathSpellings(ws: string, outside: string): string[] {
  const heads = ['', './', '/', '//', `${ws}/`, `${ws}//`, `${outside}/`, '../', '../../', 'sub/../', 'sub/../../', '~/', '~', '\\', '.\\']
  const middles = [
    '',
    'sub/',
    'to-root/',
    'to-outside/',
    'to-outside/../',
    'chain/',
    'dangling/',
    'loop/',
    'up/',
    'up/ws/',
    `${'a'.repeat(300)}/`,
    'sub\\x2f..\\x2f..\\x2f',
    'sub/\\xff/',
    'sub\\',
    'nul\u0000/',
    'etc/',
    '..\\/',
  ]
  const tails = ['', 'secret.txt', 'inside.txt', '.', '..', 'new.txt', 'passwd', 'x/', `${'b'.repeat(256)}`, '\\n', '\\xff']
  const spellings = new Set<string>()
  for (const head of heads) for (const middle of middles) for (const tail of tails) spellings.add(`${head}${middle}${tail}`)
  return [...spellings].filter((spelling) => spelling !== '')
}

describe('fuzzing path spellings against read, list, search and edit', function () {
  this.timeout(300_000)
  let base: string
  let ws: string
  let outside: string
  let context: ToolContext

  before(async () => {
    base = await realpath(await mkdtemp(path.join(tmpdir(), 'ak-fuzz-')))
    ws = path.join(base, 'ws')
    outside = path.join(base, 'outside')
    await mkdir(path.join(ws, 'sub'), {recursive: true})
    await mkdir(path.join(outside, 'etc'), {recursive: true})
    await writeFile(path.join(outside, 'secret.txt'), `${SECRET}\n`)
    await writeFile(path.join(outside, 'etc', 'passwd'), `root:${SECRET}\n`)
    await writeFile(path.join(ws, 'inside.txt'), 'inside\n')
    await writeFile(path.join(ws, 'sub', 'inside.txt'), 'inside\n')
    await symlink('/', path.join(ws, 'to-root'))
    await symlink(outside, path.join(ws, 'to-outside'))
    await symlink('to-outside', path.join(ws, 'chain'))
    await symlink(path.join(outside, 'nowhere'), path.join(ws, 'dangling'))
    await symlink('loop', path.join(ws, 'loop'))
    await symlink('..', path.join(ws, 'up'))
    context = await toolContext(ws)
  })

  after(async () => {
    await context?.runtime.close()
    await rm(base, {recursive: true, force: true})
  })

  it('escapes nothing and never answers with a raw errno', async () => {
    const spellings = pathSpellings(ws, outside)
    expect(spellings.length).to.be.greaterThan(300)
    const outsideBefore = snapshot(outside)
    const calls: Array<[ExecTool, Record<string, unknown>]> = []
    for (const [index, spelling] of spellings.entries()) {
      calls.push([readTool, {path: spelling}], [listTool, {path: spelling}], [searchTool, {query: SECRET.slice(0, 8), path: spelling}])
      calls.push([editTool, {path: spelling, old_text: '', new_text: `created ${index}\n`}])
      calls.push([editTool, {path: spelling, old_text: SECRET, new_text: 'CHANGED'}])
    }
    let succeeded = 0
    for (const [tool, args] of calls) {
      let text: string
      try {
        text = await runTool(tool, context, args)
        succeeded++
      } catch (error) {
        text = (toolErrorResult(error).content[0] as {text: string}).text
      }
      const label = `${tool.name} ${JSON.stringify(args)}`
      expect(text, label).to.not.include(SECRET)
      // The path as given may be quoted back; nothing else of the outside may appear.
      // A long path may be quoted cut short, ending in "…".
      const given = escapeControls(String(args.path))
      const quoted = text
        .replaceAll(String(args.path), '<path>')
        .replace(/"([^"]*)"/g, (all, inner: string) => (given.startsWith(inner.replace(/…$/, '')) ? '<path>' : all))
      expect(quoted, label).to.not.include(outside)
      expect(text, label).to.not.match(/\bE[A-Z]{3,}\b|Internal error/)
    }
    expect(succeeded, 'some spellings are inside and work').to.be.greaterThan(20)
    expect(snapshot(outside), 'nothing outside changed').to.equal(outsideBefore)
  })
})
