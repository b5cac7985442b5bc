import {expect} from 'chai'
import {execa} from 'execa'
import {mkdtemp, readFile, readdir, rm} from 'node:fs/promises'
import {tmpdir} from 'node:os'
import path from 'node:path'

import {REPO_ROOT} from '../helpers/clients.js'
import {type TasksFixture, startTasksFixture} from './conformance/tasks-fixture.js'

/**
 * The MCP conformance suite's `tasks-*` server scenarios (the Tasks extension,
 * `io.modelcontextprotocol/tasks`; `conformance list`) against a fixture server whose tools are
 * the ones the scenarios name and whose task handling is ak's own (src/mcp/tasks: negotiation,
 * tasks/get, tasks/cancel, tasks/update, the CreateTaskResult, ownership and bounds). The
 * scenarios run on their own revision, 2026-07-28 (stateless HTTP, per-request capabilities).
 * Every scenario the suite lists is run, so a new one in a later suite is run too.
 */
const SUITE_ENTRY = path.join(REPO_ROOT, 'node_modules', '@modelcontextprotocol', 'conformance', 'dist', 'index.js')
/** Scenarios the suite itself reports as skipped, with its reason: they have no check to pass yet. */
const SKIPPED_BY_THE_SUITE = new Set([
  // "pending subscriptions/listen rewrite": notifications/tasks moved to subscriptions/listen.
  'tasks-status-notifications',
])
/** One scenario's run; each has its own (default 30 s) limit inside. */
const SCENARIO_TIMEOUT_MS = 120_000

interface Check {
  id: string
  status: string
  errorMessage?: string
}

describe('the conformance suite’s tasks scenarios against a fixture server on ak’s task layer', function () {
  let fixture: TasksFixture
  let scenarios: string[] = []

  before(async function () {
    this.timeout(60_000)
    fixture = await startTasksFixture()
    const listed = await execa(process.execPath, [SUITE_ENTRY, 'list'], {all: true})
    scenarios = [...String(listed.all).matchAll(/^\s*-\s*(tasks-[a-z0-9-]+)/gm)].map((match) => match[1]!)
  })

  after(async () => {
    await fixture?.close()
  })

  it('finds the tasks scenarios in the suite', () => {
    expect(scenarios).to.include.members(['tasks-lifecycle', 'tasks-capability-negotiation', 'tasks-wire-fields', 'tasks-dispatch-and-envelope'])
  })

  it('passes every check of every tasks scenario', async function () {
    this.timeout(SCENARIO_TIMEOUT_MS * 12)
    const failures: string[] = []
    for (const scenario of scenarios) {
      const outputDir = await mkdtemp(path.join(tmpdir(), 'ak-conformance-tasks-'))
      try {
        const run = await execa(process.execPath, [SUITE_ENTRY, 'server', '--url', fixture.url, '--scenario', scenario, '-o', outputDir], {
          reject: false,
          all: true,
          timeout: SCENARIO_TIMEOUT_MS,
          cwd: outputDir,
        })
        const checks: Check[] = []
        for (const entry of await readdir(outputDir)) {
          checks.push(...(JSON.parse(await readFile(path.join(outputDir, entry, 'checks.json'), 'utf8')) as Check[]))
        }
        const expected = SKIPPED_BY_THE_SUITE.has(scenario) ? 'SKIPPED' : 'SUCCESS'
        const bad = checks.filter((check) => check.status !== expected && check.status !== 'INFO')
        if (checks.length === 0) failures.push(`${scenario}: no checks ran (exit ${run.exitCode}):\n${String(run.all).slice(-2000)}`)
        for (const check of bad) failures.push(`${scenario}:${check.id} ${check.status} ${check.errorMessage ?? ''}`)
      } finally {
        await rm(outputDir, {recursive: true, force: true})
      }
    }
    expect(failures).to.deep.equal([])
  })
})
