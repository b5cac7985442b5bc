import {expect} from 'chai'
import {mkdir, mkdtemp, readFile, readdir, realpath, rm, writeFile} from 'node:fs/promises'
import {tmpdir} from 'node:os'
import path from 'node:path'
import {setTimeout as sleep} from 'node:timers/promises'

import {CLIENT_LINES, type TestClient, connectStdio} from '../helpers/clients.js'

/** Files the crashed patch changes. */
const FILE_COUNT = 40
/** Times the server is killed in the middle of a patch. */
const TRIALS = 12
/** Lines of each file (about 100 KB each), so that writing them takes a while. */
const LINES_PER_FILE = 2000

const nameOf = (index: number) => `f${String(index).padStart(2, '0')}.txt`
const bodyOf = (index: number, marker: string) =>
  Array.from({length: LINES_PER_FILE}, (_, line) => (line === 1000 ? `${marker} ${index}` : `file ${index} line ${line} ${'.'.repeat(30)}`)).join('\n') + '\n'

/** The patch: every file updated at one line, the odd ones also moved into dest/. */
function crashPatch(): string {
  const lines = ['*** Begin Patch']
  for (let index = 0; index < FILE_COUNT; index++) {
    lines.push(`*** Update File: ${nameOf(index)}`)
    if (index % 2 === 1) lines.push(`*** Move to: dest/${nameOf(index)}`)
    lines.push('@@', `-BEFORE ${index}`, `+AFTER ${index}`)
  }
  lines.push('*** End Patch')
  return lines.join('\n')
}

/** Every file below `dir` (relative path → content), folders left out. */
async function filesOf(dir: string): Promise<Record<string, string>> {
  const found: Record<string, string> = {}
  for (const entry of await readdir(dir, {recursive: true, withFileTypes: true})) {
    if (!entry.isFile()) continue
    const full = path.join(entry.parentPath, entry.name)
    found[path.relative(dir, full)] = await readFile(full, 'utf8')
  }
  return found
}

/** Whether two listings hold the same files with the same contents. */
function sameFiles(one: Record<string, string>, other: Record<string, string>): boolean {
  const names = Object.keys(one).sort()
  return names.join('\n') === Object.keys(other).sort().join('\n') && names.every((name) => one[name] === other[name])
}

