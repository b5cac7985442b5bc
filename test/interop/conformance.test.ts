import {expect} from 'chai'
import {execa} from 'execa'
import {readdir, readFile, mkdtemp, rm} from 'node:fs/promises'
import {type Server, createServer} from 'node:http'
import type {AddressInfo} from 'node:net'
import {tmpdir} from 'node:os'
import path from 'node:path'

import {type AgentExec, createAgentExec} from '../../src/index.js'
import {REPO_ROOT} from '../helpers/clients.js'
import {HIGHEST_LEVEL} from '../helpers/levels.js'

/**
 * The MCP conformance suite (`@modelcontextprotocol/conformance`, pinned in package.json) runs
 * its server scenarios against AgentExec in library mode on loopback, created with only a
 * workspace and a level as the README's example does: no token (the suite cannot send one) and no
 * allow-lists, so its `dns-rebinding-protection` scenario checks the default. Each protocol revision ak serves is run on its own wire (the 2025 revisions with the
 * `initialize` handshake and sessions, 2026-07-28 stateless), with the whole suite (`--suite all`:
 * active, pending and draft scenarios of that revision). Scenarios that need the suite's own
 * fixture tools, resources or prompts are listed with a reason in
 * `test/interop/conformance/expected-failures-<revision>.yml`; the suite exits non-zero when a
 * scenario not listed there fails or a listed one passes, and so does this test.
 */
const SUITE_ENTRY = path.join(REPO_ROOT, 'node_modules', '@modelcontextprotocol', 'conformance', 'dist', 'index.js')
const SPEC_REVISIONS = ['2025-11-25', '2026-07-28'] as const
/** Scenarios that must run and pass on each revision: never allowed in an expected-failures file. */
const REQUIRED: Record<(typeof SPEC_REVISIONS)[number], string[]> = {
  '2025-11-25': ['server-initialize', 'server-session-lifecycle', 'ping', 'tools-list', 'dns-rebinding-protection'],
  '2026-07-28': ['server-stateless', 'tools-list', 'dns-rebinding-protection', 'http-header-validation'],
}
/** The whole suite for one revision; each scenario has its own (default 30 s) limit inside. */
const RUN_TIMEOUT_MS = 600_000

interface Check {
  id: string
  status: string
  errorMessage?: string
  details?: unknown
}

/** Every scenario's checks from the suite's output folder, by scenario name. */
async function readResults(outputDir: string): Promise<Map<string, Check[]>> {
  const results = new Map<string, Check[]>()
  for (const entry of await readdir(outputDir)) {
    const scenario = /^server-(.+)-\d{4}-\d\d-\d\dT.*$/.exec(entry)?.[1] ?? entry
    const checks = JSON.parse(await readFile(path.join(outputDir, entry, 'checks.json'), 'utf8')) as Check[]
    results.set(scenario, checks)
  }
  return results
}

function expectedFailuresFile(revision: string): string {
  return path.join(REPO_ROOT, 'test', 'interop', 'conformance', `expected-failures-${revision}.yml`)
}

/** The entries of an expected-failures file: `scenario` or `scenario:check-id`, comments dropped. */
async function readExpectedFailures(revision: string): Promise<string[]> {
  const text = await readFile(expectedFailuresFile(revision), 'utf8')
  return [...text.matchAll(/^\s*-\s*([^\s#]+)/gm)].map((match) => match[1]!)
}

describe('the MCP conformance suite against library mode on loopback', function () {
  let workspace: string
  let agentExec: AgentExec
  let server: Server
  let url: string

  before(async () => {
    workspace = await mkdtemp(path.join(tmpdir(), 'ak-conformance-'))
    agentExec = createAgentExec({workspace, level: HIGHEST_LEVEL})
    server = createServer((req, res) => void agentExec.handle(req, res))
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
    url = `http://localhost:${(server.address() as AddressInfo).port}/mcp`
  })

  after(async () => {
    await agentExec?.close()
    server?.closeAllConnections()
    await new Promise((resolve) => server?.close(resolve))
    await rm(workspace, {recursive: true, force: true})
  })

  for (const revision of SPEC_REVISIONS) {
    it(`passes every scenario of spec ${revision} that applies to a server with ak's tools (level ${HIGHEST_LEVEL})`, async function () {
      this.timeout(RUN_TIMEOUT_MS + 30_000)
      const outputDir = await mkdtemp(path.join(tmpdir(), 'ak-conformance-results-'))
      try {
        const run = await execa(
          process.execPath,
          [SUITE_ENTRY, 'server', '--url', url, '--spec-version', revision, '--suite', 'all', '--expected-failures', expectedFailuresFile(revision), '-o', outputDir],
          {reject: false, timeout: RUN_TIMEOUT_MS, all: true, cwd: outputDir},
        )
        const results = await readResults(outputDir)
        const failing = [...results].flatMap(([scenario, checks]) =>
          checks
            .filter((check) => check.status === 'FAILURE' || check.status === 'WARNING')
            .map((check) => `${check.status} ${scenario}:${check.id}: ${check.errorMessage ?? ''} ${JSON.stringify(check.details ?? {}).slice(0, 600)}`),
        )
        const excused = await readExpectedFailures(revision)
        for (const scenario of REQUIRED[revision]) {
          expect(results.has(scenario), `scenario ${scenario} did not run; suite output:\n${run.all}`).to.equal(true)
          const failed = results
            .get(scenario)!
            .filter((check) => check.status === 'FAILURE' && !excused.includes(`${scenario}:${check.id}`))
          expect(failed, `${scenario} failed:\n${failing.filter((line) => line.includes(` ${scenario}:`)).join('\n')}`).to.deep.equal([])
        }
        const wireSchema = failing.filter((line) => line.includes(':wire-schema-valid:'))
        expect(wireSchema, 'messages ak sent that break the spec schema').to.deep.equal([])
        expect(run.exitCode, `the suite exited ${run.exitCode}:\n${run.all?.slice(-6000)}\nfailing checks:\n${failing.join('\n')}`).to.equal(0)
      } finally {
        await rm(outputDir, {recursive: true, force: true})
      }
    })
  }

  it('lists no required scenario as a whole in an expected-failures file', async () => {
    for (const revision of SPEC_REVISIONS) {
      const listed = await readExpectedFailures(revision)
      expect(listed.length).to.be.greaterThan(0)
      for (const scenario of REQUIRED[revision]) expect(listed).not.to.include(scenario)
    }
  })
})
