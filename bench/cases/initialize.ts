/** Spawn to `initialize` answered: a cold start of each server, as an MCP client sees it. */
import {mkdirSync} from 'node:fs'
import path from 'node:path'
import {akRunJsLauncher, desktopCommanderLine, filesystemLine, type BenchContext} from '../lib/contenders.js'
import {alternate, type Contender} from '../lib/measure.js'
import {connectServer, type ServerLine} from '../lib/mcp.js'
import {ratioVerdict, type CaseReport} from '../lib/report.js'

const mib = (bytes: number | undefined): string => (bytes === undefined ? '' : `${(bytes / 2 ** 20).toFixed(0)} MiB`)

function startContender(name: string, detail: string, line: ServerLine): Contender {
  return {
    name,
    detail,
    async run() {
      const server = await connectServer(line, {listTools: false})
      const rss = server.peakRssBytes()
      await server.close()
      return {ms: server.initializeMs, facts: {'VmHWM at initialize': mib(rss)}}
    },
  }
}

/** Measures spawn → `initialize` answer for ak and both npm peers. */
export async function initializeCase(context: BenchContext): Promise<CaseReport> {
  const workspace = path.join(context.tmp, 'init-workspace')
  mkdirSync(workspace, {recursive: true})
  const contenders = [startContender('ak', context.ak.form, context.ak.line(workspace, 'read'))]
  // Shown beside the bundle for comparison; the target is judged on the form the run measures.
  if (context.ak.isBundle) contenders.push(startContender('ak via bin/run.js', 'oclif loading dist/', akRunJsLauncher(context.akCheckout).line(workspace, 'read')))
  const {filesystem, desktopCommander} = context.peers
  if (filesystem) contenders.push(startContender('official filesystem', filesystem.version, filesystemLine(filesystem, workspace)))
  if (desktopCommander) contenders.push(startContender('Desktop Commander', desktopCommander.version, desktopCommanderLine(desktopCommander, context.tmp, workspace)))
  const summaries = await alternate(contenders, context.runs({full: 15, quick: 3}), context.warmups)
  const peers = summaries.filter((s) => !s.name.startsWith('ak') && !s.error)
  const fastest = peers.sort((a, b) => a.median - b.median)[0]
  return {
    id: 'initialize',
    title: 'Spawn to initialize answered',
    measures: 'One run spawns the server (`node <entry> …`) and waits for its answer to `initialize` through the official client.',
    target: 'no slower than the fastest peer (median ratio ≤ 1.1).',
    akName: 'ak',
    summaries,
    verdicts: fastest
      ? [
          ratioVerdict(summaries, 'ak', fastest.name, 1.1, `ak (${context.ak.form}) ÷ fastest peer (${fastest.name}) ≤ 1.1`),
          ...(context.ak.isBundle ? [ratioVerdict(summaries, 'ak via bin/run.js', fastest.name, 1.1, `for comparison: ak via bin/run.js ÷ ${fastest.name} ≤ 1.1`)] : []),
        ]
      : [],
    notes: [],
  }
}
