import {expect} from 'chai'
import {execa} from 'execa'
import {mkdir, mkdtemp, rm, writeFile} from 'node:fs/promises'
import {tmpdir} from 'node:os'
import path from 'node:path'

import {LEVELS} from '../../src/exec/level.js'
import {RUN_JS} from '../helpers/clients.js'
import {PYTHON_CLIENT_LINES, pythonForLine} from '../helpers/python.js'

/**
 * Glama's Tool Definition Quality Score linter (PyPI `tdqs`, pinned in requirements-test-v2.txt
 * because it needs the 2.x line of the Python MCP client) lists each server's tools through its own
 * MCP client, the way a registry does, and must find nothing: no error, no warning, no note.
 */
const SETUP_TIMEOUT_MS = 300_000
const LINT_TIMEOUT_MS = 120_000
/** The Python environment that has tdqs: the 2.x client line's. */
const TDQS_LINE = PYTHON_CLIENT_LINES.find((line) => line.id === 'v2')!

interface LintReport {
  findings: Array<{rule: string; severity: string; tool: string; message: string}>
  server: {name: string; toolCount: number}
}

/** `tdqs lint` of the stdio server `command` (argv), as its JSON report. */
async function lint(python: string, command: string[], cwd: string): Promise<LintReport> {
  const commandLine = command.map((arg) => `'${arg.replaceAll("'", "'\\''")}'`).join(' ')
  const run = await execa(python, ['-m', 'tdqs', 'lint', '--command', commandLine, '--format', 'json', '--fail-on', 'warning'], {
    cwd,
    reject: false,
    timeout: LINT_TIMEOUT_MS,
  })
  expect(run.stdout.startsWith('{'), `tdqs lint gave no report (exit code ${run.exitCode}):\n${run.stdout}\n${run.stderr}`).to.equal(true)
  return JSON.parse(run.stdout) as LintReport
}

function describeFindings(report: LintReport): string {
  return report.findings.map((finding) => `${finding.severity} ${finding.rule}: ${finding.message}`).join('\n')
}

describe('tdqs lint (Tool Definition Quality Score)', function () {
  let python: string
  let dir: string

  before(async function () {
    this.timeout(SETUP_TIMEOUT_MS)
    try {
      python = (await pythonForLine(TDQS_LINE)).python
    } catch (error) {
      const reason = `skipped: no Python to run tdqs in (${(error as Error).message.split('\n', 1)[0]})`
      console.log(`      ${reason}`)
      this.skip()
    }
    const {exitCode} = await execa(python, ['-c', 'import tdqs'], {reject: false})
    expect(exitCode, `${python} has no tdqs: install it with ${python} -m pip install -r ${TDQS_LINE.requirements}`).to.equal(0)
    dir = await mkdtemp(path.join(tmpdir(), 'ak-tdqs-'))
  })

  after(async () => {
    if (dir) await rm(dir, {recursive: true, force: true})
  })

  for (const level of LEVELS) {
    it(`finds nothing in AgentExec's tools at level ${level}`, async function () {
      this.timeout(LINT_TIMEOUT_MS)
      const workspace = path.join(dir, `ws-${level}`)
      await mkdir(workspace, {recursive: true})
      const report = await lint(python, [process.execPath, RUN_JS, 'exec', 'serve', '--workspace', workspace, '--level', level], dir)
      expect(report.server.name).to.equal('ak-exec')
      expect(report.server.toolCount).to.be.above(0)
      expect(report.findings, describeFindings(report)).to.deep.equal([])
    })
  }

  it("finds nothing in the Codex agent runtime's agent tools", async function () {
    this.timeout(LINT_TIMEOUT_MS)
    const codexHome = path.join(dir, 'codex-home')
    await mkdir(path.join(codexHome, 'agents'), {recursive: true})
    await writeFile(
      path.join(codexHome, 'agents', 'reviewer.toml'),
      'name = "reviewer"\ndescription = "Reviews the working tree and lists the bugs it finds; never edits files."\n' +
        'developer_instructions = "Review."\nsandbox_mode = "read-only"\n',
    )
    await writeFile(
      path.join(codexHome, 'agents', 'fixer.toml'),
      'name = "fixer"\ndescription = "Fixes failing tests and explains each change it made."\ndeveloper_instructions = "Fix."\n',
    )
    const pluginRoot = path.join(dir, 'plugins')
    const project = path.join(dir, 'project')
    await mkdir(pluginRoot, {recursive: true})
    await mkdir(project, {recursive: true})
    const report = await lint(
      python,
      [process.execPath, RUN_JS, 'codex-agent-runtime', 'serve', '--codex-home', codexHome, '--plugin-root', pluginRoot],
      project,
    )
    expect(report.server).to.deep.equal({name: 'ak-codex-agent-runtime', toolCount: 2})
    expect(report.findings, describeFindings(report)).to.deep.equal([])
  })
})
