import {expect} from 'chai'
import {readFileSync, readdirSync} from 'node:fs'
import {mkdtemp, rm, writeFile} from 'node:fs/promises'
import {tmpdir} from 'node:os'
import path from 'node:path'

import {CLIENT_LINES, type TestClient, connectStdio} from '../helpers/clients.js'

/** The server's threads other than libuv's thread pool (which starts with the first file call), by name (Linux /proc). */
function threadsOf(pid: number): string[] {
  return readdirSync(`/proc/${pid}/task`)
    .map((tid) => {
      try {
        return readFileSync(`/proc/${pid}/task/${tid}/comm`, 'utf8').trim()
      } catch {
        return '' // ended meanwhile
      }
    })
    .filter((name) => name !== '' && name !== 'libuv-worker')
    .sort()
}

/** The server's threads once their number has not changed for `steadyMs` (at most `limitMs`). */
async function steadyThreads(pid: number, steadyMs = 1000, limitMs = 20_000): Promise<string[]> {
  let last = threadsOf(pid)
  let since = Date.now()
  for (const started = Date.now(); Date.now() - started < limitMs; ) {
    await new Promise((resolve) => setTimeout(resolve, 100))
    const now = threadsOf(pid)
    if (now.length !== last.length) {
      last = now
      since = Date.now()
    } else if (Date.now() - since >= steadyMs) break
  }
  return last
}

// One client line: the 1.x client sends `notifications/initialized`, after which the workers start.
describe(`search workers start after initialize, client ${CLIENT_LINES[0]}`, function () {
  this.timeout(120_000)
  let workspace: string
  let client: TestClient

  before(async function () {
    if (process.platform !== 'linux') this.skip() // threads are counted in /proc
    workspace = await mkdtemp(path.join(tmpdir(), 'ak-search-start-'))
    await writeFile(path.join(workspace, 'a.txt'), 'needle\n')
    client = await connectStdio(CLIENT_LINES[0], ['exec', 'serve', '--workspace', workspace, '--level', 'read', '--quiet'])
  })

  after(async () => {
    await client?.close()
    if (workspace) await rm(workspace, {recursive: true, force: true})
  })

  it('has its search workers running before the first search, which starts none', async () => {
    // A read first, so that what the search could start is only search's own.
    expect((await client.call('read', {path: 'a.txt'})).isError).to.equal(false)
    const before = await steadyThreads(client.pid)
    const answer = await client.call('search', {query: 'needle'})
    expect(answer.text).to.contain('a.txt:1:needle')
    expect(await steadyThreads(client.pid), 'threads after the first search').to.deep.equal(before)
  })
})
