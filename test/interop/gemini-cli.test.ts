import {expect} from 'chai'
import {execa} from 'execa'
import {mkdir, mkdtemp, readFile, realpath, rm, writeFile} from 'node:fs/promises'
import {tmpdir} from 'node:os'
import path from 'node:path'

import {DEFAULT_CONFIG_SERVER_NAME} from '../../src/exec/serving/client-config.js'
import {REPO_ROOT, RUN_JS} from '../helpers/clients.js'
import {type GeminiPart, type GeminiRequest, type MockGeminiProvider, functionResponses, offeredFunctions, startMockGeminiProvider} from '../helpers/mock-gemini-provider.js'

/**
 * Gemini CLI (`@google/gemini-cli`, pinned in package.json) as the MCP client, headless
 * (`gemini -p`), with a HOME of its own: the project's `.gemini/settings.json` is the JSON
 * `ak exec config --client gemini --level terminal` prints, unchanged, and the folder is trusted
 * as the line before the block says (`~/.gemini/trustedFolders.json`). GOOGLE_GEMINI_BASE_URL
 * points it at a mock Gemini API on loopback. `gemini mcp list` must report ak connected; then the
 * mock model calls exec_command, read and edit, one call per turn, and each turn checks the tool
 * answer Gemini CLI sent back from the one before.
 */
const GEMINI = path.join(REPO_ROOT, 'node_modules', '.bin', 'gemini')
const PROMPT = 'Show the notes, then mark them final.'
/** The whole `gemini -p` run: three tool calls and a final message. */
const RUN_TIMEOUT_MS = 180_000
const FINAL_TEXT = 'ALL STEPS DONE'

/** One step of the scripted model: the ak tool it calls, and what the answer must hold. */
interface Step {
  tool: string
  args: Record<string, unknown>
  expectInAnswer: RegExp[]
}

describe('Gemini CLI as the MCP client of ak exec serve', function () {
  const server = DEFAULT_CONFIG_SERVER_NAME
  let home: string
  let workspace: string
  let mock: MockGeminiProvider
  let env: Record<string, string>
  let run: Awaited<ReturnType<typeof execa>>
  /** What each step's tool answered, as Gemini CLI sent it back to the model. */
  const answers: string[] = []
  const problems: string[] = []

  const steps: Step[] = [
    {tool: 'exec_command', args: {cmd: 'printf "marker-%s\\n" $((6 * 7)); cat notes.txt'}, expectInAnswer: [/marker-42/, /status: draft/, /exit_code\\?"?:\s*0|exit_code: 0/]},
    {tool: 'read', args: {path: 'notes.txt'}, expectInAnswer: [/1\D+status: draft/]},
    {tool: 'edit', args: {path: 'notes.txt', old_text: 'status: draft', new_text: 'status: final'}, expectInAnswer: [/-status: draft/, /\+status: final/]},
  ]

  /** The name under which Gemini CLI offers the tool `tool` of ak's server. */
  const offeredName = (request: GeminiRequest, tool: string) =>
    offeredFunctions(request).find((name) => name === tool || name === `${server}__${tool}` || name.endsWith(`_${tool}`) && name.includes(server.replaceAll('-', '_')) || name === `mcp_${server}_${tool}`)

  /** The scripted model: turn N checks the answer to call N-1 and makes call N. */
  function script(request: GeminiRequest, turn: number): GeminiPart[] {
    if (!JSON.stringify(request.contents).includes(PROMPT)) return [{text: 'ok'}]
    const responses = functionResponses(request)
    if (turn > 0) {
      const answer = responses[turn - 1]
      if (answer === undefined) problems.push(`turn ${turn}: Gemini CLI did not send back the answer to ${steps[turn - 1]!.tool}`)
      answers.push(answer?.text ?? '')
    }
    const step = steps[turn]
    if (!step) return [{text: FINAL_TEXT}]
    const name = offeredName(request, step.tool)
    if (!name) {
      problems.push(`turn ${turn}: Gemini CLI did not offer ${step.tool}; functions: ${offeredFunctions(request).join(', ')}`)
      return [{text: `MISSING TOOL ${step.tool}`}]
    }
    return [{functionCall: {name, args: step.args}}]
  }

  before(async function () {
    this.timeout(RUN_TIMEOUT_MS + 60_000)
    home = await realpath(await mkdtemp(path.join(tmpdir(), 'ak-gemini-home-')))
    workspace = await realpath(await mkdtemp(path.join(tmpdir(), 'ak-gemini-ws-')))
    await writeFile(path.join(workspace, 'notes.txt'), 'status: draft\n')
    mock = await startMockGeminiProvider(script)
    // The block exactly as printed, as the project's settings; the folder trusted as its line says.
    const printed = await execa(process.execPath, [RUN_JS, 'exec', 'config', '--client', 'gemini', '--workspace', workspace, '--level', 'terminal'])
    expect(printed.stderr).to.contain(`"${workspace}": "TRUST_FOLDER" in ~/.gemini/trustedFolders.json`)
    await mkdir(path.join(workspace, '.gemini'))
    await writeFile(path.join(workspace, '.gemini', 'settings.json'), printed.stdout)
    await mkdir(path.join(home, '.gemini'))
    await writeFile(path.join(home, '.gemini', 'trustedFolders.json'), JSON.stringify({[workspace]: 'TRUST_FOLDER'}))
    // The test's own settings: an API key (for the mock), no telemetry, no update check.
    await writeFile(
      path.join(home, '.gemini', 'settings.json'),
      JSON.stringify({security: {auth: {selectedType: 'gemini-api-key'}}, telemetry: {enabled: false}, privacy: {usageStatisticsEnabled: false}, general: {disableAutoUpdate: true, disableUpdateNag: true}}),
    )
    env = {HOME: home, PWD: workspace, GEMINI_API_KEY: 'test-key', GOOGLE_GEMINI_BASE_URL: mock.baseUrl, NO_COLOR: '1'}
    run = await execa(GEMINI, ['-p', PROMPT], {cwd: workspace, env, stdin: 'ignore', reject: false, timeout: RUN_TIMEOUT_MS})
  })

  after(async () => {
    await mock?.close()
    for (const folder of [workspace, home]) if (folder) await rm(folder, {recursive: true, force: true})
  })

  it('lists ak connected with gemini mcp list', async function () {
    this.timeout(120_000)
    const list = await execa(GEMINI, ['mcp', 'list'], {cwd: workspace, env, stdin: 'ignore', reject: false, timeout: 110_000})
    expect(`${list.stdout}\n${list.stderr}`).to.match(new RegExp(`${server}: .*- Connected`))
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
