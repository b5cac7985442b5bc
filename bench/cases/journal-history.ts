/**
 * What a long history costs: ak on a workspace whose journal already holds thousands of changes,
 * as after weeks of an agent's edits, against the same workspace with an empty journal. Start-up
 * (spawn to `initialize` answered: a server settles what a crash left before it serves) and an
 * `edit` of one line (recording a change) should not grow with the history.
 */
import {copyFileSync, mkdirSync, realpathSync, writeFileSync} from 'node:fs'
import path from 'node:path'

import {Journal} from '../../src/exec/journal/journal.js'
import {sha256} from '../../src/exec/journal/file-digest.js'
import {withEnv, type BenchContext} from '../lib/contenders.js'
import {alternate, timed, type Contender} from '../lib/measure.js'
import {connectServer, type McpServer} from '../lib/mcp.js'
import {ratioVerdict, type CaseReport} from '../lib/report.js'

/** Changes in the long journal (full run, --quick). */
const HISTORY_CHANGES = {full: 5000, quick: 1000}
/** Most the long history may cost, as a share of the same call with none. */
const TARGET_RATIO = 1.1
/** Lines of the file edited. */
const FILE_LINES = 400

const LONG = 'ak, a journal of many changes'
const EMPTY = 'ak, an empty journal'

/** Records `changes` one-line edits of small files in the journal of `workspace` kept in `state`, as ak's edits would. */
async function fillJournal(workspace: string, state: string, changes: number): Promise<void> {
  const journal = new Journal(realpathSync(workspace), {folder: path.join(state, 'ak')})
  try {
    for (let i = 0; i < changes; i++) {
      const before = Buffer.from(`file ${i % 50}, version ${i}\n`.repeat(20))
      const change = await journal.begin('edit', [
        {path: Buffer.from(`src/file-${i % 50}.ts`), operation: 'updated', before: {content: before, mode: 0o644}, after: {sha256: sha256(Buffer.from(`v${i + 1}`)), mode: 0o644}},
      ])
      await change.commit()
    }
  } finally {
    await journal.close()
  }
}

/** Measures start-up and a one-line edit with a long journal against an empty one. */
export async function journalHistoryCases(context: BenchContext): Promise<CaseReport[]> {
  const changes = context.quick ? HISTORY_CHANGES.quick : HISTORY_CHANGES.full
  const text = Array.from({length: FILE_LINES}, (_, i) => `${i + 1} a line of the file to edit\n`).join('')
  const sides = [
    {name: LONG, changes},
    {name: EMPTY, changes: 0},
  ].map((side, index) => {
    const workspace = path.join(context.tmp, `history-${index}`, 'workspace')
    const state = path.join(context.tmp, `history-${index}`, 'state')
    mkdirSync(workspace, {recursive: true})
    mkdirSync(state, {recursive: true, mode: 0o700})
    writeFileSync(path.join(workspace, 'source.txt'), text)
    return {...side, workspace, state, launcher: withEnv(context.ak, {XDG_STATE_HOME: state})}
  })
  for (const side of sides) await fillJournal(side.workspace, side.state, side.changes)
  context.setup.push(`- journal-history: a journal of ${changes} recorded one-line edits (20-line files), against an empty one; a ${FILE_LINES}-line file edited.`)

  // Start-up: a fresh server per run, whose settling of the journal comes before its answer.
  const startSummaries = await alternate(
    sides.map(
      (side): Contender => ({
        name: side.name,
        detail: `${context.ak.form}, ${side.changes} changes`,
        async run() {
          const server = await connectServer(side.launcher.line(side.workspace, 'files'), {listTools: false})
          await server.close()
          return {ms: server.initializeMs}
        },
      }),
    ),
    context.runs({full: 15, quick: 3}),
    context.warmups,
  )

  // Edit: each server toggles one line of its own copy.
  const servers: McpServer[] = []
  try {
    const contenders: Contender[] = []
    for (const side of sides) {
      copyFileSync(path.join(side.workspace, 'source.txt'), path.join(side.workspace, 'edited.txt'))
      const server = await connectServer(side.launcher.line(side.workspace, 'files'))
      servers.push(server)
      let isEdited = false
      contenders.push({
        name: side.name,
        detail: `${context.ak.form}, ${side.changes} changes`,
        async run() {
          const [from, to] = isEdited ? ['\n200 edited\n', '\n200 a line of the file to edit\n'] : ['\n200 a line of the file to edit\n', '\n200 edited\n']
          const {ms, value} = await timed(() => server.call('edit', {path: 'edited.txt', old_text: from, new_text: to}))
          if (value.isError) throw new Error(`edit answered: ${value.text.slice(0, 200)}`)
          isEdited = !isEdited
          return {ms}
        },
      })
    }
    const editSummaries = await alternate(contenders, context.runs({full: 25, quick: 5}), context.warmups)
    const target = `median ratio ≤ ${TARGET_RATIO} × the same with an empty journal.`
    return [
      {
        id: 'history-start',
        title: `start-up with a journal of ${changes} changes`,
        measures: 'One run spawns `dist/agentexec.js --level files` and waits for its answer to `initialize` (the server settles what a crash left in the journal before it answers).',
        target,
        akName: LONG,
        summaries: startSummaries,
        verdicts: [ratioVerdict(startSummaries, LONG, EMPTY, TARGET_RATIO, `${LONG} ÷ ${EMPTY} ≤ ${TARGET_RATIO}`)],
        notes: [],
      },
      {
        id: 'history-edit',
        title: `edit one line with a journal of ${changes} changes`,
        measures: 'One run is one `edit` call replacing one line (the change is recorded in the journal first).',
        target,
        akName: LONG,
        summaries: editSummaries,
        verdicts: [ratioVerdict(editSummaries, LONG, EMPTY, TARGET_RATIO, `${LONG} ÷ ${EMPTY} ≤ ${TARGET_RATIO}`)],
        notes: [],
      },
    ]
  } finally {
    for (const server of servers) await server.close()
  }
}
