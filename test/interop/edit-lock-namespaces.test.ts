import {expect} from 'chai'
import {type ChildProcess, spawn, spawnSync} from 'node:child_process'
import {once} from 'node:events'
import {mkdir, mkdtemp, readFile, realpath, rm, writeFile} from 'node:fs/promises'
import {tmpdir} from 'node:os'
import path from 'node:path'
import {createInterface} from 'node:readline'

import {type TestClient, connectStdio, REPO_ROOT} from '../helpers/clients.js'
import {skipBecause, skipUnlessRoot} from '../helpers/processes.js'

/** How long the holder keeps the lock, in ms: far past the 25 ms a takeover took, below the 10 s an edit waits. */
const HOLD_MS = 5000

/**
 * A process of this namespace that takes the replace lock of `<workspace>/a.txt` with ak's own
 * code, says `holding`, keeps it HOLD_MS, then says whether the lock file still holds its content
 * and what the file holds, before it lets the lock go.
 */
const HOLDER = `
import {readFileSync, readdirSync} from 'node:fs'
import {Workspace} from ${JSON.stringify(path.join(REPO_ROOT, 'src/exec/workspace.ts'))}
import {ConfinedFolder} from ${JSON.stringify(path.join(REPO_ROOT, 'src/exec/files/confined-open.ts'))}
import {withReplaceLock} from ${JSON.stringify(path.join(REPO_ROOT, 'src/exec/files/replace-lock.ts'))}
const ws = process.argv[2]
const workspace = await Workspace.open(ws)
const folder = await ConfinedFolder.open(workspace, workspace.rootBytes, '.')
const lockOf = () => readdirSync(ws).filter((name) => /^\\.ak-edit-lock-[0-9a-f]{16}$/.test(name)).map((name) => readFileSync(ws + '/' + name, 'utf8'))
await withReplaceLock(folder, Buffer.from('a.txt'), async () => {
  const mine = lockOf()
  console.log('holding')
  await new Promise((resolve) => setTimeout(resolve, ${HOLD_MS}))
  console.log(JSON.stringify(lockOf()) === JSON.stringify(mine) ? 'kept' : 'taken over')
  console.log(JSON.stringify(readFileSync(ws + '/a.txt', 'utf8')))
})
console.log('released')
await folder.close()
`

describe('the edit lock across PID namespaces, through ak exec serve under unshare --pid', function () {
  this.timeout(60_000)
  let base: string
  let ws: string
  let client: TestClient | undefined
  let holder: ChildProcess | undefined

  before(async function () {
    skipUnlessRoot(this, 'make a PID namespace with unshare')
    const probe = spawnSync('unshare', ['--pid', '--fork', '--mount-proc', 'true'])
    if (probe.status !== 0) skipBecause(this, `unshare --pid --fork --mount-proc does not run here (${probe.stderr?.toString().trim() || probe.error?.message})`)
    base = await realpath(await mkdtemp(path.join(tmpdir(), 'ak-lock-ns-')))
    ws = path.join(base, 'ws')
    await mkdir(ws)
    await writeFile(path.join(ws, 'a.txt'), 'one\n')
    await writeFile(path.join(base, 'holder.mts'), HOLDER)
    client = await connectStdio('v2 (2026-07-28)', ['exec', 'serve', '--workspace', ws, '--level', 'files', '--quiet'], {
      env: {HOME: base},
      runAs: ['unshare', '--pid', '--fork', '--mount-proc'],
    })
  })

  after(async () => {
    holder?.kill()
    await client?.close()
    if (base) await rm(base, {recursive: true, force: true})
  })

  it("waits on a live holder's lock taken in the parent namespace, and edits once it is released", async () => {
    holder = spawn(path.join(REPO_ROOT, 'node_modules', '.bin', 'tsx'), [path.join(base, 'holder.mts'), ws], {cwd: REPO_ROOT, stdio: ['ignore', 'pipe', 'inherit']})
    const said: string[] = []
    const lines = createInterface({input: holder.stdout as NodeJS.ReadableStream})
    lines.on('line', (line) => said.push(line))
    const exited = once(holder, 'exit')
    while (!said.includes('holding')) {
      const first = await Promise.race([once(lines, 'line'), exited.then(() => 'exited')])
      if (first === 'exited') expect.fail(`the holder ended before it held the lock: ${said.join(' | ')}`)
    }
    // The server sees no process with the holder's pid in its own namespace.
    const answer = await (client as TestClient).call('edit', {path: 'a.txt', old_text: 'one', new_text: 'two'})
    await exited
    expect(answer.isError, answer.text).to.equal(false)
    // While the holder held its lock, the server neither took it over nor changed the file.
    expect(said).to.deep.equal(['holding', 'kept', JSON.stringify('one\n'), 'released'])
    expect(await readFile(path.join(ws, 'a.txt'), 'utf8')).to.equal('two\n')
  })
})
