import {expect} from 'chai'
import {execa} from 'execa'
import {mkdtemp, realpath, rm} from 'node:fs/promises'
import {tmpdir} from 'node:os'
import path from 'node:path'

import {RUN_JS} from '../helpers/clients.js'
import {CODEX_RUN_TIMEOUT_MS, runCodexExec} from '../helpers/codex-exec.js'

/**
 * The printed Codex block makes Codex fail loudly, never run silently without ak: with the block
 * exactly as `ak exec config --client codex` prints it, a server that cannot start (here: its
 * workspace was removed after the block was printed) ends `codex exec` with an error naming the
 * server; the same block without `required = true` lets Codex run the prompt without ak, exit 0.
 */
describe('Codex with the printed block, when ak cannot start', function () {
  this.timeout(2 * CODEX_RUN_TIMEOUT_MS + 30_000)
  let block: string
  let cwd: string

  before(async () => {
    cwd = await realpath(await mkdtemp(path.join(tmpdir(), 'ak-codex-cwd-')))
    const gone = await mkdtemp(path.join(tmpdir(), 'ak-codex-gone-'))
    block = (await execa(process.execPath, [RUN_JS, 'exec', 'config', '--client', 'codex', '--name', 'ak', '--workspace', gone, '--quiet'])).stdout
    await rm(gone, {recursive: true})
  })

  after(async () => {
    await rm(cwd, {recursive: true, force: true})
  })

  it('ends codex exec with an error naming the server, before any model turn', async () => {
    expect(block).to.match(/^required = true$/m)
    const run = await runCodexExec({block, cwd, script: () => [{type: 'message', text: 'RAN WITHOUT AK'}]})
    expect(run.exitCode, run.stderr.slice(-3000)).to.not.equal(0)
    expect(run.stderr).to.match(/required MCP servers failed to initialize: ak\b/)
    expect(run.stdout).to.not.contain('RAN WITHOUT AK')
  })

  it('runs without ak and exits 0 when the block is made optional, which is what required prevents', async () => {
    const run = await runCodexExec({block: block.replace(/^required = true$/m, 'required = false'), cwd, script: () => [{type: 'message', text: 'RAN WITHOUT AK'}]})
    expect(run.exitCode, run.stderr.slice(-3000)).to.equal(0)
    expect(run.stdout).to.contain('RAN WITHOUT AK')
  })
})
