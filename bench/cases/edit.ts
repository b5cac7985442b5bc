/** `edit` of one line in a 50 MB text file, against the official server's `edit_file`. */
import {copyFileSync, mkdirSync} from 'node:fs'
import path from 'node:path'
import {filesystemLine, type BenchContext} from '../lib/contenders.js'
import {sizeOf, writeEditableTextFile} from '../lib/corpus.js'
import {alternate, timed, type Contender} from '../lib/measure.js'
import {connectServer, type McpServer} from '../lib/mcp.js'
import {ratioVerdict, type CaseReport} from '../lib/report.js'

const FULL_FILE_BYTES = 50 * 2 ** 20
/** --quick edits a smaller file (and so stays within ak's default edit size limit). */
const QUICK_FILE_BYTES = 8 * 2 ** 20

const mib = (bytes: number | undefined): string => (bytes === undefined ? '?' : `${(bytes / 2 ** 20).toFixed(0)} MiB`)

/**
 * Each contender edits its own copy of the file, toggling one line in the middle between its
 * original text and an edited text, so every run makes a real one-line change.
 */
export async function editCase(context: BenchContext): Promise<CaseReport> {
  const workspace = path.join(context.tmp, 'edit-workspace')
  mkdirSync(workspace, {recursive: true})
  const original = path.join(workspace, 'original.txt')
  const fileBytes = context.quick ? QUICK_FILE_BYTES : FULL_FILE_BYTES
  const {lineCount, middle, middleLine: before} = await writeEditableTextFile(original, context.repoRoot, fileBytes)
  const after = `${before} // edited`
  context.setup.push(`- edit: a generated text file of ${mib(sizeOf(original))} and ${lineCount.toLocaleString('en')} lines; line ${middle} toggles between two texts.`)

  const servers: McpServer[] = []
  const contenders: Contender[] = []
  const toggle = (file: string, call: (oldText: string, newText: string) => Promise<{isError: boolean; text: string}>): Contender['run'] => {
    copyFileSync(original, file)
    let edited = false
    return async () => {
      const [from, to] = edited ? [after, before] : [before, after]
      const {ms, value} = await timed(() => call(from, to))
      if (value.isError) throw new Error(`edit answered: ${value.text.slice(0, 200)}`)
      edited = !edited
      return {ms, facts: {'answer chars': String(value.text.length)}}
    }
  }
  try {
    const ak = await connectServer(context.ak.line(workspace, 'files', context.profileDir))
    servers.push(ak)
    const notes: string[] = []
    if (ak.tools.some((t) => t.name === 'edit')) {
      contenders.push({name: 'ak', detail: context.ak.form, run: toggle(path.join(workspace, 'ak.txt'), (o, n) => ak.call('edit', {path: 'ak.txt', old_text: o, new_text: n}))})
    } else notes.push('ak offers no `edit` in this build: its contender was skipped.')
    const {filesystem} = context.peers
    let official: McpServer | undefined
    if (filesystem) {
      official = await connectServer(filesystemLine(filesystem, workspace))
      servers.push(official)
      const server = official
      const file = path.join(workspace, 'official.txt')
      contenders.push({
        name: 'official filesystem',
        detail: `${filesystem.version}, edit_file`,
        run: toggle(file, (o, n) => server.call('edit_file', {path: file, edits: [{oldText: o, newText: n}]})),
      })
    }
    const summaries = await alternate(contenders, context.runs({full: 7, quick: 3}))
    notes.push(`Server peak memory (VmHWM) after the edits: ak ${mib(ak.peakRssBytes())}${official ? `; official filesystem server ${mib(official.peakRssBytes())}` : ''}.`)
    return {
      id: 'edit',
      title: `edit one line in a ${mib(fileBytes)} file`,
      measures: 'One run is one tool call replacing one line (unique text) on an already-initialized server; it answers with a diff.',
      target: 'no slower than the official server (median ratio ≤ 1.1).',
      akName: 'ak',
      summaries,
      verdicts: [ratioVerdict(summaries, 'ak', 'official filesystem', 1.1, 'ak ÷ official filesystem ≤ 1.1')],
      notes,
    }
  } finally {
    for (const server of servers) await server.close()
  }
}
