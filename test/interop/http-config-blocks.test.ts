import {expect} from 'chai'
import {execa} from 'execa'
import {mkdtemp, realpath, rm, writeFile} from 'node:fs/promises'
import {tmpdir} from 'node:os'
import path from 'node:path'

import {DEFAULT_CONFIG_SERVER_NAME} from '../../src/exec/serving/client-config.js'
import {CLAUDE_PACKAGE, claudeBinary, mockClaudeEnvironment} from '../helpers/claude-code.js'
import {RUN_JS} from '../helpers/clients.js'
import {CODEX_RUN_TIMEOUT_MS, runCodexExec} from '../helpers/codex-exec.js'
import {type HttpServerProcess, startHttpServer} from '../helpers/http-server.js'
import {type MessagesRequest, type MockContentBlock, startMockMessagesProvider, toolOffer, toolResults} from '../helpers/mock-messages-provider.js'
import {type ResponsesRequest, findTool, functionCallOutputs} from '../helpers/mock-responses-provider.js'

/**
 * The `--http` blocks `ak exec config` prints, pasted unchanged into the real clients: an
 * `ak exec serve --http 127.0.0.1:0` runs with a token, `ak exec config --client <c> --http
 * 127.0.0.1:<its port>` prints the block, and the client, given the same AGENTEXEC_TOKEN in its own
 * environment, lists ak's tools through it and calls `read`.
 */
const TOKEN = 'http-block-test-token-0123456789abcdef'
const LEVEL = 'files'
/** What a model sees of `read`'s answer: the file's one line. */
const NOTE = 'status: printed-http-block'
const RUN_TIMEOUT_MS = 180_000

describe('the --http blocks ak exec config prints, in the real clients', function () {
  this.timeout(2 * CODEX_RUN_TIMEOUT_MS + 60_000)
  let workspace: string
  let server: HttpServerProcess
  let hostPort: string

  /** The block `ak exec config --client <client> --http <hostPort>` prints on stdout. */
  async function printedBlock(client: string): Promise<string> {
    const printed = await execa(process.execPath, [RUN_JS, 'exec', 'config', '--client', client, '--http', hostPort, '--workspace', workspace, '--level', LEVEL, '--quiet'])
    expect(printed.stdout, 'the block never holds the token').to.not.contain(TOKEN)
    return printed.stdout
  }

  before(async () => {
    workspace = await realpath(await mkdtemp(path.join(tmpdir(), 'ak-http-blocks-')))
    await writeFile(path.join(workspace, 'notes.txt'), `${NOTE}\n`)
    server = await startHttpServer(RUN_JS, ['exec', 'serve', '--workspace', workspace, '--level', LEVEL, '--http', '127.0.0.1:0'], {env: {AGENTEXEC_TOKEN: TOKEN}})
    hostPort = new URL(server.url).host
  })

  after(async () => {
    await server?.stop()
    if (workspace) await rm(workspace, {recursive: true, force: true})
  })

  it('Codex: the printed block connects with the token, lists the tools and runs read', async () => {
    const offered: string[] = []
    let answer: string | undefined
    const script = (request: ResponsesRequest, turn: number) => {
      if (turn > 0) {
        answer = functionCallOutputs(request).get('call_read')
        return [{type: 'message' as const, text: 'DONE'}]
      }
      for (const tool of ['read', 'list', 'search', 'edit']) if (findTool(request, DEFAULT_CONFIG_SERVER_NAME, tool)) offered.push(tool)
      const read = findTool(request, DEFAULT_CONFIG_SERVER_NAME, 'read')
      return read ? [{type: 'function_call' as const, ...read, arguments: {path: 'notes.txt'}, callId: 'call_read'}] : [{type: 'message' as const, text: 'NO READ'}]
    }
    const run = await runCodexExec({block: await printedBlock('codex'), script, cwd: workspace, env: {AGENTEXEC_TOKEN: TOKEN}})
    expect(run.exitCode, run.stderr.slice(-3000)).to.equal(0)
    expect(offered, run.stderr.slice(-3000)).to.deep.equal(['read', 'list', 'search', 'edit'])
    expect(answer).to.contain(NOTE)
  })

  it('Claude Code: the printed JSON connects with the token, lists the tools and runs read', async function () {
    const claude = claudeBinary()
    if (!claude) {
      console.log(`      skipped: ${CLAUDE_PACKAGE} has no native binary installed for ${process.platform}-${process.arch}; run npm ci`)
      this.skip()
    }
    const prompt = 'Read the notes through the printed HTTP block.'
    const qualified = (tool: string) => `mcp__${DEFAULT_CONFIG_SERVER_NAME}__${tool}`
    const offers = new Map<string, string | undefined>()
    let answer: string | undefined
    const script = (request: MessagesRequest): MockContentBlock[] => {
      if (!JSON.stringify(request.messages).includes(prompt)) return [{type: 'text', text: 'ok'}] // a side request
      const results = toolResults(request)
      if (results.has('toolu_read')) {
        answer = results.get('toolu_read')
        return [{type: 'text', text: 'DONE'}]
      }
      for (const tool of ['read', 'list', 'search', 'edit']) offers.set(tool, toolOffer(request, qualified(tool)))
      const offer = toolOffer(request, qualified('read'))
      // Claude Code defers MCP tools behind ToolSearch: load read's definition first, as a model would.
      if (offer === 'deferred' && !results.has('toolu_search')) return [{type: 'tool_use', id: 'toolu_search', name: 'ToolSearch', input: {query: `select:${qualified('read')}`}}]
      if (offer === undefined) return [{type: 'text', text: 'NO READ'}]
      return [{type: 'tool_use', id: 'toolu_read', name: qualified('read'), input: {path: 'notes.txt'}}]
    }
    const mock = await startMockMessagesProvider(script)
    const mcpConfig = path.join(workspace, '..', `${path.basename(workspace)}.mcp.json`)
    try {
      await writeFile(mcpConfig, await printedBlock('claude'))
      const run = await execa(claude!, ['-p', prompt, '--mcp-config', mcpConfig, '--strict-mcp-config', '--allowedTools', `mcp__${DEFAULT_CONFIG_SERVER_NAME}`], {
        cwd: workspace,
        env: {...mockClaudeEnvironment(mock.baseUrl), AGENTEXEC_TOKEN: TOKEN},
        stdin: 'ignore',
        reject: false,
        timeout: RUN_TIMEOUT_MS,
      })
      expect(mock.errors.map(String)).to.deep.equal([])
      expect(run.exitCode, `${String(run.stdout).slice(-2000)}\n${String(run.stderr).slice(-3000)}`).to.equal(0)
      expect([...offers.values()], JSON.stringify([...offers])).to.not.include(undefined)
      expect(answer, String(run.stdout).slice(-2000)).to.contain(NOTE)
    } finally {
      await mock.close()
      await rm(mcpConfig, {force: true})
    }
  })
})
