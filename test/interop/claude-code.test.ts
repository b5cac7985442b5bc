import {expect} from 'chai'
import {execa} from 'execa'
import {mkdtemp, readFile, realpath, rm, writeFile} from 'node:fs/promises'
import {tmpdir} from 'node:os'
import path from 'node:path'

import {DEFAULT_CONFIG_SERVER_NAME} from '../../src/exec/serving/client-config.js'
import {RUN_JS} from '../helpers/clients.js'
import {type MessagesRequest, type MockContentBlock, type MockMessagesProvider, startMockMessagesProvider, toolOffer, toolResults} from '../helpers/mock-messages-provider.js'
import {CLAUDE_PACKAGE, claudeBinary} from '../helpers/claude-code.js'

/**
 * Claude Code (`@anthropic-ai/claude-code`, pinned in package.json) as the MCP client, headless
 * (`claude -p`): its `--mcp-config` is the JSON `ak exec config --client claude --level terminal`
 * prints, unchanged, and ANTHROPIC_BASE_URL points it at a mock Messages API on loopback. The
 * mock model calls exec_command, then read, then edit, one call per turn, and each turn checks
 * the tool answer Claude Code sent back from the one before.
 */
/** The prompt, which also tells the conversation apart from any side request Claude Code makes. */
const PROMPT = 'Show the notes, then mark them final.'
/** The whole `claude -p` run: three tool calls and a final message. */
const RUN_TIMEOUT_MS = 180_000
const FINAL_TEXT = 'ALL STEPS DONE'

/** One step of the scripted model: the ak tool it calls, and what the answer must hold. */
interface Step {
  tool: string
  input: Record<string, unknown>
  expectInAnswer: RegExp[]
}

describe('Claude Code as the MCP client of ak exec serve', function () {
  const server = DEFAULT_CONFIG_SERVER_NAME
  const qualified = (tool: string) => `mcp__${server}__${tool}`
  const claude = claudeBinary()
  let workspace: string
  let mock: MockMessagesProvider
  let run: Awaited<ReturnType<typeof execa>>
  /** What each step's tool answered, as Claude Code sent it back to the model. */
  const answers = new Map<string, string>()
  /** Problems the scripted model met (a tool not offered, an answer not sent back). */
  const problems: string[] = []

  const steps: Step[] = [
    {
      tool: 'exec_command',
      input: {cmd: 'printf "marker-%s\\n" $((6 * 7)); cat notes.txt'},
      // Claude Code sends a result's structuredContent (the four fields as JSON) or its text.
      expectInAnswer: [/marker-42\\?n/, /status: draft/, /"exit_code":0|exit_code: 0/, /"session_id":"none"|session_id: none/],
    },
    {tool: 'read', input: {path: 'notes.txt'}, expectInAnswer: [/(^|\s)1\D+status: draft$/m]},
    {
      tool: 'edit',
      input: {path: 'notes.txt', old_text: 'status: draft', new_text: 'status: final'},
      expectInAnswer: [/^-status: draft$/m, /^\+status: final$/m],
    },
  ]
  const stepId = (index: number) => `toolu_step_${index}`
  const SEARCH_ID = 'toolu_search'

  /**
   * The scripted model, driven by what the conversation holds: the first step whose call has no
   * result yet is next. Claude Code defers MCP tools behind ToolSearch, so when the step's tool is
   * only named, the model first loads the three definitions with it, as a model would.
   */
  function script(request: MessagesRequest): MockContentBlock[] {
    if (!JSON.stringify(request.messages).includes(PROMPT)) return [{type: 'text', text: 'ok'}] // a side request
    const results = toolResults(request)
    const next = steps.findIndex((_, index) => !results.has(stepId(index)))
    if (next > 0 && !answers.has(steps[next - 1]!.tool)) answers.set(steps[next - 1]!.tool, results.get(stepId(next - 1))!)
    if (next === -1) {
      answers.set(steps.at(-1)!.tool, results.get(stepId(steps.length - 1))!)
      return [{type: 'text', text: FINAL_TEXT}]
    }
    const step = steps[next]!
    const offer = toolOffer(request, qualified(step.tool))
    if (offer === 'deferred' && !results.has(SEARCH_ID)) {
      const query = `select:${steps.map((each) => qualified(each.tool)).join(',')}`
      return [{type: 'tool_use', id: SEARCH_ID, name: 'ToolSearch', input: {query}}]
    }
    if (offer === undefined) {
      problems.push(`step ${next}: Claude Code did not offer ${qualified(step.tool)}; tools: ${request.tools?.map((tool) => tool.name).join(', ')}`)
      return [{type: 'text', text: `MISSING TOOL ${step.tool}`}]
    }
    return [{type: 'tool_use', id: stepId(next), name: qualified(step.tool), input: step.input}]
  }

  before(async function () {
    if (!claude) {
      console.log(`      skipped: ${CLAUDE_PACKAGE} has no native binary installed for ${process.platform}-${process.arch}; run npm ci`)
      this.skip()
    }
    this.timeout(RUN_TIMEOUT_MS + 30_000)
    workspace = await realpath(await mkdtemp(path.join(tmpdir(), 'ak-claude-ws-')))
    await writeFile(path.join(workspace, 'notes.txt'), 'status: draft\n')
    mock = await startMockMessagesProvider(script)
    const printed = await execa(process.execPath, [RUN_JS, 'exec', 'config', '--client', 'claude', '--workspace', workspace, '--level', 'terminal', '--quiet'])
    const mcpConfig = path.join(workspace, '..', `${path.basename(workspace)}.mcp.json`)
    await writeFile(mcpConfig, printed.stdout)
    run = await execa(claude!, ['-p', PROMPT, '--mcp-config', mcpConfig, '--strict-mcp-config', '--allowedTools', `mcp__${server}`], {
      cwd: workspace,
      env: {
        ANTHROPIC_BASE_URL: mock.baseUrl,
        ANTHROPIC_API_KEY: 'sk-ant-test',
        // Nothing but the mock model: no update check, telemetry or error reporting.
        CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC: '1',
        DISABLE_AUTOUPDATER: '1',
      },
      stdin: 'ignore',
      reject: false,
      timeout: RUN_TIMEOUT_MS,
    })
    await rm(mcpConfig, {force: true})
  })

  after(async () => {
    await mock?.close()
    if (workspace) await rm(workspace, {recursive: true, force: true})
  })

  it('runs to the model’s final message', () => {
    expect(problems, `stderr:\n${String(run.stderr).slice(-4000)}`).to.deep.equal([])
    expect(mock.errors.map(String)).to.deep.equal([])
    expect(run.exitCode, `${String(run.stdout).slice(-2000)}\n${String(run.stderr).slice(-4000)}`).to.equal(0)
    expect(String(run.stdout)).to.contain(FINAL_TEXT)
  })

  it('sends each tool’s answer back to the model in the next request, with the expected text', () => {
    expect([...answers.keys()]).to.deep.equal(steps.map((step) => step.tool))
    for (const step of steps) {
      for (const pattern of step.expectInAnswer) expect(answers.get(step.tool), `${step.tool} answer`).to.match(pattern)
    }
  })

  it('changed the file on disk through edit', async () => {
    expect(await readFile(path.join(workspace, 'notes.txt'), 'utf8')).to.equal('status: final\n')
  })
})
