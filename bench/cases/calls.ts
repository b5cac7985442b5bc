/**
 * The calls agents make most, on files of the size they usually touch, against the official
 * filesystem server: `read` of 200 and of 2000 lines, `list` of a folder of 100 entries, `edit` of
 * one line; and the first search of a fresh server against its second.
 */
import {copyFileSync, mkdirSync, writeFileSync} from 'node:fs'
import path from 'node:path'
import {filesystemLine, type BenchContext} from '../lib/contenders.js'
import {sampleLines} from '../lib/corpus.js'
import {alternate, median, timed, type Contender, type Summary} from '../lib/measure.js'
import {connectServer, type McpServer} from '../lib/mcp.js'
import {ratioVerdict, type CaseReport} from '../lib/report.js'

/** Lines of the file read and edited: more than the 2000 the longest read takes. */
const FILE_LINES = 2400
/** Longest source line kept, so 2000 numbered lines fit ak's answer limit and both servers return them all. */
const LINE_MAX_CHARS = 40
const LIST_ENTRIES = 100
/** The official server's listing with sizes, measured beside its plain one. */
const OFFICIAL_WITH_SIZES = 'official filesystem, with sizes'
/** How long the search case waits after `initialize` before the first search, as an agent's first turn would. */
const FIRST_SEARCH_AFTER_MS = 1000
/** A literal that occurs nowhere in the searched sources, so both searches read every file. */
const ABSENT_LITERAL = 'zq_absent_from_every_source_zq'

/** Median, minimum and maximum of `values` as a summary of the contender `name`. */
function summaryOf(name: string, detail: string, values: number[]): Summary {
  return {name, detail, median: median(values), min: Math.min(...values), max: Math.max(...values), runs: values.length, facts: {}}
}