describe(`edit's patch when the server is killed in the middle, client ${CLIENT_LINES[1]}`, function () {
  this.timeout(600_000)
  let base: string
  let ws: string

  before(async () => {
    base = await realpath(await mkdtemp(path.join(tmpdir(), 'ak-patch-crash-')))
    ws = path.join(base, 'ws')
  })

  after(async () => {
    await rm(base, {recursive: true, force: true})
  })

  it('never leaves a partly applied patch or a temporary file once the next server has started', async () => {
    const before: Record<string, string> = {}
    const after: Record<string, string> = {}
    for (let index = 0; index < FILE_COUNT; index++) {
      before[nameOf(index)] = bodyOf(index, 'BEFORE')
      after[index % 2 === 1 ? path.join('dest', nameOf(index)) : nameOf(index)] = bodyOf(index, 'AFTER')
    }
    const seen = {before: 0, after: 0}
    /** Sets the workspace up as before the patch. */
    const reset = async () => {
      await rm(ws, {recursive: true, force: true})
      await mkdir(path.join(ws, 'dest'), {recursive: true})
      for (const [name, content] of Object.entries(before)) await writeFile(path.join(ws, name), content)
    }
    /** Starts the patch; resolves once its commit shows on disk (a temporary file or a lock beside the files), or it answered. */
    const startPatch = async (server: TestClient) => {
      let hasAnswered = false
      const answered = server
        .call('edit', {patch: crashPatch()})
        .catch(() => undefined)
        .finally(() => (hasAnswered = true))
      for (;;) {
        const names = [...(await readdir(ws)), ...(await readdir(path.join(ws, 'dest')))]
        if (hasAnswered || names.some((name) => name.startsWith('.ak-edit-'))) break
        await sleep(1)
      }
      return {answered}
    }
    // How long a commit takes here, from its first temporary file to the answer: the kills are spread over it.
    await reset()
    const timing = await connectStdio(CLIENT_LINES[1], ['exec', 'serve', '--workspace', ws, '--level', 'files', '--quiet'])
    const started = Date.now()
    await (await startPatch(timing)).answered
    const commitMs = Date.now() - started
    await timing.close()
    expect(await filesOf(ws)).to.deep.equal(after)
    for (let trial = 0; trial < TRIALS; trial++) {
      await reset()
      const server = await connectStdio(CLIENT_LINES[1], ['exec', 'serve', '--workspace', ws, '--level', 'files', '--quiet'])
      const {answered} = await startPatch(server)
      await sleep(Math.round((commitMs * trial) / (TRIALS - 1)))
      process.kill(server.pid, 'SIGKILL')
      await answered
      await server.close().catch(() => undefined)
      // The next server on the workspace: once it answers, it has settled the patch.
      const next: TestClient = await connectStdio(CLIENT_LINES[1], ['exec', 'serve', '--workspace', ws, '--level', 'files', '--quiet'])
      try {
        expect((await next.call('list', {path: '.'})).isError).to.equal(false)
        const files = await filesOf(ws)
        const leftovers = Object.keys(files).filter((name) => path.basename(name).startsWith('.ak-edit-'))
        expect(leftovers, `trial ${trial}: temporary or lock files left`).to.deep.equal([])
        const isBefore = sameFiles(files, before)
        const isAfter = sameFiles(files, after)
        expect(isBefore || isAfter, `trial ${trial}: the workspace is neither as before the patch nor as after it: ${Object.keys(files).sort().join(', ')}`).to.equal(true)
        seen[isBefore ? 'before' : 'after']++
      } finally {
        await next.close()
      }
    }
    console.log(`      a commit took ${commitMs} ms; after ${TRIALS} kills spread over it: ${seen.before} workspaces as before the patch, ${seen.after} as after it`)
  })
})

describe(`edit's patch from two servers on one workspace, client ${CLIENT_LINES[0]}`, function () {
  this.timeout(300_000)
  let ws: string
  let clients: TestClient[]

  before(async () => {
    ws = await realpath(await mkdtemp(path.join(tmpdir(), 'ak-patch-two-')))
    clients = await Promise.all([0, 1].map(() => connectStdio(CLIENT_LINES[0], ['exec', 'serve', '--workspace', ws, '--level', 'files', '--quiet'])))
  })

  after(async () => {
    await Promise.all(clients.map((client) => client.close()))
    await rm(ws, {recursive: true, force: true})
  })

  it('loses no change it answered as done, and applies a refused patch not even in part', async () => {
    const count = 120
    await writeFile(path.join(ws, 'lines.txt'), Array.from({length: count}, (_, i) => `L${i}\n`).join(''))
    // Each patch changes one line of the shared file and adds a file of its own; the two servers send them all at once.
    const answers = await Promise.all(
      Array.from({length: count}, (_, i) =>
        clients[i % 2]!.call('edit', {patch: ['*** Begin Patch', '*** Update File: lines.txt', '@@', `-L${i}`, `+E${i}`, `*** Add File: own-${i}.txt`, `+${i}`, '*** End Patch'].join('\n')}).then(
          (answer) => ({i, answer}),
        ),
      ),
    )
    const final = (await readFile(path.join(ws, 'lines.txt'), 'utf8')).split('\n')
    const names = await readdir(ws)
    const lost = answers.filter(({i, answer}) => !answer.isError && (final[i] !== `E${i}` || !names.includes(`own-${i}.txt`))).map(({i}) => i)
    expect(lost, 'patches answered as done but missing from the files').to.deep.equal([])
    const partial = answers.filter(({i, answer}) => answer.isError && (final[i] !== `L${i}` || names.includes(`own-${i}.txt`))).map(({i}) => i)
    expect(partial, 'patches refused but applied in part').to.deep.equal([])
    for (const {answer} of answers.filter(({answer}) => answer.isError)) expect(answer.text).to.match(/changed on disk|Another process has been editing/)
    expect(answers.some(({answer}) => !answer.isError)).to.equal(true)
  })
})
