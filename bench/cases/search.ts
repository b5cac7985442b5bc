/**
 * `search` over a corpus of real package sources with `.gitignore` rules: literals (one that
 * occurs, one that occurs nowhere so nothing can stop early) and regular expressions, against
 * ripgrep, grep and Desktop Commander's search.
 */
import path from 'node:path'
import {desktopCommanderLine, runCommand, type BenchContext} from '../lib/contenders.js'
import {buildSearchCorpus, CORPUS_GITIGNORE, NESTED_GITIGNORE, type CorpusFacts} from '../lib/corpus.js'
import {alternate, timed, type Contender} from '../lib/measure.js'
import {connectServer, type McpServer} from '../lib/mcp.js'
import {ratioVerdict, type CaseReport, type Verdict} from '../lib/report.js'

/** A search every contender runs. `limit` is the target for ak ÷ ripgrep. */
interface SearchPattern {
  id: string
  title: string
  query: string
  regex: boolean
  limit: number
}

export const SEARCH_PATTERNS: SearchPattern[] = [
  {id: 'search-literal', title: 'a literal that occurs', query: 'Symbol.asyncIterator', regex: false, limit: 1.2},
  {id: 'search-literal-nowhere', title: 'a literal that occurs nowhere', query: 'qz_no_such_text_4d1c9e', regex: false, limit: 1.2},
  {id: 'search-alternation', title: 'regex: an alternation', query: 'ECONNREFUSED|EADDRINUSE|ETIMEDOUT', regex: true, limit: 1.2},
  {id: 'search-class-plus', title: 'regex: a character class with +', query: 'Deprecat[a-z]+Warning', regex: true, limit: 1.2},
  {id: 'search-anchored', title: 'regex: an anchored pattern', query: '^export default class [A-Z]', regex: true, limit: 1.2},
]

/** ripgrep's flags for ak's rules: hidden files searched, .gitignore honoured without git, nothing outside. */
export const RG_FLAGS = ['--hidden', '--no-require-git', '--no-ignore-parent', '--no-ignore-global', '-g', '!node_modules', '-n', '--no-heading', '--color', 'never']

/** The full corpus: 3 copies at least, so the scaling case compares 3 copies with 1 (the target is 3.3 ×). */
const FULL_CORPUS = {minFiles: 50_000, minBytes: 500 * 2 ** 20, minCopies: 3}
const QUICK_CORPUS = {minFiles: 0, minBytes: 0, maxFilesPerCopy: 5000}
/** A result cap large enough that no pattern here reaches it: ak's largest `max_results` (SEARCH_MAX_RESULTS). */
const AK_RESULT_CAP = 10_000

const mib = (bytes: number): string => `${(bytes / 2 ** 20).toFixed(0)} MiB`

/** `path:line` keys of `path:line:text` lines, paths without a leading `./`. */
function matchKeys(output: string): Set<string> {
  const keys = new Set<string>()
  for (const line of output.split('\n')) {
    const match = /^(?:\.\/)?([^:\n]+):(\d+):/.exec(line)
    if (match) keys.add(`${match[1]}:${match[2]}`)
  }
  return keys
}

function sameMatches(ak: Set<string>, rg: Set<string>): {same: boolean; detail: string} {
  const missing = [...rg].filter((k) => !ak.has(k))
  const extra = [...ak].filter((k) => !rg.has(k))
  const same = missing.length === 0 && extra.length === 0
  const show = (list: string[]): string => list.slice(0, 3).join(', ')
  return {
    same,
    detail: same
      ? `${rg.size} matches, the same lines`
      : `ak ${ak.size} vs ripgrep ${rg.size}; ${missing.length} missing (${show(missing)}), ${extra.length} extra (${show(extra)})`,
  }
}

