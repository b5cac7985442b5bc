/**
 * What the journal of changes adds to an `edit` of a 50 MB file: ak recording every change (its
 * default), against ak keeping no history (`--journal-max-mib 0`, which still records the change
 * while it is made), and, given `--ak-base CHECKOUT` (a built ak from before the journal), against
 * an ak with no journal at all.
 */
import {copyFileSync, mkdirSync} from 'node:fs'
import path from 'node:path'
import {akLauncher, type AkLauncher, type BenchContext} from '../lib/contenders.js'
import {sizeOf, writeEditableTextFile} from '../lib/corpus.js'
import {alternate, timed, type Contender} from '../lib/measure.js'
import {connectServer, type McpServer, type ServerLine} from '../lib/mcp.js'
import {ratioVerdict, type CaseReport} from '../lib/report.js'

const FULL_FILE_BYTES = 50 * 2 ** 20
const QUICK_FILE_BYTES = 8 * 2 ** 20

const mib = (bytes: number | undefined): string => (bytes === undefined ? '?' : `${(bytes / 2 ** 20).toFixed(0)} MiB`)

/** A server line with `extra` arguments and a state folder of its own (so the run leaves no journal behind). */
function lineWith(launcher: AkLauncher, workspace: string, state: string, extra: string[] = []): ServerLine {
  const line = launcher.line(workspace, 'files')
  return {...line, args: [...line.args, ...extra], env: {...line.env, XDG_STATE_HOME: state}}
}

/**
 * Each contender edits its own copy of the file: every run replaces a counter on the middle line by
 * the next one, so each edit writes content the journal has not seen (no stored copy is reused).
 * @param baseCheckout a built ak checkout from before the journal, for the "no journal" contender
 */
export async function editJournalCase(context: BenchContext, baseCheckout?: string): Promise<CaseReport> {
  const workspace = path.join(context.tmp, 'edit-journal-workspace')
  mkdirSync(workspace, {recursive: true})
  const original = path.join(workspace, 'original.txt')
  const fileBytes = context.quick ? QUICK_FILE_BYTES : FULL_FILE_BYTES
  const {middle, middleLine: line} = await writeEditableTextFile(original, context.repoRoot, fileBytes)
  context.setup.push(`- edit-journal: a generated text file of ${mib(sizeOf(original))}; line ${middle} gets a new counter at each edit.`)

  const servers: McpServer[] = []
  const contenders: Contender[] = []
  const counting = (server: McpServer, name: string): Contender['run'] => {
    copyFileSync(original, path.join(workspace, name))
    let counter = 0
    return async () => {
      const from = counter === 0 ? line : `${line} // edit ${counter}`
      const to = `${line} // edit ${counter + 1}`
      const {ms, value} = await timed(() => server.call('edit', {path: name, old_text: from, new_text: to}))
      if (value.isError) throw new Error(`edit answered: ${value.text.slice(0, 200)}`)
      counter++
      return {ms}
    }
  }
  try {
    const states = path.join(context.tmp, 'edit-journal-state')
    const kinds: Array<[string, string, ServerLine]> = [
      ['ak, journal', `${context.ak.form}, default journal`, lineWith(context.ak, workspace, `${states}-on`)],
      ['ak, no history', `${context.ak.form} --journal-max-mib 0`, lineWith(context.ak, workspace, `${states}-off`, ['--journal-max-mib', '0'])],
    ]
    if (baseCheckout) {
      const base = akLauncher(baseCheckout)
      kinds.push(['ak, no journal', `${base.form} of ${baseCheckout}`, lineWith(base, workspace, `${states}-base`)])
    }
    for (const [name, detail, serverLine] of kinds) {
      const server = await connectServer(serverLine)
      servers.push(server)
      contenders.push({name, detail, run: counting(server, `${name.replace(/\W+/g, '-')}.txt`)})
    }
    const summaries = await alternate(contenders, context.runs({full: 7, quick: 3}))
    const verdicts = [ratioVerdict(summaries, 'ak, journal', 'ak, no history', 1.2, 'journal ÷ no history ≤ 1.2')]
    if (baseCheckout) verdicts.push(ratioVerdict(summaries, 'ak, journal', 'ak, no journal', 2.5, 'journal ÷ no journal ≤ 2.5'))
    return {
      id: 'edit-journal',
      title: `edit one line in a ${mib(fileBytes)} file, with and without the journal`,
      measures:
        'One run is one tool call replacing one line on an already-initialized server. With the journal, the file\'s content before is written to the journal and synced before the file is replaced; with no history, the same record is written and dropped once the edit is made.',
      target: 'the journal costs at most one more write of the file: ≤ 2.5 × an edit with no journal, ≤ 1.2 × an edit keeping no history.',
      akName: 'ak, journal',
      summaries,
      verdicts,
      notes: baseCheckout ? [] : ['No --ak-base checkout was given: the "no journal" contender (ak from before the journal) was skipped.'],
    }
  } finally {
    for (const server of servers) await server.close()
  }
}
