import {expect} from 'chai'
import {execa} from 'execa'
import {mkdtemp, readFile, realpath, rm, writeFile} from 'node:fs/promises'
import {createRequire} from 'node:module'
import {tmpdir} from 'node:os'
import path from 'node:path'

import {RUN_JS} from '../helpers/clients.js'
import {
  type MockOutputItem,
  type MockResponsesProvider,
  type ResponsesRequest,
  findTool,
  functionCallOutputs,
  startMockResponsesProvider,
} from '../helpers/mock-responses-provider.js'

/**
 * The Codex CLI (`@openai/codex`, pinned in package.json) as the MCP client: a temporary
 * CODEX_HOME registers the built `ak exec serve --level terminal` as an MCP server and points
 * Codex at a mock model on loopback. The mock model calls exec_command, then read, then edit,
 * one call per turn, and each turn checks the tool answer Codex passed back from the one before.
 */
const CODEX_BIN = path.join(path.dirname(createRequire(import.meta.url).resolve('@openai/codex/package.json')), 'bin', 'codex.js')
const SERVER_NAME = 'ak'
/** The whole `codex exec` run: three tool calls and a final message. */
const RUN_TIMEOUT_MS = 180_000

/** One step of the scripted model: the tool it calls, and what the answer must hold. */
interface Step {
  tool: string
  arguments: Record<string, unknown>
  expectInAnswer: RegExp[]
  /** What the answer must not hold (read's and edit's structured fields: Codex gets their text alone). */
  expectNotInAnswer?: RegExp[]
}

describe('Codex CLI as the MCP client of ak exec serve', function () {
  let workspace: string
  let codexHome: string
  let mock: MockResponsesProvider
  /** What each step's tool answered, as Codex passed it back to the model. */
  const answers: string[] = []
  /** Problems the scripted model met (a tool not offered, an answer not passed back). */
  const problems: string[] = []
  let run: Awaited<ReturnType<typeof execa>>

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
    const offered = findTool(request, SERVER_NAME, step.tool)
    if (!offered) {
      problems.push(`turn ${turn}: Codex did not offer ${SERVER_NAME}'s ${step.tool}; tools: ${JSON.stringify(request.tools).slice(0, 2000)}`)
      return [{type: 'message', text: `MISSING TOOL ${step.tool}`}]
    }
    return [{type: 'function_call', ...offered, arguments: step.arguments, callId: `call_step_${turn}`}]
  }

  before(async function () {
    this.timeout(RUN_TIMEOUT_MS + 30_000)
    workspace = await realpath(await mkdtemp(path.join(tmpdir(), 'ak-codex-ws-')))
    codexHome = await realpath(await mkdtemp(path.join(tmpdir(), 'ak-codex-home-')))
    await writeFile(path.join(workspace, 'notes.txt'), 'status: draft\n')
    mock = await startMockResponsesProvider(script)
    await writeFile(
      path.join(codexHome, 'config.toml'),
      [
        'model = "mock-model"',
        'model_provider = "mock"',
        '',
        '[model_providers.mock]',
        'name = "mock"',
        `base_url = ${JSON.stringify(mock.baseUrl)}`,
        'wire_api = "responses"',
        'request_max_retries = 0',
        'stream_max_retries = 0',
        '',
        `[mcp_servers.${SERVER_NAME}]`,
        `command = ${JSON.stringify(process.execPath)}`,
        `args = ${JSON.stringify([RUN_JS, 'exec', 'serve', '--workspace', workspace, '--level', 'terminal'])}`,
        // Without this, `codex exec` (which never asks) declines every MCP tool call.
        'default_tools_approval_mode = "approve"',
        // Codex gives an optional MCP server one second to start before leaving its tools out
        // of a turn; a required one is waited for (up to startup_timeout_sec).
        'required = true',
        'startup_timeout_sec = 60',
        'tool_timeout_sec = 60',
        '',
      ].join('\n'),
    )
    run = await execa(process.execPath, [CODEX_BIN, 'exec', '--skip-git-repo-check', '-C', workspace, 'Show the notes, then mark them final.'], {
      env: {CODEX_HOME: codexHome},
      stdin: 'ignore',
      reject: false,
      timeout: RUN_TIMEOUT_MS,
    })
  })

  after(async () => {
    await mock?.close()
    await rm(workspace, {recursive: true, force: true})
    await rm(codexHome, {recursive: true, force: true})
  })

  it('runs to the model’s final message', () => {
    expect(problems, `stderr:\n${String(run.stderr).slice(-4000)}`).to.deep.equal([])
    expect(mock.errors.map(String)).to.deep.equal([])
    expect(run.exitCode, String(run.stderr).slice(-4000)).to.equal(0)
    expect(String(run.stdout)).to.contain('ALL STEPS DONE')
    expect(mock.requests).to.have.length(steps.length + 1)
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
