import {expect} from 'chai'
import {execa} from 'execa'
import {mkdir, mkdtemp, realpath, rm, writeFile} from 'node:fs/promises'
import {tmpdir} from 'node:os'
import path from 'node:path'
import {stripVTControlCharacters} from 'node:util'

import {REPO_ROOT, RUN_JS} from '../helpers/clients.js'

/**
 * `ak exec config --as-command` for Gemini CLI and OpenCode, run as printed by a POSIX shell with
 * the pinned clients on PATH and a HOME of its own: afterwards each client's own `mcp list` reports
 * ak connected, so the command line is ready to run and quoted right (the workspace's name holds a
 * space and a quote).
 */
describe('the add commands ak exec config --as-command prints, run as printed', function () {
  this.timeout(180_000)
  let root: string
  let home: string
  let workspace: string
  let env: Record<string, string>

  before(async () => {
    root = await realpath(await mkdtemp(path.join(tmpdir(), 'ak-add-commands-')))
    home = path.join(root, 'home')
    workspace = path.join(root, "my 'app'")
    await mkdir(home)
    await mkdir(workspace)
    // Gemini CLI starts no server in a folder it does not trust (the block's line before says so).
    await mkdir(path.join(home, '.gemini'))
    await writeFile(path.join(home, '.gemini', 'trustedFolders.json'), JSON.stringify({[workspace]: 'TRUST_FOLDER'}))
    env = {HOME: home, PWD: workspace, NO_COLOR: '1', PATH: [path.join(REPO_ROOT, 'node_modules', '.bin'), '/usr/bin', '/bin'].join(path.delimiter)}
  })

  after(async () => {
    await rm(root, {recursive: true, force: true})
  })

  for (const [client, connected] of [['gemini', /ak-exec: .*- Connected/], ['opencode', /✓ ak-exec\s+connected/]] as const) {
    it(`adds ak to ${client}, which then lists it connected`, async () => {
      const printed = await execa(process.execPath, [RUN_JS, 'exec', 'config', '--client', client, '--workspace', workspace, '--level', 'files', '--as-command', '--quiet'])
      const added = await execa('/bin/sh', ['-c', printed.stdout], {cwd: workspace, env, extendEnv: false, stdin: 'ignore', reject: false, timeout: 120_000})
      expect(added.exitCode, `${printed.stdout}\n${added.stdout}\n${added.stderr}`).to.equal(0)
      const list = await execa(client, ['mcp', 'list'], {cwd: workspace, env, extendEnv: false, stdin: 'ignore', reject: false, timeout: 120_000})
      expect(stripVTControlCharacters(`${list.stdout}\n${list.stderr}`)).to.match(connected)
    })
  }
})
