/**
 * `npm run bench [-- --quick] [--only initialize,exec,read,edit,edit-journal,calls,patch,search,search-small,exec-output,exec-stdin,exec-flood,exec-sandbox,exec-sandbox-walk,journal-history,http] [--profile] [--keep] [--ak CHECKOUT] [--ak-base CHECKOUT] [--out FILE] [--snapshot-off NAME=VALUE]`
 *
 * Compares AgentExec with named peers in one run and writes the results (bench/RESULTS.md for a
 * full run, bench/.work/RESULTS-quick.md for --quick). A run with --only folds its cases into the
 * existing results file (see mergeResults) rather than replacing the other cases' results.
 * Never part of `npm test`.
 */
import {execFileSync} from 'node:child_process'
import {existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync} from 'node:fs'
import {loadavg, tmpdir} from 'node:os'
import path from 'node:path'
import {fileURLToPath} from 'node:url'
import {parseArgs} from 'node:util'
import {callsCases} from './cases/calls.js'
import {editCase} from './cases/edit.js'
import {editJournalCase} from './cases/edit-journal.js'
import {DEFAULT_SNAPSHOT_OFF, execCase} from './cases/exec.js'
import {execFloodCase} from './cases/exec-flood.js'
import {execOutputCase} from './cases/exec-output.js'
import {execStdinCase} from './cases/exec-stdin.js'
import {execSandboxCase} from './cases/exec-sandbox.js'
import {execSandboxWalkCase} from './cases/exec-sandbox-walk.js'
import {journalHistoryCases} from './cases/journal-history.js'
import {httpSessionsCase} from './cases/http-sessions.js'
import {initializeCase} from './cases/initialize.js'
import {patchCase} from './cases/patch.js'
import {readCases} from './cases/read.js'
import {searchCases} from './cases/search.js'
import {searchSmallFilesCase} from './cases/search-small.js'
import {akLauncher, restoreVersionManagerShims, type BenchContext} from './lib/contenders.js'
import {locatePeers} from './lib/peers.js'
import {machineDescription, mergeResults, ratioChartSvg, resultsMarkdown, type CaseReport} from './lib/report.js'

const BENCH_DIR = path.dirname(fileURLToPath(import.meta.url))
const REPO_ROOT = path.resolve(BENCH_DIR, '..')
const WORK_DIR = path.join(BENCH_DIR, '.work')

const CASES: Record<string, (context: BenchContext) => Promise<CaseReport[]>> = {
  initialize: async (context) => [await initializeCase(context)],
  exec: async (context) => [await execCase({...context, snapshotOff: flags['snapshot-off']})],
  read: readCases,
  edit: async (context) => [await editCase(context)],
  'edit-journal': async (context) => [await editJournalCase(context, flags['ak-base'] ? path.resolve(flags['ak-base']) : undefined)],
  calls: callsCases,
  patch: async (context) => [await patchCase(context)],
  search: searchCases,
  'search-small': async (context) => [await searchSmallFilesCase(context)],
  'exec-output': async (context) => [await execOutputCase(context)],
  'exec-stdin': async (context) => [await execStdinCase(context)],
  'exec-flood': async (context) => [await execFloodCase(context)],
  'exec-sandbox': async (context) => [await execSandboxCase(context)],
  'exec-sandbox-walk': async (context) => [await execSandboxWalkCase(context)],
  'journal-history': journalHistoryCases,
  http: async (context) => [await httpSessionsCase(context)],
}

const {values: flags} = parseArgs({
  options: {
    quick: {type: 'boolean', default: false},
    only: {type: 'string'},
    profile: {type: 'boolean', default: false},
    keep: {type: 'boolean', default: false},
    out: {type: 'string'},
    ak: {type: 'string'},
    // A built ak from before the journal, for edit-journal's "no journal" contender.
    'ak-base': {type: 'string'},
    // The environment setting that turns ak's shell snapshot off, for the exec case's second ak.
    'snapshot-off': {type: 'string', default: DEFAULT_SNAPSHOT_OFF},
  },
})

/** The ak build measured: this checkout unless --ak names another (built) checkout. */
const AK_CHECKOUT = flags.ak ? path.resolve(flags.ak) : REPO_ROOT
const started = new Date()
const loadAtStart = loadavg()
const quick = flags.quick === true
const selected = flags.only ? flags.only.split(',').map((s) => s.trim()) : Object.keys(CASES)
for (const name of selected) if (!CASES[name]) throw new Error(`unknown case "${name}"; the cases are ${Object.keys(CASES).join(', ')}`)