/** Builds the corpus and measures every pattern. */
export async function searchCases(context: BenchContext): Promise<CaseReport[]> {
  const root = path.join(context.tmp, 'corpus')
  const sources = [path.join(context.repoRoot, 'node_modules')]
  if (!context.quick) sources.push(path.join(context.repoRoot, 'bench', '.work', 'peers', 'node_modules'))
  console.error('bench: building the search corpus')
  const corpus: CorpusFacts = buildSearchCorpus(root, sources, context.quick ? QUICK_CORPUS : FULL_CORPUS)
  const visible = context.peers.rg ? (await runCommand(context.peers.rg.entry, ['--files', ...RG_FLAGS.slice(0, 6)], {cwd: root})).lines : undefined
  context.setup.push(
    `- search: a corpus of ${corpus.files.toLocaleString('en')} files, ${mib(corpus.bytes)} (${corpus.copies} cop${corpus.copies === 1 ? 'y' : 'ies'} of package sources from ${sources.map((s) => path.relative(context.repoRoot, s)).join(' and ')}, files over 4 MiB left out, \`node_modules\` renamed \`node_pkgs\`), a git repository with a root \`.gitignore\` (\`${CORPUS_GITIGNORE.trim().split('\n').slice(1).join(' ')}\`) and a nested one (\`${NESTED_GITIGNORE.trim().split('\n').join(' ')}\`)${visible === undefined ? '' : `; ${visible.toLocaleString('en')} files remain after the ignore rules`}. Removed after the run.`,
  )

  if (context.peers.desktopCommander && context.peers.rg) {
    context.setup.push(`- search: Desktop Commander is installed without its optional bundled ripgrep, so it runs the same ${context.peers.rg.entry} (${context.peers.rg.version}) as the ripgrep contender, found on PATH; the corpus is a git repository, so its ripgrep honours the .gitignore files too.`)
  }
  const servers: McpServer[] = []
  try {
    const ak = await connectServer(context.ak.line(root, 'read', context.profileDir))
    servers.push(ak)
    const searchTool = ak.tools.find((t) => t.name === 'search')
    const properties = (searchTool?.inputSchema.properties ?? {}) as Record<string, {maximum?: number}>
    const capName = Object.keys(properties).find((k) => /max|limit|cap/i.test(k))
    // The largest cap ak accepts, so that its cap ends no search early (checked against ripgrep's matches).
    const capValue = Math.min(AK_RESULT_CAP, capName ? (properties[capName]?.maximum ?? AK_RESULT_CAP) : AK_RESULT_CAP)
    const dc = context.peers.desktopCommander ? await connectServer(desktopCommanderLine(context.peers.desktopCommander, context.tmp, root)) : undefined
    if (dc) servers.push(dc)
    const reports: CaseReport[] = []
    for (const pattern of SEARCH_PATTERNS) {
      console.error(`bench: ${pattern.id}`)
      let akKeys: Set<string> | undefined
      let akStoppedAtSize = false
      let rgKeys: Set<string> | undefined
      const contenders: Contender[] = []
      const notes: string[] = []
      if (searchTool) {
        contenders.push({
          name: 'ak',
          detail: `${context.ak.form}, search via MCP`,
          async run() {
            const args: Record<string, unknown> = {query: pattern.query, path: '.', regex: pattern.regex}
            if (capName) args[capName] = capValue
            const {ms, value} = await timed(() => ak.call('search', args))
            if (value.isError) throw new Error(`search answered: ${value.text.slice(0, 200)}`)
            akKeys = matchKeys(value.text)
            akStoppedAtSize = /an answer holds at most \d+ characters/.test(value.text)
            return {ms, facts: {matches: String(akKeys.size)}}
          },
        })
      } else notes.push('ak offers no `search` in this build: its contender was skipped.')
      const {rg, grep} = context.peers
      if (rg) {
        contenders.push({
          name: 'ripgrep',
          detail: `${rg.version}, rg ${pattern.regex ? '' : '-F '}${RG_FLAGS.slice(0, 6).join(' ')}`,
          async run() {
            const result = await runCommand(rg.entry, [...(pattern.regex ? [] : ['-F']), ...RG_FLAGS, '--', pattern.query], {cwd: root, keepBytes: 64 * 2 ** 20})
            if (result.status !== 0 && result.status !== 1) throw new Error(`rg exited ${result.status}`)
            rgKeys = matchKeys(result.stdout)
            return {ms: result.ms, facts: {matches: String(rgKeys.size)}}
          },
        })
      }
      if (grep) {
        contenders.push({
          name: 'grep',
          detail: `${grep.version}, grep -rn${pattern.regex ? 'E' : 'F'} --exclude-dir=.git (no ignore rules)`,
          async run() {
            const result = await runCommand(grep.entry, [pattern.regex ? '-rnE' : '-rnF', '--exclude-dir=.git', '--', pattern.query, '.'], {cwd: root})
            if (result.status !== 0 && result.status !== 1) throw new Error(`grep exited ${result.status}`)
            return {ms: result.ms, facts: {matches: String(result.lines)}}
          },
        })
      }
      if (dc) {
        contenders.push({
          name: 'Desktop Commander',
          detail: `${context.peers.desktopCommander!.version}, start_search + get_more_search_results`,
          async run() {
            const {ms, value} = await timed(async () => {
              const start = await dc.call('start_search', {path: root, pattern: pattern.query, searchType: 'content', literalSearch: !pattern.regex, ignoreCase: false, includeHidden: true, contextLines: 0})
              if (start.isError) throw new Error(`start_search answered: ${start.text.slice(0, 200)}`)
              const sessionId = /session: (\S+)/.exec(start.text)?.[1]
              if (/Status: (COMPLETED|Complete)/i.test(start.text) || !sessionId) return start.text
              for (;;) {
                const more = await dc.call('get_more_search_results', {sessionId, offset: 0, length: 1})
                if (more.isError) throw new Error(`get_more_search_results answered: ${more.text.slice(0, 200)}`)
                if (/Status: COMPLETED/.test(more.text)) return more.text
                await new Promise((resolve) => setTimeout(resolve, 2))
              }
            })
            const matches = /\((\d+) matches\)/.exec(value)?.[1] ?? /Total results(?: found)?: (\d+)/.exec(value)?.[1] ?? '?'
            return {ms, facts: {matches}}
          },
        })
      }
      const summaries = await alternate(contenders, context.runs({full: 5, quick: 3}), context.warmups)
      const verdicts: Verdict[] = [
        ratioVerdict(summaries, 'ak', 'ripgrep', pattern.limit, `ak ÷ ripgrep ≤ ${pattern.limit}`),
        ratioVerdict(summaries, 'ak', 'grep', 1, 'ak faster than grep'),
      ]
      if (akKeys && rgKeys) {
        // An answer that stopped at its size limit holds the first matches only: the files of
        // ripgrep's other matches are searched one by one, each on its own, to check ak finds those too.
        let past = 0
        if (akStoppedAtSize) {
          const shown = akKeys.size
          akKeys = new Set([...akKeys, ...(await matchesPastTheCut(ak, pattern, akKeys, rgKeys, capName, capValue))])
          past = akKeys.size - shown
        }
        const {same, detail} = sameMatches(akKeys, rgKeys)
        const how = past > 0 ? `; ${akKeys.size - past} in ak's answer, which stopped at its size limit, and ${past} found by searching the files of the rest one by one` : ''
        verdicts.push({label: 'ak finds the same matches as ripgrep', met: same, detail: `${detail}${how}`})
      }
      reports.push({
        id: pattern.id,
        title: `search, ${pattern.title}: \`${pattern.query}\``,
        measures: 'One run is one search over the whole corpus: one tool call for ak, one spawn for ripgrep and grep (their output read by the bench), and start_search polled every 2 ms until complete for Desktop Commander.',
        target: `≤ ${pattern.limit} × ripgrep, faster than grep${pattern.regex ? '' : ', the same matches as ripgrep'}.`,
        akName: 'ak',
        summaries,
        verdicts,
        notes,
      })
    }
    if (corpus.copies > 1) reports.push(await scalingCase(context, sources, corpus, ak, capName, capValue, servers))
    return reports
  } finally {
    for (const server of servers) await server.close()
  }
}

