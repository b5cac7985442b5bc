import {expect} from 'chai'
import {execa} from 'execa'
import {existsSync} from 'node:fs'
import {mkdtemp, realpath, rm, writeFile} from 'node:fs/promises'
import {createRequire} from 'node:module'
import {tmpdir} from 'node:os'
import path from 'node:path'

import {RUN_JS} from '../helpers/clients.js'
import {type TappedMessage, writeMcpTap} from '../helpers/mcp-tap.js'
import {type MockMessagesProvider, startMockMessagesProvider, toolOffer, toolResults} from '../helpers/mock-messages-provider.js'

/**
 * Claude Code 2.1.332 following a long exec_command as an MCP task. It declares the Tasks
 * extension only in its interactive CLI: the feature's default is on for the `cli` entrypoint
 * and off for headless `claude -p` (`sdk-cli`; CLAUDE_CODE_ENTRYPOINT=cli is turned back into
 * `sdk-cli` under -p, and no setting turns the feature on, CLAUDE_CODE_DISABLE_MCP_TASKS only
 * off). So the test runs it interactively in a pseudo-terminal (`script`), scripted end to end by
 * a mock Messages API on loopback: the model calls exec_command of a 60 s command (far past its
 * default 10 s yield), and must receive the command's output without any write_stdin call. A tap
 * between Claude Code and ak (test/helpers/mcp-tap.ts) records what Claude Code sent.
 */
const CLAUDE_PACKAGE = '@anthropic-ai/claude-code'
const PROMPT = 'Run the long build.'
const COMMAND_SECONDS = 60
const COMMAND = `sleep ${COMMAND_SECONDS}; echo build-$((6*7))-finished`
const OUTPUT = 'build-42-finished'
const RUN_LIMIT_MS = 240_000

function claudeBinary(): string | undefined {
  try {
    const packageDir = path.dirname(createRequire(import.meta.url).resolve(`${CLAUDE_PACKAGE}/package.json`))
    const fromPackage = createRequire(path.join(packageDir, 'package.json'))
    const binary = path.join(path.dirname(fromPackage.resolve(`${CLAUDE_PACKAGE}-${process.platform}-${process.arch}/package.json`)), 'claude')
    return existsSync(binary) ? binary : undefined
  } catch {
    return undefined
  }
}

