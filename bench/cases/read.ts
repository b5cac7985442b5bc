/**
 * `read` of a big generated text file (2 GB in the full run): its first 2000 lines, and 2000 lines
 * at line 5 000 000. Every line starts with its own number, so answers are easy to check.
 */
import {mkdirSync, rmSync} from 'node:fs'
import path from 'node:path'
import {filesystemLine, runCommand, type BenchContext} from '../lib/contenders.js'
import {sampleLines, sizeOf, writeBigTextFile} from '../lib/corpus.js'
import {alternate, timed, type Contender} from '../lib/measure.js'
import {connectServer, type McpServer} from '../lib/mcp.js'
import {ratioVerdict, type CaseReport} from '../lib/report.js'

const FULL_FILE_BYTES = 2 * 2 ** 30
const QUICK_FILE_BYTES = 512 * 2 ** 20
const LINES = 2000
const DEEP_OFFSET = 5_000_000
/**
 * Source lines up to this length, so that 2000 numbered lines fit in ak's answer limit
 * (READ_MAX_ANSWER_CHARS) and every contender returns the same 2000 lines.
 */
const SAMPLE_LINE_MAX_CHARS = 36

const mib = (bytes: number | undefined): string => (bytes === undefined ? '?' : `${(bytes / 2 ** 20).toFixed(0)} MiB`)

/** Lines of an answer that carry the generated line `n` (its text starts with "n "). */
function hasLine(text: string, n: number): boolean {
  return text.includes(`${n} `)
}

/** Measures ak's `read` against the official server, `head` and `sed` on one big file. */
export async function readCases(context: BenchContext): Promise<CaseReport[]> {
  const workspace = path.join(context.tmp, 'read-workspace')
  mkdirSync(workspace, {recursive: true})
  const file = path.join(workspace, 'big.txt')
  const bytes = context.quick ? QUICK_FILE_BYTES : FULL_FILE_BYTES
  console.error(`bench: writing a ${mib(bytes)} text file`)
  const lineCount = await writeBigTextFile(file, sampleLines([path.join(context.repoRoot, 'node_modules')], 20_000, SAMPLE_LINE_MAX_CHARS), bytes)
  context.setup.push(`- read: a generated text file of ${mib(sizeOf(file))} and ${lineCount.toLocaleString('en')} lines (lines of package sources, each prefixed by its number), removed after the run.`)
  const servers: McpServer[] = []
  try {
    const ak = await connectServer(context.ak.line(workspace, 'read', context.profileDir))
    servers.push(ak)
    const notes: string[] = []
    const akRead = (offset: number): Contender => ({
      name: 'ak',
      detail: context.ak.form,
      async run() {
        const {ms, value} = await timed(() => ak.call('read', {path: 'big.txt', offset, limit: LINES}))
        if (value.isError || !hasLine(value.text, offset)) throw new Error(`read answered: ${value.text.slice(0, 200)}`)
        return {ms, facts: {'answer chars': String(value.text.length), 'last line returned': String(lastNumberedLine(value.text))}}
      },
    })
    const hasRead = ak.tools.some((t) => t.name === 'read')
    if (!hasRead) notes.push('ak offers no `read` in this build: its contenders were skipped.')
    const headContenders: Contender[] = hasRead ? [akRead(1)] : []
    const {filesystem} = context.peers
    let official: McpServer | undefined
    if (filesystem) {
      official = await connectServer(filesystemLine(filesystem, workspace))
      servers.push(official)
      const server = official
      headContenders.push({
        name: 'official filesystem',
        detail: `${filesystem.version}, read_text_file head`,
        async run() {
          const {ms, value} = await timed(() => server.call('read_text_file', {path: file, head: LINES}))
          if (value.isError || !hasLine(value.text, LINES)) throw new Error(`read_text_file answered: ${value.text.slice(0, 200)}`)
          return {ms, facts: {'answer chars': String(value.text.length)}}
        },
      })
    }
    if (context.peers.head) {
      headContenders.push({
        name: 'head',
        detail: context.peers.head.version,
        run: async () => ({ms: (await runCommand('head', ['-n', String(LINES), file])).ms}),
      })
    }
    const headSummaries = await alternate(headContenders, context.runs({full: 15, quick: 5}))
    const offsetContenders: Contender[] = hasRead ? [akRead(DEEP_OFFSET)] : []
    if (context.peers.sed) {
      const last = DEEP_OFFSET + LINES - 1
      offsetContenders.push({
        name: 'sed',
        detail: context.peers.sed.version,
        async run() {
          const result = await runCommand('sed', ['-n', `${DEEP_OFFSET},${last}p;${last}q`, file])
          if (result.lines !== LINES) throw new Error(`sed printed ${result.lines} lines`)
          return {ms: result.ms}
        },
      })
    }
    const offsetSummaries = await alternate(offsetContenders, context.runs({full: 7, quick: 3}))
    const akPeak = ak.peakRssBytes()
    const officialPeak = official?.peakRssBytes()
    notes.push(`Server peak memory (VmHWM) after both read cases: ak ${mib(akPeak)}${official ? `; official filesystem server ${mib(officialPeak)} (head case only)` : ''}.`)
    const memoryVerdict = {
      label: 'ak server memory bounded (VmHWM < 200 MiB)',
      met: akPeak === undefined || !hasRead ? undefined : akPeak < 200 * 2 ** 20,
      detail: `VmHWM ${mib(akPeak)} after reading a ${mib(bytes)} file`,
    }
    return [
      {
        id: 'read-head',
        title: `read the first ${LINES} lines of a ${mib(bytes)} file`,
        measures: 'One run is one tool call on an already-initialized server (or one spawn of `head -n 2000`, its output read by the bench).',
        target: 'no slower than the official server (median ratio ≤ 1.1); server memory bounded.',
        akName: 'ak',
        summaries: headSummaries,
        verdicts: [ratioVerdict(headSummaries, 'ak', 'official filesystem', 1.1, 'ak ÷ official filesystem ≤ 1.1'), memoryVerdict],
        notes,
      },
      {
        id: 'read-offset',
        title: `read ${LINES} lines at line ${DEEP_OFFSET.toLocaleString('en')} of the same file`,
        measures: `One run is one tool call (offset ${DEEP_OFFSET}, limit ${LINES}), or one spawn of \`sed -n '${DEEP_OFFSET},${DEEP_OFFSET + LINES - 1}p;${DEEP_OFFSET + LINES - 1}q'\`. The official server has no offset.`,
        target: '≤ 2 × sed.',
        akName: 'ak',
        summaries: offsetSummaries,
        verdicts: [ratioVerdict(offsetSummaries, 'ak', 'sed', 2, 'ak ÷ sed ≤ 2')],
        notes: [],
      },
    ]
  } finally {
    for (const server of servers) await server.close()
    rmSync(file, {force: true})
  }
}

/** The highest generated line number in an answer (ak numbers lines `cat -n` style: number, tab, text). */
function lastNumberedLine(text: string): number {
  let last = 0
  for (const match of text.matchAll(/\t(\d+) /g)) last = Math.max(last, Number(match[1]))
  return last
}
