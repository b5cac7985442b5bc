import {expect} from 'chai'
import {execa} from 'execa'
import {mkdtemp, readFile, realpath, rm, writeFile} from 'node:fs/promises'
import {tmpdir} from 'node:os'
import path from 'node:path'

import {REPO_ROOT, RUN_JS} from '../helpers/clients.js'
import {CODEX_RUN_TIMEOUT_MS, type CodexExecRun, runCodexExec} from '../helpers/codex-exec.js'
import {type HttpServerProcess, startHttpServer} from '../helpers/http-server.js'
import {type MockOutputItem, type ResponsesRequest, findTool, functionCallOutputs} from '../helpers/mock-responses-provider.js'

/**
 * The Codex CLI (`@openai/codex`, pinned in package.json) as the MCP client, over stdio and over
 * HTTP: a temporary CODEX_HOME holds, unchanged, the block `ak exec config --client codex --level
 * terminal` prints, or the HTTP block of docs/http.md (its URL made the running server's), and
 * points Codex at a mock model on loopback. The mock model calls exec_command, then read, then edit,
 * one call per turn, and each turn checks the tool answer Codex passed back from the one before.
 */
const SERVER_NAME = 'ak'
/** The page whose Codex block for `ak exec serve --http` the HTTP run uses, and the URL it shows. */
const HTTP_DOC = path.join(REPO_ROOT, 'docs', 'http.md')
const HTTP_DOC_URL = 'http://127.0.0.1:41817/mcp'

/** One step of the scripted model: the tool it calls, and what the answer must hold. */
interface Step {
  tool: string
  arguments: Record<string, unknown>
  expectInAnswer: RegExp[]
  /** What the answer must not hold (read's and edit's structured fields: Codex gets their text alone). */
  expectNotInAnswer?: RegExp[]
}

/** The Codex block of docs/http.md, with the URL of the running server and the server's name. */
async function httpDocBlock(url: string): Promise<{block: string; name: string}> {
  const page = await readFile(HTTP_DOC, 'utf8')
  const block = /```toml\n(\[mcp_servers\.([\w-]+)\]\nurl = [^`]*)```/.exec(page)
  if (!block) throw new Error(`${HTTP_DOC} has no Codex block with a url`)
  expect(block[1], 'the URL docs/http.md shows').to.contain(HTTP_DOC_URL)
  return {block: block[1]!.replace(HTTP_DOC_URL, url), name: block[2]!}
}

for (const transport of ['stdio', 'http'] as const) describe(`Codex CLI as the MCP client of ak exec serve over ${transport}`, function () {
  let workspace: string
  let server: HttpServerProcess | undefined
  let serverName = SERVER_NAME
  const token = 'codex-test-token-0123456789abcdef'
  /** What each step's tool answered, as Codex passed it back to the model. */
  const answers: string[] = []
  /** Problems the scripted model met (a tool not offered, an answer not passed back). */
  const problems: string[] = []
  let run: CodexExecRun

  const steps: Step[] = [
    {
      tool: 'exec_command',
      arguments: {cmd: 'printf "marker-%s\\n" $((6 * 7)); cat notes.txt'},
      // Codex passes a result's structuredContent to the model when there is one (the four fields
      // as JSON), else its text.
      expectInAnswer: [/marker-42\\?n/, /status: draft/, /"exit_code":0|exit_code: 0/, /"session_id":"none"|session_id: none/],
    },
    {tool: 'read', arguments: {path: 'notes.txt'}, expectInAnswer: [/(^|\s)1\D+status: draft$/m], expectNotInAnswer: [/next_offset/]},
    {
      tool: 'edit',
      arguments: {path: 'notes.txt', old_text: 'status: draft', new_text: 'status: final'},
      expectInAnswer: [/^-status: draft$/m, /^\+status: final$/m],
      expectNotInAnswer: [/occurrences/],
    },
  ]

  /** The scripted model: turn N checks the answer to call N-1 and makes call N. */
  function script(request: ResponsesRequest, turn: number): MockOutputItem[] {
    if (turn > 0) {
      const answer = functionCallOutputs(request).get(`call_step_${turn - 1}`)
      if (answer === undefined) problems.push(`turn ${turn}: Codex did not pass back the answer to ${steps[turn - 1]!.tool}`)
      answers.push(answer ?? '')
    }
    const step = steps[turn]
    if (!step) return [{type: 'message', text: 'ALL STEPS DONE'}]
    const offered = findTool(request, serverName, step.tool)
    if (!offered) {
      problems.push(`turn ${turn}: Codex did not offer ${serverName}'s ${step.tool}; tools: ${JSON.stringify(request.tools).slice(0, 2000)}`)
      return [{type: 'message', text: `MISSING TOOL ${step.tool}`}]
    }
    return [{type: 'function_call', ...offered, arguments: step.arguments, callId: `call_step_${turn}`}]
  }

  before(async function () {
    this.timeout(CODEX_RUN_TIMEOUT_MS + 30_000)
    workspace = await realpath(await mkdtemp(path.join(tmpdir(), 'ak-codex-ws-')))
    await writeFile(path.join(workspace, 'notes.txt'), 'status: draft\n')
    // The block exactly as `ak exec config` prints it, or as docs/http.md shows it, after the test's own model settings.
    let block: string
    if (transport === 'stdio') {
      block = (await execa(process.execPath, [RUN_JS, 'exec', 'config', '--client', 'codex', '--name', SERVER_NAME, '--workspace', workspace, '--level', 'terminal', '--quiet'])).stdout
    } else {
      server = await startHttpServer(RUN_JS, ['exec', 'serve', '--workspace', workspace, '--level', 'terminal', '--http', '127.0.0.1:0'], {env: {AGENTEXEC_TOKEN: token}})
      ;({block, name: serverName} = await httpDocBlock(server.url))
    }
    run = await runCodexExec({
      block,
      script,
      cwd: workspace,
      prompt: 'Show the notes, then mark them final.',
      env: {AGENTEXEC_TOKEN: token},
      topLevel: [
        // Codex gives an optional MCP server one second to start before it builds the first
        // turn's tool list without it; 0 makes it wait up to the server's startup timeout.
        'mcp_optional_startup_grace_ms = 0',
      ],
    })
  })

  after(async () => {
    await server?.stop()
    await rm(workspace, {recursive: true, force: true})
  })

  it('runs to the model’s final message', () => {
    expect(problems, `stderr:\n${String(run.stderr).slice(-4000)}`).to.deep.equal([])
    expect(run.mockErrors.map(String)).to.deep.equal([])
    expect(run.exitCode, String(run.stderr).slice(-4000)).to.equal(0)
    expect(String(run.stdout)).to.contain('ALL STEPS DONE')
    expect(run.requests).to.have.length(steps.length + 1)
  })

  it('passes each tool’s answer back to the model with the expected text', () => {
    expect(answers).to.have.length(steps.length)
    steps.forEach((step, index) => {
      for (const pattern of step.expectInAnswer) expect(answers[index], `${step.tool} answer`).to.match(pattern)
      for (const pattern of step.expectNotInAnswer ?? []) expect(answers[index], `${step.tool} answer`).not.to.match(pattern)
    })
  })

  it('changed the file on disk through edit', async () => {
    expect(await readFile(path.join(workspace, 'notes.txt'), 'utf8')).to.equal('status: final\n')
  })
})
