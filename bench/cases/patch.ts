/**
 * A 40-file rename-and-update (the refactor that moves a module's files into another folder and
 * changes a line in each): one `edit` patch, against the same change made with one `edit` call
 * per file, and against the official filesystem server's `edit_file` + `move_file` per file.
 */
import {mkdirSync, readFileSync, writeFileSync} from 'node:fs'
import path from 'node:path'

import {filesystemLine, type BenchContext} from '../lib/contenders.js'
import {alternate, timed, type Contender} from '../lib/measure.js'
import {connectServer, type McpServer} from '../lib/mcp.js'
import {ratioVerdict, type CaseReport} from '../lib/report.js'

/** Files the change renames and updates. */
const FILE_COUNT = 40
/** Lines of each file. */
const LINES_PER_FILE = 300

const nameOf = (index: number) => `module-${String(index).padStart(2, '0')}.ts`

/** A file's text in one of the two states the runs toggle between. */
function textOf(index: number, state: 'a' | 'b'): string {
  const lines = Array.from({length: LINES_PER_FILE}, (_, line) => `export const value${index}_${line} = ${line} // line ${line} of ${nameOf(index)}`)
  lines[LINES_PER_FILE / 2] = `export const home${index} = '${state === 'a' ? 'alpha' : 'beta'}'`
  return `${lines.join('\n')}\n`
}

/** The one change of a file from state `from` to the other: its line, old and new. */
function changeOf(index: number, from: 'a' | 'b'): {oldLine: string; newLine: string} {
  return {
    oldLine: `export const home${index} = '${from === 'a' ? 'alpha' : 'beta'}'`,
    newLine: `export const home${index} = '${from === 'a' ? 'beta' : 'alpha'}'`,
  }
}

/** The patch moving every file of `dir` from folder `from` to the other, changing its line. */
function patchOf(dir: string, from: 'a' | 'b', indexes: number[]): string {
  const to = from === 'a' ? 'b' : 'a'
  const lines = ['*** Begin Patch']
  for (const index of indexes) {
    const {oldLine, newLine} = changeOf(index, from)
    lines.push(`*** Update File: ${dir}/${from}/${nameOf(index)}`, `*** Move to: ${dir}/${to}/${nameOf(index)}`, '@@', `-${oldLine}`, `+${newLine}`)
  }
  lines.push('*** End Patch')
  return lines.join('\n')
}

/** A contender's own copy of the files, in folder `a`, with `b` beside it empty. */
function makeCopy(workspace: string, dir: string): void {
  mkdirSync(path.join(workspace, dir, 'a'), {recursive: true})
  mkdirSync(path.join(workspace, dir, 'b'), {recursive: true})
  for (let index = 0; index < FILE_COUNT; index++) writeFileSync(path.join(workspace, dir, 'a', nameOf(index)), textOf(index, 'a'))
}

/** Checks that every file of the copy is in `state`'s folder with `state`'s text. */
function checkCopy(workspace: string, dir: string, state: 'a' | 'b'): void {
  for (let index = 0; index < FILE_COUNT; index++) {
    if (readFileSync(path.join(workspace, dir, state, nameOf(index)), 'utf8') !== textOf(index, state)) throw new Error(`${dir}/${state}/${nameOf(index)} is not as the change leaves it`)
  }
}

/** Runs `change` from the copy's current state to the other one, toggling between them, and checks the result. */
function toggling(workspace: string, dir: string, change: (from: 'a' | 'b') => Promise<number>): Contender['run'] {
  makeCopy(workspace, dir)
  let state: 'a' | 'b' = 'a'
  return async () => {
    const {ms, value: calls} = await timed(() => change(state))
    state = state === 'a' ? 'b' : 'a'
    checkCopy(workspace, dir, state)
    return {ms, facts: {'tool calls': String(calls)}}
  }
}

const indexes = Array.from({length: FILE_COUNT}, (_, index) => index)

function check(answer: {isError: boolean; text: string}, what: string): void {
  if (answer.isError) throw new Error(`${what} answered: ${answer.text.slice(0, 300)}`)
}

export async function patchCase(context: BenchContext): Promise<CaseReport> {
  const workspace = path.join(context.tmp, 'patch-workspace')
  mkdirSync(workspace, {recursive: true})
  context.setup.push(`- patch: ${FILE_COUNT} files of ${LINES_PER_FILE} lines (${(textOf(0, 'a').length / 1024).toFixed(0)} KiB each), each moved between two folders and one line changed.`)
  const servers: McpServer[] = []
  const contenders: Contender[] = []
  const notes: string[] = []
  try {
    const ak = await connectServer(context.ak.line(workspace, 'files', context.profileDir))
    servers.push(ak)
    const edit = ak.tools.find((tool) => tool.name === 'edit')
    if (edit && JSON.stringify(edit.inputSchema).includes('"patch"')) {
      contenders.push({
        name: 'ak patch',
        detail: `${context.ak.form}, one edit call`,
        run: toggling(workspace, 'one-patch', async (from) => {
          check(await ak.call('edit', {patch: patchOf('one-patch', from, indexes)}), 'edit')
          return 1
        }),
      })
      contenders.push({
        name: 'ak edit per file',
        detail: `${FILE_COUNT} edit calls, a one-file patch each`,
        run: toggling(workspace, 'per-file', async (from) => {
          for (const index of indexes) check(await ak.call('edit', {patch: patchOf('per-file', from, [index])}), 'edit')
          return FILE_COUNT
        }),
      })
    } else notes.push('ak offers no `edit` patch in this build: its contenders were skipped.')
    const {filesystem} = context.peers
    if (filesystem) {
      const official = await connectServer(filesystemLine(filesystem, workspace))
      servers.push(official)
      contenders.push({
        name: 'official filesystem',
        detail: `${filesystem.version}, edit_file + move_file per file`,
        run: toggling(workspace, 'official', async (from) => {
          const to = from === 'a' ? 'b' : 'a'
          for (const index of indexes) {
            const source = path.join(workspace, 'official', from, nameOf(index))
            const {oldLine, newLine} = changeOf(index, from)
            check(await official.call('edit_file', {path: source, edits: [{oldText: oldLine, newText: newLine}]}), 'edit_file')
            check(await official.call('move_file', {source, destination: path.join(workspace, 'official', to, nameOf(index))}), 'move_file')
          }
          return FILE_COUNT * 2
        }),
      })
    } else notes.push('The official filesystem server is not installed (a --quick run installs no peer): its contender was skipped.')
    const summaries = await alternate(contenders, context.runs({full: 7, quick: 3}), context.warmups)
    return {
      id: 'patch',
      title: `rename and update ${FILE_COUNT} files`,
      measures:
        'One run moves every file into the other folder and changes one line in it: one `edit` patch (all or nothing), one `edit` call per file, ' +
        'or the official server\'s `edit_file` then `move_file` per file.',
      target: 'the patch at most 1.5 × the official server\'s calls (median ratio ≤ 1.5), since ak syncs every file and journals the change and the official server does neither.',
      akName: 'ak patch',
      summaries,
      verdicts: [ratioVerdict(summaries, 'ak patch', 'official filesystem', 1.5, 'ak patch ÷ official filesystem ≤ 1.5')],
      notes,
    }
  } finally {
    for (const server of servers) await server.close()
  }
}
