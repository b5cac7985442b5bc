import {expect} from 'chai'
import {execa} from 'execa'
import {existsSync} from 'node:fs'
import {mkdtemp, realpath, rm} from 'node:fs/promises'
import {tmpdir} from 'node:os'
import path from 'node:path'

import {checkSandbox} from '../../src/exec/terminal/sandbox.js'
import {RUN_JS} from '../helpers/clients.js'
import {CODEX_RUN_TIMEOUT_MS, type CodexExecRun, runCodexExec} from '../helpers/codex-exec.js'
import {type ResponsesRequest, findTool, functionCallOutputs} from '../helpers/mock-responses-provider.js'

/**
 * The real Codex CLI (`codex exec -s …`) with the terminal block `ak exec config` prints, taken
 * with `--sandbox off` so that only Codex's own sandbox, which Codex sends with each call
 * (`_meta["codex/sandbox-state-meta"]`), can confine ak's commands. The scripted model asks
 * ak's exec_command to write one file inside the workspace and one outside it.
 */
const SANDBOX = await checkSandbox({mode: 'workspace-write', network: false}, {workspace: tmpdir()})
const SKIP_REASON = SANDBOX.ok ? '' : ` (skipped: ${SANDBOX.reason}; ${SANDBOX.fix})`
/** A folder outside the workspace and outside /tmp (which the sandbox replaces by a private one). */
const OUTSIDE_ROOT = '/var/tmp'
const SERVER_NAME = 'ak'

describe(`codex exec follows its sandbox into ak's exec_command${SKIP_REASON}`, function () {
  this.timeout(2 * CODEX_RUN_TIMEOUT_MS + 60_000)
  let workspace: string
  let outside: string
  let block: string

  before(async function () {
    if (!SANDBOX.ok) this.skip()
    workspace = await realpath(await mkdtemp(path.join(tmpdir(), 'ak-codex-follow-ws-')))
    outside = await realpath(await mkdtemp(path.join(OUTSIDE_ROOT, 'ak-codex-follow-out-')))
    const printed = ['exec', 'config', '--client', 'codex', '--name', SERVER_NAME, '--workspace', workspace, '--level', 'terminal', '--sandbox', 'off', '--quiet']
    block = (await execa(process.execPath, [RUN_JS, ...printed])).stdout
  })

  after(async () => {
    for (const folder of [workspace, outside]) if (folder) await rm(folder, {recursive: true, force: true})
  })

  /** `codex exec <sandboxArgs>` whose model runs `cmd` through ak's exec_command once; the answer Codex passed back. */
  async function runWrite(sandboxArgs: string[], cmd: string): Promise<{run: CodexExecRun; answer: string | undefined; problems: string[]}> {
    const problems: string[] = []
    let answer: string | undefined
    const script = (request: ResponsesRequest, turn: number) => {
      if (turn > 0) {
        answer = functionCallOutputs(request).get('call_write')
        return [{type: 'message' as const, text: 'DONE'}]
      }
      const tool = findTool(request, SERVER_NAME, 'exec_command')
      if (!tool) {
        problems.push(`Codex did not offer ${SERVER_NAME}'s exec_command`)
        return [{type: 'message' as const, text: 'MISSING TOOL'}]
      }
      return [{type: 'function_call' as const, ...tool, arguments: {cmd}, callId: 'call_write'}]
    }
    const run = await runCodexExec({block, script, cwd: workspace, extraArgs: sandboxArgs, topLevel: ['mcp_optional_startup_grace_ms = 0']})
    return {run, answer, problems}
  }

  /** The shell line the model sends: each write reports its own outcome. */
  const writeLine = (target: string, label: string) => `if echo x > ${target}; then echo ${label}=written; else echo ${label}=refused; fi`

  it('-s read-only: a write even inside the workspace fails as a read-only file system', async () => {
    const {run, answer, problems} = await runWrite(['-s', 'read-only'], writeLine('inside-ro.txt', 'inside'))
    expect(problems, run.stderr.slice(-3000)).to.deep.equal([])
    expect(run.exitCode, run.stderr.slice(-3000)).to.equal(0)
    expect(answer, run.stderr.slice(-3000)).to.match(/Read-only file system/)
    expect(answer).to.match(/inside=refused/)
    expect(existsSync(path.join(workspace, 'inside-ro.txt'))).to.equal(false)
  })

  it('-s workspace-write: a write inside the workspace works, one outside it fails', async () => {
    const target = path.join(outside, 'escaped.txt')
    const {run, answer, problems} = await runWrite(['-s', 'workspace-write'], `${writeLine('inside-ww.txt', 'inside')}; ${writeLine(target, 'outside')}`)
    expect(problems, run.stderr.slice(-3000)).to.deep.equal([])
    expect(run.exitCode, run.stderr.slice(-3000)).to.equal(0)
    expect(answer, run.stderr.slice(-3000)).to.match(/inside=written/)
    expect(answer).to.match(/outside=refused/)
    expect(existsSync(path.join(workspace, 'inside-ww.txt'))).to.equal(true)
    expect(existsSync(target)).to.equal(false)
  })

  it('--dangerously-bypass-approvals-and-sandbox: the server runs as its flags say (here: unconfined)', async () => {
    const target = path.join(outside, 'bypass.txt')
    const {run, answer, problems} = await runWrite(['--dangerously-bypass-approvals-and-sandbox'], writeLine(target, 'outside'))
    expect(problems, run.stderr.slice(-3000)).to.deep.equal([])
    expect(answer, run.stderr.slice(-3000)).to.match(/outside=written/)
    expect(existsSync(target)).to.equal(true)
  })
})