/** Measures the most frequent calls of an agent session, ak against the official filesystem server. */
export async function callsCases(context: BenchContext): Promise<CaseReport[]> {
  const workspace = path.join(context.tmp, 'calls-workspace')
  mkdirSync(path.join(workspace, 'folder'), {recursive: true})
  const lines = sampleLines([path.join(context.repoRoot, 'node_modules')], FILE_LINES, LINE_MAX_CHARS)
  const text = Array.from({length: FILE_LINES}, (_, i) => `${i + 1} ${lines[i % lines.length]}\n`).join('')
  const original = path.join(workspace, 'source.txt')
  writeFileSync(original, text)
  for (let i = 0; i < LIST_ENTRIES; i++) {
    if (i % 10 === 0) mkdirSync(path.join(workspace, 'folder', `sub-${i}`))
    else writeFileSync(path.join(workspace, 'folder', `file-${String(i).padStart(3, '0')}.ts`), 'x'.repeat(i * 37))
  }
  context.setup.push(
    `- calls: a text file of ${FILE_LINES} lines (${text.length} bytes; lines of package sources up to ${LINE_MAX_CHARS} characters, each prefixed by its number), a folder of ${LIST_ENTRIES} entries (90 files, 10 folders); search over this checkout's src/.`,
  )
  const runs = context.runs({full: 25, quick: 5})
  const servers: McpServer[] = []
  const reports: CaseReport[] = []
  try {
    const ak = await connectServer(context.ak.line(workspace, 'files', context.profileDir))
    servers.push(ak)
    const {filesystem} = context.peers
    const official = filesystem ? await connectServer(filesystemLine(filesystem, workspace)) : undefined
    if (official) servers.push(official)
    const notes = filesystem ? [] : ['The official filesystem server is not installed: run the bench without --quick once to install it.']
    const pair = (akRun: () => Promise<{isError: boolean; text: string}>, officialRun: (() => Promise<{isError: boolean; text: string}>) | undefined, check: (text: string) => boolean): Contender[] => {
      const one = (name: string, detail: string, call: () => Promise<{isError: boolean; text: string}>): Contender => ({
        name,
        detail,
        async run() {
          const {ms, value} = await timed(call)
          if (value.isError || !check(value.text)) throw new Error(`${name} answered: ${value.text.slice(0, 200)}`)
          return {ms, facts: {'answer chars': String(value.text.length)}}
        },
      })
      return [one('ak', context.ak.form, akRun), ...(officialRun && filesystem ? [one('official filesystem', filesystem.version, officialRun)] : [])]
    }
    for (const count of [200, 2000]) {
      const summaries = await alternate(
        pair(
          () => ak.call('read', {path: 'source.txt', limit: count}),
          official && (() => official.call('read_text_file', {path: original, head: count})),
          (answer) => answer.includes(`${count} `) && !answer.includes(`\n${count + 1} `),
        ),
        runs,
      )
      const limit = count === 200 ? 1.2 : 1.1
      reports.push({
        id: `read-${count}`,
        title: `read the first ${count} lines of a ${FILE_LINES}-line file`,
        measures: `One run is one tool call on an initialized server: ak's \`read\` with limit ${count}, the official server's \`read_text_file\` with head ${count}.`,
        target: `median ratio ≤ ${limit} × the official server.`,
        akName: 'ak',
        summaries,
        verdicts: [ratioVerdict(summaries, 'ak', 'official filesystem', limit, `ak ÷ official filesystem ≤ ${limit}`)],
        notes,
      })
    }
    const listed = (answer: string) => answer.includes('file-099.ts') && answer.includes('sub-90')
    const listContenders = pair(
      () => ak.call('list', {path: 'folder'}),
      official && (() => official.call('list_directory', {path: path.join(workspace, 'folder')})),
      listed,
    )
    // The official server's listing that shows sizes, as ak's does: what the same answer costs it.
    if (official && filesystem) {
      listContenders.push({
        name: OFFICIAL_WITH_SIZES,
        detail: `${filesystem.version}, list_directory_with_sizes`,
        async run() {
          const {ms, value} = await timed(() => official.call('list_directory_with_sizes', {path: path.join(workspace, 'folder')}))
          if (value.isError || !listed(value.text)) throw new Error(`${OFFICIAL_WITH_SIZES} answered: ${value.text.slice(0, 200)}`)
          return {ms}
        },
      })
    }
    const listSummaries = await alternate(listContenders, runs)
    reports.push({
      id: 'list-100',
      title: `list a folder of ${LIST_ENTRIES} entries`,
      measures:
        "One run is one tool call: ak's `list` (names sorted, files with their size), the official server's `list_directory` (names with [FILE] or [DIR], no size) " +
        'and, for the same answer as ak\'s, its `list_directory_with_sizes` (which looks up each entry, as ak does for files).',
      target: 'median ratio ≤ 1.2 × the official server.',
      akName: 'ak',
      summaries: listSummaries,
      verdicts: [
        ratioVerdict(listSummaries, 'ak', 'official filesystem', 1.2, 'ak ÷ official filesystem ≤ 1.2'),
        ...(official ? [ratioVerdict(listSummaries, 'ak', OFFICIAL_WITH_SIZES, 1.2, `ak ÷ ${OFFICIAL_WITH_SIZES} ≤ 1.2`)] : []),
      ],
      notes,
    })
    // Each server edits its own copy, toggling one line, so every run makes a real one-line change.
    const middle = FILE_LINES / 2
    const before = `\n${middle} ${lines[(middle - 1) % lines.length]}\n`
    const after = `\n${middle} edited\n`
    const toggle = (name: string, call: (oldText: string, newText: string) => Promise<{isError: boolean; text: string}>): (() => Promise<{isError: boolean; text: string}>) => {
      copyFileSync(original, path.join(workspace, name))
      let edited = false
      return async () => {
        const [from, to] = edited ? [after, before] : [before, after]
        const answer = await call(from, to)
        if (!answer.isError) edited = !edited
        return answer
      }
    }
    const officialFile = path.join(workspace, 'official.txt')
    const editSummaries = await alternate(
      pair(
        toggle('ak.txt', (o, n) => ak.call('edit', {path: 'ak.txt', old_text: o, new_text: n})),
        official && toggle('official.txt', (o, n) => official.call('edit_file', {path: officialFile, edits: [{oldText: o, newText: n}]})),
        () => true,
      ),
      runs,
    )
    reports.push({
      id: 'edit-line',
      title: `edit one line of a ${FILE_LINES}-line file`,
      measures: 'One run is one tool call replacing one line (unique text) and answering with a diff. ak syncs the file and its folder; the official server syncs nothing.',
      target: 'median ratio ≤ 1.5 × the official server.',
      akName: 'ak',
      summaries: editSummaries,
      verdicts: [ratioVerdict(editSummaries, 'ak', 'official filesystem', 1.5, 'ak ÷ official filesystem ≤ 1.5')],
      notes,
    })
  } finally {
    for (const server of servers.splice(0)) await server.close()
  }

  // First against second search: a fresh server per run.
  const searched = path.join(context.repoRoot, 'src')
  const seconds: number[] = []
  const [firsts] = await alternate(
    [
      {
        name: 'ak, first search',
        detail: context.ak.form,
        async run() {
          const server = await connectServer(context.ak.line(searched, 'read', context.profileDir))
          try {
            await new Promise((resolve) => setTimeout(resolve, FIRST_SEARCH_AFTER_MS))
            const first = await timed(() => server.call('search', {query: ABSENT_LITERAL}))
            const second = await timed(() => server.call('search', {query: ABSENT_LITERAL}))
            if (first.value.isError || second.value.isError) throw new Error(`search answered: ${first.value.text.slice(0, 200)}`)
            seconds.push(second.ms)
            return {ms: first.ms}
          } finally {
            await server.close()
          }
        },
      },
    ],
    context.runs({full: 15, quick: 3}),
  )
  const searchSummaries = [firsts!, summaryOf('ak, second search', context.ak.form, seconds.slice(-firsts!.runs))]
  reports.push({
    id: 'search-first',
    title: 'the first search of a fresh server against its second',
    measures: `One run starts a server on this checkout's src/, waits ${FIRST_SEARCH_AFTER_MS} ms after \`initialize\` (an agent's first turn), then times two searches for a literal that occurs nowhere.`,
    target: 'median of the first ≤ 1.3 × median of the second.',
    akName: 'ak, first search',
    summaries: searchSummaries,
    verdicts: [ratioVerdict(searchSummaries, 'ak, first search', 'ak, second search', 1.3, 'first ÷ second ≤ 1.3')],
    notes: [],
  })
  return reports
}
