import {expect} from 'chai'
import {mkdtemp, readdir, rm, writeFile} from 'node:fs/promises'
import {tmpdir} from 'node:os'
import path from 'node:path'
import {setTimeout as sleep} from 'node:timers/promises'

import {initializeRaw, startServerProcess} from '../helpers/server-process.js'

/** How the warm-up's folder is named in the temporary folder (SEARCH_WARM_UP_FOLDER_PREFIX of src/exec/serving/search-warm-up.ts). */
const WARM_UP_PREFIX = 'ak-search-warm-up-'

/** How long the test looks for the warm-up's folder before it fails, in ms: far above any warm-up on a loaded machine. */
const LOOK_LIMIT_MS = 30_000

describe('ak exec serve: search warm-up', () => {
  let temporary: string
  let workspace: string

  beforeEach(async () => {
    temporary = await mkdtemp(path.join(tmpdir(), 'ak-warm-up-tmp-'))
    workspace = await mkdtemp(path.join(tmpdir(), 'ak-warm-up-ws-'))
    await writeFile(path.join(workspace, 'a.txt'), 'warm match\n')
  })

  afterEach(async () => {
    await rm(temporary, {recursive: true, force: true})
    await rm(workspace, {recursive: true, force: true})
  })

  async function warmUpFolders(): Promise<string[]> {
    return (await readdir(temporary)).filter((name) => name.startsWith(WARM_UP_PREFIX))
  }

  it('warms up in a temporary folder of its own after initialized, and exits cleanly, leaving nothing there, when its input closes meanwhile', async () => {
    const server = startServerProcess(['exec', 'serve', '--workspace', workspace, '--level', 'read'], {cwd: workspace, env: {TMPDIR: temporary}})
    await initializeRaw(server)
    const end = Date.now() + LOOK_LIMIT_MS
    while ((await warmUpFolders()).length === 0) {
      if (Date.now() > end) throw new Error(`no ${WARM_UP_PREFIX}* folder appeared in TMPDIR within ${LOOK_LIMIT_MS} ms of initialized`)
      await sleep(2)
    }
    server.child.stdin.end()
    expect(await server.exited()).to.deep.equal({code: 0, signal: null})
    expect(await warmUpFolders()).to.deep.equal([])
    expect(await readdir(workspace)).to.deep.equal(['a.txt'])
    expect(server.stderr()).to.not.include('search "')
  })
})