/**
 * The `path:line` keys ak finds in the files of ripgrep's matches missing from `shown` (an answer
 * cut at its size limit), one search of each such file.
 */
async function matchesPastTheCut(ak: McpServer, pattern: SearchPattern, shown: Set<string>, rg: Set<string>, capName: string | undefined, capValue: number): Promise<Set<string>> {
  const files = new Set([...rg].filter((key) => !shown.has(key)).map((key) => key.slice(0, key.lastIndexOf(':'))))
  const found = new Set<string>()
  for (const file of files) {
    const args: Record<string, unknown> = {query: pattern.query, path: file, regex: pattern.regex}
    if (capName) args[capName] = capValue
    const answer = await ak.call('search', args)
    if (answer.isError) throw new Error(`search of ${file} answered: ${answer.text.slice(0, 200)}`)
    for (const key of matchKeys(answer.text)) found.add(key)
  }
  return found
}

/** The absent literal of SEARCH_PATTERNS: every file is read, nothing stops early. */
const SCALING_QUERY = 'qz_no_such_text_4d1c9e'

/** How much more N copies may cost than one, per copy: 3 copies at most 3.3 × one copy. */
const SCALING_SLACK = 1.1

/**
 * How search time grows with the corpus: the absent literal over one copy of the package
 * sources (a corpus of its own, same ignore rules) against all copies of the main corpus.
 */
