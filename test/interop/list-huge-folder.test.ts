import {expect} from 'chai'
import {closeSync, mkdirSync, openSync, readFileSync, writeFileSync} from 'node:fs'
import {mkdtemp, realpath, rm, writeFile} from 'node:fs/promises'
import {tmpdir} from 'node:os'
import path from 'node:path'
import {performance} from 'node:perf_hooks'

import {CLIENT_LINES, type TestClient, connectStdio} from '../helpers/clients.js'

/** Entries of the huge folder, and the bounds issue 38 sets for listing it (DESIGN §7). */
const HUGE_FOLDER_ENTRIES = 300_000
const MAX_GROWTH_BYTES = 96 * 2 ** 20
const MAX_READ_WAIT_MS = 250

/** A field of /proc/<pid>/status in bytes (Linux). */
function statusBytes(pid: number, field: 'VmRSS' | 'VmHWM'): number {
  const match = new RegExp(`^${field}:\\s+(\\d+) kB`, 'm').exec(readFileSync(`/proc/${pid}/status`, 'utf8'))
  return Number(match![1]) * 1024
}

/**
 * Sets the peak resident memory of `pid` back to its resident memory now (`clear_refs` 5, Linux
 * 4.0+), so a later VmHWM is the peak from here on; false when this process may not.
 */
function resetPeak(pid: number): boolean {
  try {
    writeFileSync(`/proc/${pid}/clear_refs`, '5')
    return true
  } catch {
    return false
  }
}

// One client line: what is tested is the server's work for a huge folder, not the protocol.
describe(`list of a folder of ${HUGE_FOLDER_ENTRIES} entries through ak exec serve, client ${CLIENT_LINES[0]}`, function () {
  this.timeout(600_000)
  let ws: string
  let client: TestClient

  before(async function () {
    if (process.platform !== 'linux') this.skip() // memory is read from /proc
    ws = await realpath(await mkdtemp(path.join(tmpdir(), 'ak-list-huge-')))
    const huge = path.join(ws, 'huge')
    mkdirSync(huge)
    for (let i = 0; i < HUGE_FOLDER_ENTRIES; i++) closeSync(openSync(path.join(huge, `entry-${String(i).padStart(7, '0')}-of-a-huge-folder.txt`), 'w'))
    await writeFile(path.join(ws, 'small.txt'), 'one line\nanother\n')
    client = await connectStdio(CLIENT_LINES[0], ['exec', 'serve', '--workspace', ws, '--level', 'read', '--quiet'])
  })

  after(async () => {
    await client?.close()
    if (ws) await rm(ws, {recursive: true, force: true})
  })

  it(`grows the server by at most ${MAX_GROWTH_BYTES / 2 ** 20} MiB and keeps a parallel one-line read under ${MAX_READ_WAIT_MS} ms (more than the same read waits without it)`, async () => {
    const readOneLine = async (): Promise<number> => {
      const started = performance.now()
      const answer = await client.call('read', {path: 'small.txt', limit: 1})
      expect(answer.text).to.contain('one line')
      return performance.now() - started
    }
    // Warm the code paths, then take the same read's worst wait on this machine now, without the list.
    await client.call('list', {path: '.'})
    const quiet: number[] = []
    for (let i = 0; i < 10; i++) quiet.push(await readOneLine())
    const quietWorst = Math.max(...quiet)

    const canReset = resetPeak(client.pid)
    const baseline = statusBytes(client.pid, 'VmRSS')
    let sampledPeak = baseline
    let listDone = false
    const listed = client.call('list', {path: 'huge', offset: 1, limit: 1000}).finally(() => (listDone = true))
    const waits: number[] = []
    while (!listDone) {
      waits.push(await readOneLine())
      sampledPeak = Math.max(sampledPeak, statusBytes(client.pid, 'VmRSS'))
    }
    const answer = await listed
    const peak = Math.max(sampledPeak, canReset ? statusBytes(client.pid, 'VmHWM') : 0)

    expect(answer.isError, answer.text).to.equal(false)
    expect(answer.text.split('\n')[0]).to.equal(`huge/ (${HUGE_FOLDER_ENTRIES} entries; 1 to 1000 shown)`)
    expect(answer.text.split('\n')[1]).to.equal('entry-0000000-of-a-huge-folder.txt  0 bytes')
    expect(answer.structured).to.deep.include({total: HUGE_FOLDER_ENTRIES, first: 1, last: 1000, next_offset: 1001})
    expect(waits.length, 'reads answered while the list ran').to.be.at.least(2)
    const worst = Math.max(...waits)
    expect(worst, `worst read during the list ${worst.toFixed(0)} ms; without it ${quietWorst.toFixed(0)} ms`).to.be.below(MAX_READ_WAIT_MS + quietWorst)
    const growth = peak - baseline
    expect(growth, `server grew by ${(growth / 2 ** 20).toFixed(1)} MiB`).to.be.at.most(MAX_GROWTH_BYTES)
  })

  it(`finds files by glob alone (search without a query) growing the server by at most ${MAX_GROWTH_BYTES / 2 ** 20} MiB, in the order a full sort gives`, async () => {
    const canReset = resetPeak(client.pid)
    const baseline = statusBytes(client.pid, 'VmRSS')
    let sampledPeak = baseline
    let done = false
    const searches = (async () => {
      const first = await client.call('search', {glob: '*-of-a-huge-folder.txt', path: 'huge', max_results: 2000})
      const last = await client.call('search', {glob: '*-0299999-*', path: 'huge'})
      return {first, last}
    })().finally(() => (done = true))
    while (!done) {
      sampledPeak = Math.max(sampledPeak, statusBytes(client.pid, 'VmRSS'))
      await new Promise((resolve) => setTimeout(resolve, 20))
    }
    const {first, last} = await searches
    const peak = Math.max(sampledPeak, canReset ? statusBytes(client.pid, 'VmHWM') : 0)
    expect(first.isError, first.text).to.equal(false)
    const paths = first.structured?.paths as string[]
    expect(paths.length).to.equal(2000)
    expect(paths.slice(0, 2)).to.deep.equal(['huge/entry-0000000-of-a-huge-folder.txt', 'huge/entry-0000001-of-a-huge-folder.txt'])
    expect(paths.at(-1)).to.equal('huge/entry-0001999-of-a-huge-folder.txt')
    expect(first.structured).to.deep.include({stopped_by: 'max_results'})
    expect(last.structured?.paths).to.deep.equal(['huge/entry-0299999-of-a-huge-folder.txt'])
    const growth = peak - baseline
    expect(growth, `server grew by ${(growth / 2 ** 20).toFixed(1)} MiB`).to.be.at.most(MAX_GROWTH_BYTES)
  })

  it('lists a window deep in the folder with the entries a full sort puts there', async () => {
    const answer = await client.call('list', {path: 'huge', offset: 250_001, limit: 3})
    expect(answer.text.split('\n')).to.deep.equal([
      `huge/ (${HUGE_FOLDER_ENTRIES} entries; 250001 to 250003 shown)`,
      'entry-0250000-of-a-huge-folder.txt  0 bytes',
      'entry-0250001-of-a-huge-folder.txt  0 bytes',
      'entry-0250002-of-a-huge-folder.txt  0 bytes',
      '[49997 more entries not shown. Call list again with offset 250004 for the next entries, or use search with a glob (and no query) to find files by name.]',
    ])
  })
})
