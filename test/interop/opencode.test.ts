import {expect} from 'chai'
import {execa} from 'execa'
import {mkdir, mkdtemp, readFile, realpath, rm, writeFile} from 'node:fs/promises'
import {tmpdir} from 'node:os'
import path from 'node:path'
import {stripVTControlCharacters} from 'node:util'

import {DEFAULT_CONFIG_SERVER_NAME} from '../../src/exec/serving/client-config.js'
import {REPO_ROOT, RUN_JS} from '../helpers/clients.js'
import {type ChatAnswer, type ChatRequest, type MockChatProvider, startMockChatProvider, toolMessages} from '../helpers/mock-chat-provider.js'

/**
 * OpenCode (`opencode-ai`, pinned in package.json) as the MCP client, headless (`opencode run`),
 * with a HOME of its own: the project's `opencode.json` is the JSON `ak exec config --client
 * opencode --level terminal` prints, unchanged; the user's config (in that HOME) holds only the
 * model, a custom OpenAI-compatible provider whose `baseURL` is a mock Chat Completions API on
 * loopback. `opencode mcp list` must report ak connected; then the mock model calls exec_command,
 * read and edit, one call per turn, and each turn checks the tool answer OpenCode sent back from
 * the one before.
 */
const OPENCODE = path.join(REPO_ROOT, 'node_modules', '.bin', 'opencode')
const PROMPT = 'Show the notes, then mark them final.'
/** The whole `opencode run`: three tool calls and a final message. */
const RUN_TIMEOUT_MS = 180_000
const FINAL_TEXT = 'ALL STEPS DONE'

/** One step of the scripted model: the ak tool it calls, and what the answer must hold. */
interface Step {
  tool: string
  args: Record<string, unknown>
  expectInAnswer: RegExp[]
}

describe('OpenCode as the MCP client of ak exec serve', function () {
  const server = DEFAULT_CONFIG_SERVER_NAME
  let home: string
  let workspace: string
  let mock: MockChatProvider
  let env: Record<string, string>
  let run: Awaited<ReturnType<typeof execa>>
  /** What each step's tool answered, as OpenCode sent it back to the model. */
  const answers: string[] = []
  const problems: string[] = []

  const steps: Step[] = [
    {tool: 'exec_command', args: {cmd: 'printf "marker-%s\\n" $((6 * 7)); cat notes.txt'}, expectInAnswer: [/marker-42/, /status: draft/]},
    {tool: 'read', args: {path: 'notes.txt'}, expectInAnswer: [/1\D+status: draft/]},
    {tool: 'edit', args: {path: 'notes.txt', old_text: 'status: draft', new_text: 'status: final'}, expectInAnswer: [/-status: draft/, /\+status: final/]},
  ]
  const callId = (index: number) => `call_step_${index}`

  /** The name under which OpenCode offers the tool `tool` of ak's server (`<server>_<tool>`). */
  const offeredName = (request: ChatRequest, tool: string) => request.tools?.map((entry) => entry.function.name).find((name) => name === `${server}_${tool}`)

  /** The scripted model, driven by what the conversation holds: the first step whose call has no result yet is next. */
  function script(request: ChatRequest): ChatAnswer {
    // A side request: the session's title, asked of the same model without tools.
    if (!JSON.stringify(request.messages).includes(PROMPT) || request.tools === undefined) return {text: 'Scripted test'}
    const results = toolMessages(request)
    while (answers.length < steps.length && results.has(callId(answers.length))) answers.push(results.get(callId(answers.length))!)
    const next = answers.length
    const step = steps[next]
    if (!step) return {text: FINAL_TEXT}
    const name = offeredName(request, step.tool)
    if (!name) {
      problems.push(`step ${next}: OpenCode did not offer ${server}_${step.tool}; tools: ${request.tools?.map((entry) => entry.function.name).join(', ')}`)
      return {text: `MISSING TOOL ${step.tool}`}
    }
    return {toolCalls: [{id: callId(next), name, arguments: step.args}]}
  }

  before(async function () {
    this.timeout(RUN_TIMEOUT_MS + 60_000)
    home = await realpath(await mkdtemp(path.join(tmpdir(), 'ak-opencode-home-')))
    workspace = await realpath(await mkdtemp(path.join(tmpdir(), 'ak-opencode-ws-')))
    await writeFile(path.join(workspace, 'notes.txt'), 'status: draft\n')
    mock = await startMockChatProvider(script)
    // The block exactly as printed, as the project's config.
    const printed = await execa(process.execPath, [RUN_JS, 'exec', 'config', '--client', 'opencode', '--workspace', workspace, '--level', 'terminal', '--quiet'])
    await writeFile(path.join(workspace, 'opencode.json'), printed.stdout)
    // The test's own user config: the mock model as a custom OpenAI-compatible provider, nothing shared or updated.
    await mkdir(path.join(home, '.config', 'opencode'), {recursive: true})
    await writeFile(
      path.join(home, '.config', 'opencode', 'opencode.json'),
      JSON.stringify({
        $schema: 'https://opencode.ai/config.json',
        model: 'mock/mock-model',
        small_model: 'mock/mock-model',
        autoupdate: false,
        share: 'disabled',
        provider: {mock: {npm: '@ai-sdk/openai-compatible', name: 'Mock', options: {baseURL: mock.baseUrl, apiKey: 'test-key'}, models: {'mock-model': {name: 'Mock model', tool_call: true}}}},
      }),
    )
    // OpenCode takes its project folder from PWD, not from the folder it was started in.
    env = {HOME: home, PWD: workspace, NO_COLOR: '1'}
    run = await execa(OPENCODE, ['run', PROMPT], {cwd: workspace, env, stdin: 'ignore', reject: false, timeout: RUN_TIMEOUT_MS})
  })

  after(async () => {
    await mock?.close()
    for (const folder of [workspace, home]) if (folder) await rm(folder, {recursive: true, force: true})
  })

  it('lists ak connected with opencode mcp list', async function () {
    this.timeout(120_000)
    const list = await execa(OPENCODE, ['mcp', 'list'], {cwd: workspace, env, stdin: 'ignore', reject: false, timeout: 110_000})
    expect(stripVTControlCharacters(`${list.stdout}\n${list.stderr}`)).to.match(new RegExp(`✓ ${server}\\s+connected`))
  })

  it('runs to the model’s final message', () => {
    expect(problems, `stderr:\n${String(run.stderr).slice(-4000)}`).to.deep.equal([])
    expect(mock.errors.map(String)).to.deep.equal([])
    expect(run.exitCode, `${String(run.stdout).slice(-2000)}\n${String(run.stderr).slice(-4000)}`).to.equal(0)
    expect(String(run.stdout)).to.contain(FINAL_TEXT)
  })

  it('sends each tool’s answer back to the model in the next request, with the expected text', () => {
    expect(answers).to.have.length(steps.length)
    steps.forEach((step, index) => {
      for (const pattern of step.expectInAnswer) expect(answers[index], `${step.tool} answer`).to.match(pattern)
    })
  })

  it('changed the file on disk through edit', async () => {
    expect(await readFile(path.join(workspace, 'notes.txt'), 'utf8')).to.equal('status: final\n')
  })
})