async function scalingCase(
  context: BenchContext,
  sources: string[],
  corpus: CorpusFacts,
  ak: McpServer,
  capName: string | undefined,
  capValue: number,
  servers: McpServer[],
): Promise<CaseReport> {
  console.error('bench: search-scaling (building a one-copy corpus)')
  const oneRoot = path.join(context.tmp, 'corpus-one-copy')
  const one = buildSearchCorpus(oneRoot, sources, {minFiles: 0, minBytes: 0})
  const akOne = await connectServer(context.ak.line(oneRoot, 'read', context.profileDir))
  servers.push(akOne)
  const search = (server: McpServer) => async () => {
    const args: Record<string, unknown> = {query: SCALING_QUERY, path: '.', regex: false}
    if (capName) args[capName] = capValue
    const {ms, value} = await timed(() => server.call('search', args))
    if (value.isError) throw new Error(`search answered: ${value.text.slice(0, 200)}`)
    return {ms, facts: {searched: /(\d+) files? searched/.exec(value.text)?.[1] ?? '?'}}
  }
  const many = `ak, ${corpus.copies} copies`
  const contenders: Contender[] = [
    {name: 'ak, 1 copy', detail: `${one.files.toLocaleString('en')} files`, run: search(akOne)},
    {name: many, detail: `${corpus.files.toLocaleString('en')} files`, run: search(ak)},
  ]
  const summaries = await alternate(contenders, context.runs({full: 5, quick: 3}), context.warmups)
  const limit = Number((corpus.copies * SCALING_SLACK).toFixed(2))
  return {
    id: 'search-scaling',
    title: `search, how time grows from 1 to ${corpus.copies} copies of the corpus: \`${SCALING_QUERY}\``,
    measures: 'One run is one search (one tool call) over one copy of the package sources, or over the whole corpus of copies, alternated.',
    target: `${corpus.copies} copies cost at most ${limit} × one copy.`,
    akName: many,
    summaries,
    verdicts: [ratioVerdict(summaries, many, 'ak, 1 copy', limit, `${corpus.copies} copies ÷ 1 copy ≤ ${limit}`)],
    notes: ['The copies differ in what the ignore rules leave (a nested `.gitignore` in the first, `/copy-2/**/test/` in the second), so files searched do not grow exactly with the copies.'],
  }
}
