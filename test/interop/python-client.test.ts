import {expect} from 'chai'
import {execa} from 'execa'
import {randomBytes} from 'node:crypto'
import {mkdtemp, rm} from 'node:fs/promises'
import {tmpdir} from 'node:os'
import path from 'node:path'

import {toolsForLevel} from '../../src/exec/serving/server.js'
import {BUNDLE, type LoneBundle, STANDALONE_SERVER, copyBundleAlone} from '../helpers/bundle.js'
import {REPO_ROOT} from '../helpers/clients.js'
import {startHttpServer} from '../helpers/http-server.js'
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
 * Runs exec_client.py against `workspace` (empty; the program writes its fixture there) and
 * returns its checks and summary, with the server's stderr (which passes through the program's).
 * @param programArgs the program's transport arguments
 * @param env extra environment for the program (AGENTEXEC_TOKEN for HTTP)
 */
async function runProgram(python: string, workspace: string, programArgs: string[], env: Record<string, string> = {}) {
  const run = await execa(python, [PROGRAM, '--workspace', workspace, ...programArgs], {
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
  const how = `exit code ${run.exitCode}, signal ${run.signal ?? 'none'}${run.timedOut ? ', timed out' : ''}${run.failed && run.exitCode === undefined ? `: ${run.message}` : ''}`
  return {exitCode: run.exitCode, checks, summary, stderr: run.stderr, stdout: run.stdout, how}
}

function expectAllPassed(line: PythonClientLine, result: Awaited<ReturnType<typeof runProgram>>, extraStderr = ''): void {
  const stderr = `${result.stderr}${extraStderr}`.slice(-4000)
  const failures = result.checks.filter((check) => !check.ok).map((check) => `${check.check}\n  ${check.detail}`)
  expect(failures, `failed checks:\n${failures.join('\n')}\n--- stderr ---\n${stderr}`).to.deep.equal([])
  expect(result.summary, `no summary (${result.how}); stdout:\n${result.stdout}\nstderr:\n${stderr}`).to.not.equal(undefined)
  expect(result.exitCode).to.equal(0)
  const summary = result.summary!
  expect(summary.mcp).to.equal(line.mcpVersion)
  expect(summary.protocolVersion).to.equal(line.protocolVersion)
  const offered = toolsForLevel(LEVEL).map((tool) => tool.name)
  expect(summary.tools).to.have.members(offered)
  expect(summary.exercised, 'tools the Python program has no checks for').to.have.members(offered)
}

/** The two one-file servers: the whole CLI (`exec serve`) and the AgentExec server alone. */
const SERVERS = [
  {name: 'the one-file bundle (ak exec serve)', file: BUNDLE, serve: ['exec', 'serve']},
  {name: 'dist/agentexec.js', file: STANDALONE_SERVER, serve: []},
]

for (const target of SERVERS) describe(`the official Python MCP client against ${target.name}`, function () {
  let bundle: LoneBundle
  let workspace: string

  before(() => {
    bundle = copyBundleAlone(target.file)
  })

  after(() => bundle?.remove())

  beforeEach(async () => {
    workspace = await mkdtemp(path.join(tmpdir(), 'ak-python-'))
  })

  afterEach(async () => {
    await rm(workspace, {recursive: true, force: true})
  })

  for (const line of PYTHON_CLIENT_LINES) {
    describe(`mcp ${line.mcpVersion} (${line.protocolVersion})`, function () {
      let python: string

      before(async function () {
        this.timeout(SETUP_TIMEOUT_MS)
        python = (await pythonForLine(line)).python
      })

      it(`exercises every tool at level ${LEVEL} over stdio`, async function () {
        this.timeout(RUN_TIMEOUT_MS + 10_000)
        const serve = [...target.serve, '--workspace', workspace, '--level', LEVEL]
        expectAllPassed(line, await runProgram(python, workspace, ['--stdio', '--', process.execPath, bundle.file, ...serve]))
      })

      it(`exercises every tool at level ${LEVEL} over Streamable HTTP with the bearer token, and is refused without it`, async function () {
        this.timeout(RUN_TIMEOUT_MS + 10_000)
        const token = randomBytes(24).toString('hex')
        const server = await startHttpServer(bundle.file, [...target.serve, '--http', '127.0.0.1:0', '--workspace', workspace, '--level', LEVEL], {
          env: {AGENTEXEC_TOKEN: token},
        })
        try {
          const result = await runProgram(python, workspace, ['--http', server.url], {AGENTEXEC_TOKEN: token})
          expectAllPassed(line, result, `\n--- server stderr ---\n${server.stderr()}`)
          expect(result.checks.map((check) => check.check)).to.include.members([
            'http: a client with no token is refused with 401',
            'http: a client with a wrong token is refused with 403',
          ])
        } finally {
          await server.stop()
        }
      })
    })
  }
})
