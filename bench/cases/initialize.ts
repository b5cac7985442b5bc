/** Spawn to `initialize` answered: a cold start of each server, as an MCP client sees it; and its memory once idle. */
import {mkdirSync} from 'node:fs'
import path from 'node:path'
import {setTimeout as sleep} from 'node:timers/promises'
import {akBundleLauncher, akPairLauncher, akRunJsLauncher, akStandaloneLauncher, desktopCommanderLine, filesystemLine, type BenchContext} from '../lib/contenders.js'
import {alternate, median, type Contender} from '../lib/measure.js'
import {connectServer, type ServerLine} from '../lib/mcp.js'
import {ratioVerdict, type CaseReport, type Verdict} from '../lib/report.js'

const mib = (bytes: number | undefined): string => (bytes === undefined ? '' : `${(bytes / 2 ** 20).toFixed(0)} MiB`)

/** Most `dist/agentexec.js` may take, as a share of the official filesystem server's time (DESIGN §4.7). */
const STANDALONE_TARGET_RATIO = 0.55

/**
 * Most the one file may take as a share of the launcher and bundle pair it replaced: as fast,
 * with room for the noise of one run (reading and checking the bundle it carries is its cost).
 */
const ONE_FILE_TARGET_RATIO = 1.05

/** How long a server sits idle after `initialize` before its resident memory is read, in ms. */
const IDLE_SETTLE_MS = 500

const FS = 'official filesystem'
const STANDALONE = 'ak dist/agentexec.js'
const RUN_JS = 'ak via bin/run.js'
const PAIR = 'ak launcher + bundle (two files)'

/**
 * How long ak's priming start runs, in ms: past the 2 s after which a start writes the code cache
 * (bin/bundle-loader.js), as any session of an MCP client does. The timed starts are shorter.
 */
const PRIMING_RUN_MS = 3000

/** Idle resident memory per contender over the timed runs, in bytes. */
type IdleRss = Map<string, number[]>

function startContender(name: string, detail: string, line: ServerLine, idle: IdleRss): Contender {
  return {
    name,
    detail,
    async run() {
      const server = await connectServer(line, {listTools: false})
      const peak = server.peakRssBytes()
      await sleep(IDLE_SETTLE_MS)
      const rss = server.rssBytes()
      await server.close()
      if (rss !== undefined) idle.set(name, [...(idle.get(name) ?? []), rss])
      return {ms: server.initializeMs, facts: {'VmHWM at initialize': mib(peak)}}
    },
  }
}

/**
 * Measures spawn → `initialize` answer for each form of ak (the standalone server, bin/run.js,
 * the CLI bundle) and both npm peers, and each server's resident memory once idle.
 */
export async function initializeCase(context: BenchContext): Promise<CaseReport> {
  const workspace = path.join(context.tmp, 'init-workspace')
  mkdirSync(workspace, {recursive: true})
  const idle: IdleRss = new Map()
  const contenders: Contender[] = []
  const standalone = akStandaloneLauncher(context.akCheckout)
  if (standalone) contenders.push(startContender(STANDALONE, 'the AgentExec server alone, one file', standalone.line(workspace, 'read'), idle))
  // The same server as the launcher and bundle pair it was before it became one file.
  const pair = await akPairLauncher(context.akCheckout, context.tmp)
  if (pair) contenders.push(startContender(PAIR, 'the same server, a launcher loading the bundle beside it', pair.line(workspace, 'read'), idle))
  contenders.push(startContender(RUN_JS, '`ak exec serve` as installed', akRunJsLauncher(context.akCheckout).line(workspace, 'read'), idle))
  const bundle = akBundleLauncher(context.akCheckout)
  if (bundle) contenders.push(startContender(`ak (${bundle.form})`, 'the whole CLI in one file', bundle.line(workspace, 'read'), idle))
  const {filesystem, desktopCommander} = context.peers
  if (filesystem) contenders.push(startContender(FS, filesystem.version, filesystemLine(filesystem, workspace), idle))
  if (desktopCommander) contenders.push(startContender('Desktop Commander', desktopCommander.version, desktopCommanderLine(desktopCommander, context.tmp, workspace), idle))
  // One start of each form of ak that runs as long as a client's session would, so the timed
  // starts find the code cache the user's later starts find.
  for (const launcher of [standalone, pair, akRunJsLauncher(context.akCheckout)]) {
    if (!launcher) continue
    const server = await connectServer(launcher.line(workspace, 'read'), {listTools: false})
    await sleep(PRIMING_RUN_MS)
    await server.close()
  }
  const summaries = await alternate(contenders, context.runs({full: 15, quick: 3}), context.warmups)
  for (const summary of summaries) {
    const values = idle.get(summary.name)
    if (values?.length) summary.facts[`VmRSS idle ${IDLE_SETTLE_MS} ms after`] = mib(median(values))
  }
  const verdicts: Verdict[] = []
  if (filesystem) {
    if (standalone) verdicts.push(ratioVerdict(summaries, STANDALONE, FS, STANDALONE_TARGET_RATIO, `${STANDALONE} ÷ ${FS} ≤ ${STANDALONE_TARGET_RATIO}`))
    if (standalone && pair) verdicts.push(ratioVerdict(summaries, STANDALONE, PAIR, ONE_FILE_TARGET_RATIO, `${STANDALONE} ÷ ${PAIR} ≤ ${ONE_FILE_TARGET_RATIO}`))
    verdicts.push(ratioVerdict(summaries, RUN_JS, FS, 1, `${RUN_JS} ÷ ${FS} ≤ 1.0`))
    const peerIdle = idle.get(FS)
    for (const name of [STANDALONE, RUN_JS]) {
      const own = idle.get(name)
      if (!own?.length || !peerIdle?.length) continue
      verdicts.push({
        label: `${name}: idle VmRSS no higher than the ${FS} server's`,
        met: median(own) <= median(peerIdle),
        detail: `${mib(median(own))} against ${mib(median(peerIdle))} (medians, ${IDLE_SETTLE_MS} ms after initialize)`,
      })
    }
  }
  return {
    id: 'initialize',
    title: 'Spawn to initialize answered',
    measures: `One run spawns the server (\`node <entry> …\`) and waits for its answer to \`initialize\` through the official client; ${IDLE_SETTLE_MS} ms later it reads the server's resident memory (VmRSS). Before the timed runs, each form of ak is started once for ${PRIMING_RUN_MS / 1000} s, as a client's session would run it, so its code cache is written (a start writes one after 2 s).`,
    target: `${STANDALONE} ≤ ${STANDALONE_TARGET_RATIO} × the official filesystem server and ≤ ${ONE_FILE_TARGET_RATIO} × the launcher and bundle pair it replaced, ${RUN_JS} ≤ 1.0 ×, and idle memory no higher than the filesystem server's.`,
    akName: standalone ? STANDALONE : RUN_JS,
    summaries,
    verdicts,
    notes: [],
  }
}
