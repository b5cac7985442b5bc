import {expect} from 'chai'
import {execa} from 'execa'
import {mkdtemp, rm} from 'node:fs/promises'
import {tmpdir} from 'node:os'
import path from 'node:path'

import {toolsForLevel} from '../../src/exec/server.js'
import {REPO_ROOT, RUN_JS} from '../helpers/clients.js'
import {HIGHEST_LEVEL} from '../helpers/levels.js'
import {PYTHON_CLIENT_LINES, type PythonClientLine, pythonForLine} from '../helpers/python.js'

const PROGRAM = path.join(REPO_ROOT, 'test', 'interop', 'python', 'exec_client.py')
/** Making a virtual environment and installing the client on a fresh machine. */
const SETUP_TIMEOUT_MS = 300_000
/** One run of the test program; it bounds its own polling, this only stops a hang. */
const RUN_TIMEOUT_MS = 180_000
const LEVEL = HIGHEST_LEVEL

interface CheckLine {
  check: string
  ok: boolean
  detail: string
}

interface Summary {
  mcp: string
  line: string
  protocolVersion: string
  tools: string[]
  exercised: string[]
  checks: number
  failed: number
}

/**
 * Runs exec_client.py against a fresh empty workspace and returns its checks and summary, with
 * the server's stderr (which passes through the program's stderr).
 * @param programArgs the program's transport arguments, given the workspace path
 */
async function runProgram(python: string, programArgs: (workspace: string) => string[], env: Record<string, string> = {}) {
  const workspace = await mkdtemp(path.join(tmpdir(), 'ak-python-'))
  try {
    const run = await execa(python, [PROGRAM, '--workspace', workspace, ...programArgs(workspace)], {
      reject: false,
      timeout: RUN_TIMEOUT_MS,
      env: {...env, PYTHONUNBUFFERED: '1'},
    })
    const parsed = run.stdout
      .split('\n')
      .filter((text) => text.startsWith('{'))
      .map((text) => JSON.parse(text) as CheckLine | {summary: Summary})
    const checks = parsed.filter((entry): entry is CheckLine => 'check' in entry)
    const summary = parsed.find((entry): entry is {summary: Summary} => 'summary' in entry)?.summary
    return {exitCode: run.exitCode, checks, summary, stderr: run.stderr, stdout: run.stdout}
  } finally {
    await rm(workspace, {recursive: true, force: true})
  }
}

function expectAllPassed(line: PythonClientLine, result: Awaited<ReturnType<typeof runProgram>>): void {
  const failures = result.checks.filter((check) => !check.ok).map((check) => `${check.check}\n  ${check.detail}`)
  expect(failures, `failed checks:\n${failures.join('\n')}\n--- stderr ---\n${result.stderr.slice(-4000)}`).to.deep.equal([])
  expect(result.summary, `no summary; stdout:\n${result.stdout}\nstderr:\n${result.stderr.slice(-4000)}`).to.not.equal(undefined)
  expect(result.exitCode).to.equal(0)
  const summary = result.summary!
  expect(summary.mcp).to.equal(line.mcpVersion)
  expect(summary.protocolVersion).to.equal(line.protocolVersion)
  const offered = toolsForLevel(LEVEL).map((tool) => tool.name)
  expect(summary.tools).to.have.members(offered)
  expect(summary.exercised, 'tools the Python program has no checks for').to.have.members(offered)
}

for (const line of PYTHON_CLIENT_LINES) {
  describe(`the official Python MCP client, mcp ${line.mcpVersion} (${line.protocolVersion})`, function () {
    let python: string

    before(async function () {
      this.timeout(SETUP_TIMEOUT_MS)
      python = (await pythonForLine(line)).python
    })

    it(`exercises every tool at level ${LEVEL} over stdio`, async function () {
      this.timeout(RUN_TIMEOUT_MS + 10_000)
      const result = await runProgram(python, (workspace) => [
        '--stdio',
        '--',
        process.execPath,
        RUN_JS,
        'exec',
        'serve',
        '--workspace',
        workspace,
        '--level',
        LEVEL,
      ])
      expectAllPassed(line, result)
    })
  })
}
