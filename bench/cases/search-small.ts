/**
 * `search` over many small files: a plain copy of this checkout's `node_modules` (no git, no
 * ignore files), searched for a literal that occurs nowhere, so every file is read and the time
 * is mostly walking folders and opening files. Against ripgrep and grep.
 */
import {cpSync, readdirSync} from 'node:fs'
import path from 'node:path'
import {runCommand, type BenchContext} from '../lib/contenders.js'
import {alternate, timed, type Contender} from '../lib/measure.js'
import {connectServer} from '../lib/mcp.js'
import {ratioVerdict, type CaseReport, type Verdict} from '../lib/report.js'
import {RG_FLAGS} from './search.js'

/** The target for ak ÷ ripgrep on this corpus. */
const LIMIT = 1.5
const QUERY = 'qz_no_such_text_4d1c9e'

/** Files and folders below `root` that both searches visit (symlinks and `node_modules` folders skipped). */
function countTree(root: string): {files: number; folders: number} {
  let files = 0
  let folders = 0
  const stack = [root]
  while (stack.length > 0) {
    const folder = stack.pop() as string
    folders++
    for (const entry of readdirSync(folder, {withFileTypes: true})) {
      if (entry.isDirectory() && entry.name !== 'node_modules' && entry.name !== '.git') stack.push(path.join(folder, entry.name))
      else if (entry.isFile()) files++
    }
  }
  return {files, folders}
}

/** Copies the corpus and measures the search. */
export async function searchSmallFilesCase(context: BenchContext): Promise<CaseReport> {
  const root = path.join(context.tmp, 'small-files')
  console.error('bench: copying node_modules for the small-files search')
  cpSync(path.join(context.repoRoot, 'node_modules'), root, {recursive: true, verbatimSymlinks: true})
  const tree = countTree(root)
  context.setup.push(
    `- search-small-files: a plain copy of this checkout's \`node_modules\` (no git repository, no ignore files; ${tree.files.toLocaleString('en')} files in ${tree.folders.toLocaleString('en')} folders outside nested \`node_modules\` folders, which every contender skips). Removed after the run.`,
  )
  const ak = await connectServer(context.ak.line(root, 'read', context.profileDir))
  try {
    const contenders: Contender[] = [
      {
        name: 'ak',
        detail: `${context.ak.form}, search via MCP`,
        async run() {
          const {ms, value} = await timed(() => ak.call('search', {query: QUERY, path: '.'}))
          if (value.isError || !/no match|0 match|nothing/i.test(value.text)) throw new Error(`search answered: ${value.text.slice(0, 200)}`)
          return {ms}
        },
      },
    ]
    const {rg, grep} = context.peers
    if (rg) {
      contenders.push({
        name: 'ripgrep',
        detail: `${rg.version}, rg -F ${RG_FLAGS.slice(0, 6).join(' ')}`,
        async run() {
          const result = await runCommand(rg.entry, ['-F', ...RG_FLAGS, '--', QUERY], {cwd: root})
          if (result.status !== 1) throw new Error(`rg exited ${result.status}`)
          return {ms: result.ms}
        },
      })
    }
    if (grep) {
      contenders.push({
        name: 'grep',
        detail: `${grep.version}, grep -rnF --exclude-dir=node_modules`,
        async run() {
          const result = await runCommand(grep.entry, ['-rnF', '--exclude-dir=node_modules', '--', QUERY, '.'], {cwd: root})
          if (result.status !== 1) throw new Error(`grep exited ${result.status}`)
          return {ms: result.ms}
        },
      })
    }
    const summaries = await alternate(contenders, context.runs({full: 9, quick: 3}), Math.max(1, context.warmups))
    const verdicts: Verdict[] = [ratioVerdict(summaries, 'ak', 'ripgrep', LIMIT, `ak ÷ ripgrep ≤ ${LIMIT}`), ratioVerdict(summaries, 'ak', 'grep', 1, 'ak faster than grep')]
    return {
      id: 'search-small-files',
      title: `search over many small files, a literal that occurs nowhere: \`${QUERY}\``,
      measures: 'One run is one search of the whole copy: one tool call for ak, one spawn for ripgrep and grep. A warm-up run of each comes first, so every file is in the page cache.',
      target: `≤ ${LIMIT} × ripgrep, faster than grep.`,
      akName: 'ak',
      summaries,
      verdicts,
      notes: [],
    }
  } finally {
    await ak.close()
  }
}