if (!existsSync(path.join(AK_CHECKOUT, 'dist', 'index.js'))) {
  console.error('bench: building ak (dist/ is missing)')
  execFileSync('npm', ['run', 'build'], {cwd: AK_CHECKOUT, stdio: 'inherit'})
}
mkdirSync(WORK_DIR, {recursive: true})
/** Cases that measure ak alone, so a run of only these installs no peer. */
const AK_ONLY_CASES = new Set(['edit-journal', 'journal-history', 'exec-output', 'exec-stdin', 'exec-flood', 'exec-sandbox', 'exec-sandbox-walk', 'http'])
const peers = locatePeers(path.join(WORK_DIR, 'peers'), !quick && selected.some((name) => !AK_ONLY_CASES.has(name)))
const tmp = mkdtempSync(path.join(tmpdir(), 'ak-bench-'))
const cleanup = (): void => {
  if (!flags.keep) rmSync(tmp, {recursive: true, force: true})
  restoreVersionManagerShims()
}
process.on('SIGINT', () => {
  cleanup()
  process.exit(130)
})
const profileDir = flags.profile ? path.join(WORK_DIR, 'profiles') : undefined
if (profileDir) mkdirSync(profileDir, {recursive: true})

const context: BenchContext = {
  quick,
  repoRoot: REPO_ROOT,
  akCheckout: AK_CHECKOUT,
  tmp,
  peers,
  ak: akLauncher(AK_CHECKOUT),
  profileDir,
  setup: [],
  warmups: quick ? 0 : 1,
  runs: (counts) => (quick ? counts.quick : counts.full),
}

const reports: CaseReport[] = []
const setup: string[] = []
try {
  for (const name of selected) {
    console.error(`bench: case ${name}`)
    const caseStarted = Date.now()
    try {
      const made = await CASES[name]!(context)
      console.error(`bench: case ${name} took ${((Date.now() - caseStarted) / 1000).toFixed(0)} s`)
      for (const report of made) {
        reports.push(report)
        for (const s of report.summaries) {
          console.error(`  ${report.id} ${s.name}: ${s.error ? `failed: ${s.error}` : `median ${s.median.toFixed(1)} ms (${s.min.toFixed(1)}–${s.max.toFixed(1)})`}`)
        }
        for (const v of report.verdicts) console.error(`  ${report.id} ${v.label}: ${v.met === undefined ? 'not measured' : v.met ? 'met' : 'MISSED'}${v.ratio === undefined ? '' : ` ${v.ratio.toFixed(2)}`}`)
      }
    } catch (error) {
      console.error(`bench: case ${name} failed: ${(error as Error).stack}`)
      setup.push(`- Case \`${name}\` failed: ${(error as Error).message.split('\n')[0]}`)
    }
  }
} finally {
  cleanup()
}

const versions = [
  `- ak: ${context.ak.form} (${AK_CHECKOUT === REPO_ROOT ? 'this checkout' : AK_CHECKOUT}, commit ${gitHead()})`,
  ...(['filesystem', 'desktopCommander', 'rg', 'grep', 'sed', 'head'] as const).map((k) => `- ${k}: ${peers[k]?.version ?? 'missing'}`),
  ...peers.notes.map((n) => `- ${n}`),
]
const outFile = flags.out ? path.resolve(flags.out) : quick ? path.join(WORK_DIR, 'RESULTS-quick.md') : path.join(BENCH_DIR, 'RESULTS.md')
const chartFile = outFile.replace(/\.md$/, '.svg')
const merging = flags.only !== undefined && existsSync(outFile)
if (merging) {
  writeFileSync(
    outFile,
    mergeResults(readFileSync(outFile, 'utf8'), {
      started,
      label: `\`npm run bench -- ${quick ? '--quick ' : ''}--only ${selected.join(',')}\` (ak ${context.ak.form}, commit ${gitHead()})`,
      only: selected,
      load: loadAtStart.map((v) => v.toFixed(2)).join(' / '),
      setup: [...setup, ...context.setup],
      cases: reports,
    }),
  )
} else {
  writeFileSync(chartFile, ratioChartSvg(reports))
  writeFileSync(
    outFile,
    resultsMarkdown({
      mode: quick ? 'quick' : 'full',
      started,
      seconds: (Date.now() - started.getTime()) / 1000,
      machine: machineDescription(loadAtStart),
      versions,
      setup: [...setup, ...context.setup],
      cases: reports,
      chartFile: path.basename(chartFile),
      analysisFile: path.dirname(outFile) === BENCH_DIR && existsSync(path.join(BENCH_DIR, 'ANALYSIS.md')) ? 'ANALYSIS.md' : undefined,
    }),
  )
}
console.error(`bench: ${merging ? 'merged these cases into' : 'wrote'} ${path.relative(process.cwd(), outFile)}${merging ? '' : ` and ${path.basename(chartFile)}`}${profileDir ? `; ak CPU profiles in ${profileDir}` : ''}`)

function gitHead(): string {
  try {
    return execFileSync('git', ['describe', '--always', '--dirty'], {cwd: AK_CHECKOUT, encoding: 'utf8'}).trim()
  } catch {
    return 'unknown'
  }
}