describe('Claude Code (interactive) following a long exec_command as an MCP task', function () {
  this.timeout(RUN_LIMIT_MS + 60_000)
  const claude = claudeBinary()
  const tool = 'mcp__ak__exec_command'
  let dir: string
  let mock: MockMessagesProvider
  let delivered: string | undefined
  let firstAnswer: string | undefined
  const toolsCalled: string[] = []
  let tapped: TappedMessage[] = []

  before(async function () {
    if (!claude || !existsSync('/usr/bin/script')) {
      console.log('      skipped: needs the native claude binary and script(1) for a pseudo-terminal')
      this.skip()
    }
    dir = await realpath(await mkdtemp(path.join(tmpdir(), 'ak-claude-tasks-')))
    const workspace = path.join(dir, 'ws')
    const home = path.join(dir, 'home')
    await execa('mkdir', ['-p', workspace, home])
    // A first run's questions answered in advance: onboarding, the API key, trusting the folder.
    await writeFile(
      path.join(home, '.claude.json'),
      JSON.stringify({
        hasCompletedOnboarding: true,
        theme: 'dark',
        customApiKeyResponses: {approved: ['sk-ant-test'], rejected: []},
        projects: {[workspace]: {hasTrustDialogAccepted: true, hasCompletedProjectOnboarding: true}},
      }),
    )
    mock = await startMockMessagesProvider((request) => {
      const conversation = JSON.stringify(request.messages)
      if (!conversation.includes(PROMPT)) return [{type: 'text', text: 'ok'}]
      for (const message of request.messages) {
        if (typeof message.content === 'string') continue
        for (const block of message.content) if (block.type === 'tool_use') toolsCalled.push(String(block.name))
      }
      if (conversation.includes(OUTPUT)) {
        delivered = conversation
        return [{type: 'text', text: 'BUILD DONE'}]
      }
      const results = toolResults(request)
      if (results.has('toolu_build')) {
        firstAnswer = results.get('toolu_build')
        return [{type: 'text', text: 'Waiting for the build.'}]
      }
      if (toolOffer(request, tool) === 'deferred' && !results.has('toolu_search')) {
        return [{type: 'tool_use', id: 'toolu_search', name: 'ToolSearch', input: {query: `select:${tool}`}}]
      }
      return [{type: 'tool_use', id: 'toolu_build', name: tool, input: {cmd: COMMAND}}]
    })
    const tap = await writeMcpTap(dir, [process.execPath, RUN_JS, 'exec', 'serve', '--workspace', workspace, '--level', 'terminal'])
    const config = path.join(dir, 'mcp.json')
    await writeFile(config, JSON.stringify({mcpServers: {ak: {command: tap.command, args: tap.args}}}))
    const quoted = [claude!, PROMPT, '--mcp-config', config, '--strict-mcp-config', '--allowedTools', 'mcp__ak'].map((arg) => `'${arg.replace(/'/g, `'\\''`)}'`).join(' ')
    const child = execa('script', ['-qfec', quoted, '/dev/null'], {
      cwd: workspace,
      env: {HOME: home, TERM: 'xterm', ANTHROPIC_BASE_URL: mock.baseUrl, ANTHROPIC_API_KEY: 'sk-ant-test', CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC: '1', DISABLE_AUTOUPDATER: '1'},
      stdin: 'pipe',
      reject: false,
      timeout: RUN_LIMIT_MS,
    })
    const started = Date.now()
    while (!delivered && Date.now() - started < RUN_LIMIT_MS - 5_000 && child.exitCode === null) await new Promise((resolve) => setTimeout(resolve, 500))
    child.kill('SIGTERM')
    await child
    tapped = await tap.messages()
  })

  after(async () => {
    await mock?.close()
    if (dir) await rm(dir, {recursive: true, force: true})
  })

  const calls = (name: string) =>
    tapped.filter(({from, message}) => from === 'client' && message.method === 'tools/call' && message.params?.name === name)
  const answerTo = (id: unknown) => tapped.find(({from, message}) => from === 'server' && message.id === id)?.message

  it('declares the Tasks extension on its exec_command call and gets a task back', () => {
    const [call] = calls('exec_command')
    expect(call, 'the exec_command call on the wire').to.not.equal(undefined)
    const meta = call!.message.params!._meta as Record<string, {extensions?: Record<string, unknown>}>
    expect(meta['io.modelcontextprotocol/clientCapabilities']?.extensions).to.have.property('io.modelcontextprotocol/tasks')
    expect(answerTo(call!.message.id)?.result).to.include({resultType: 'task', status: 'working'})
  })

  it('tells the model the call runs in the background', () => {
    expect(firstAnswer, 'the first tool result').to.match(/started server-side task/)
  })

  it('follows the task with tasks/get until it completes', () => {
    const polls = tapped.filter(({from, message}) => from === 'client' && message.method === 'tasks/get')
    // The command runs COMMAND_SECONDS, the task starts at the 10 s yield, and pollIntervalMs is 2 s.
    expect(polls.length, 'tasks/get calls').to.be.greaterThan(5)
    const last = answerTo(polls.at(-1)!.message.id)?.result
    expect(last).to.include({status: 'completed'})
    expect(JSON.stringify(last)).to.contain(OUTPUT)
  })

  it('delivers the command’s output to the model without a write_stdin call', () => {
    expect(delivered, 'a request carrying the output').to.be.a('string')
    expect(delivered).to.match(/task-notification/)
    expect(toolsCalled.filter((name) => name.endsWith('write_stdin'))).to.deep.equal([])
    expect(calls('write_stdin')).to.deep.equal([])
  })
})
