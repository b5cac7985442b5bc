/**
 * Dispatch through the real Codex CLI (the pinned `@openai/codex` dev dependency, whose binary
 * ships inside the npm package) against a mock model provider on loopback.
 */
import {expect} from 'chai'
import {existsSync} from 'node:fs'
import path from 'node:path'

import {applyConfigChange, planRegister} from '../../src/codex/registration.js'
import {CLIENT_LINES, REPO_ROOT, connectStdio} from '../helpers/clients.js'
import {tempDir, writeTree} from '../helpers/codex-fixtures.js'
import {type MockResponsesProvider, type ResponsesRequest, findTool, startMockResponsesProvider} from '../helpers/mock-responses-provider.js'

const CODEX_BIN_DIR = path.join(REPO_ROOT, 'node_modules', '.bin')
const FINAL_MESSAGE = 'The review found 2 problems.'
const TINY_MCP_SERVER = path.join(REPO_ROOT, 'test', 'fixtures', 'tiny-mcp-server.mjs')

describe('dispatch through the real Codex CLI', function () {
  this.timeout(120_000)
  let provider: MockResponsesProvider
  let dir: string
  let remove: () => Promise<void>
  let codexHome: string
  let workdir: string

  before(async function () {
    if (!existsSync(path.join(CODEX_BIN_DIR, 'codex'))) throw new Error('@openai/codex is not installed: run npm ci')
    provider = await startMockResponsesProvider(() => [{type: 'message', text: FINAL_MESSAGE}])
    ;({dir, remove} = await tempDir('ak-real-codex-'))
    codexHome = path.join(dir, 'codex-home')
    workdir = path.join(dir, 'work') // not a git repository: ak passes --skip-git-repo-check
    await writeTree(dir, {
      'codex-home/config.toml': [
        '# a user config with a provider on loopback',
        'model_provider = "mock"',
        '',
        '[model_providers.mock]',
        'name = "mock"',
        `base_url = "${provider.baseUrl}"`,
        'wire_api = "responses"',
        '',
      ].join('\n'),
      'codex-home/agents/reviewer.toml': [
        'name = "reviewer"',
        'description = "Reviews changes."',
        'developer_instructions = """Answer in one sentence.\nNever edit files."""',
        'model = "mock-model-7"',
        'model_reasoning_effort = "high"',
        'sandbox_mode = "read-only"',
        '',
      ].join('\n'),
      'codex-home/agents/librarian.toml': [
        'description = "Finds files."',
        // A model without metadata in Codex gets the plain request form, whose `tools` list names MCP tools.
        'model = "mock-model-7"',
        '[mcp_servers.files]',
        `command = ${JSON.stringify(process.execPath)}`,
        `args = ${JSON.stringify([TINY_MCP_SERVER])}`,
        'enabled_tools = ["list", "read"]',
        'required = true # a server that cannot start fails the run',
        '',
      ].join('\n'),
      'work/README.md': 'hello\n',
    })
    // Register this runtime in the Codex home, as a user would: the dispatched Codex must not start it.
    await applyConfigChange(await planRegister({codexHome, pluginRoot: path.join(dir, 'plugins')}, 'agents', {}))
  })

  after(async () => {
    await provider?.close()
    await remove?.()
  })

  for (const line of CLIENT_LINES) {
    it(`returns the agent's final message and sends its policy to the model (client ${line})`, async () => {
      const before = provider.requests.length
      const client = await connectStdio(line, ['codex-agent-runtime', 'serve', '--codex-home', codexHome, '--plugin-root', path.join(dir, 'plugins')], {
        cwd: workdir,
        env: {PATH: `${CODEX_BIN_DIR}${path.delimiter}${process.env.PATH}`},
      })
      try {
        const answer = await client.call('agent_reviewer', {prompt: 'Review the working tree.'})
        expect(answer, answer.text).to.deep.include({isError: false, text: FINAL_MESSAGE})
      } finally {
        await client.close()
      }
      const requests = provider.requests.slice(before)
      expect(requests).to.have.length(1)
      const body = requests[0]!
      expect(body.model).to.equal('mock-model-7')
      expect(body.reasoning).to.deep.include({effort: 'high'})
      const input = JSON.stringify(body.input)
      expect(input).to.contain(JSON.stringify('Answer in one sentence.\nNever edit files.').slice(1, -1))
      expect(input).to.contain('Review the working tree.')
      expect(findTool(body, 'agents', 'agent_reviewer')).to.equal(undefined)
      expect(JSON.stringify(body.tools)).not.to.contain('agent_reviewer')
      expect(provider.errors).to.deep.equal([])
    })
  }

  it("starts the agent's own MCP server with only the tools a call asks for", async () => {
    const client = await connectStdio('v1 (2025 era)', ['codex-agent-runtime', 'serve', '--codex-home', codexHome, '--plugin-root', path.join(dir, 'plugins')], {
      cwd: workdir,
      env: {PATH: `${CODEX_BIN_DIR}${path.delimiter}${process.env.PATH}`},
    })
    const bodies: ResponsesRequest[] = []
    try {
      // Codex does not always wait for an MCP server's tool list before its first request; a
      // fresh run is another chance. What is checked is which tools it offers once it has them.
      for (let attempt = 0; attempt < 3 && !bodies.some((body) => findTool(body, 'files', 'list')); attempt += 1) {
        const before = provider.requests.length
        const answer = await client.call('agent_librarian', {prompt: 'List the files.', tools: ['files.list']})
        expect(answer, answer.text).to.deep.include({isError: false, text: FINAL_MESSAGE})
        bodies.push(...provider.requests.slice(before))
      }
    } finally {
      await client.close()
    }
    const offered = JSON.stringify(bodies.map((body) => body.tools?.map((tool) => [tool.name, (tool.tools as Array<{name?: string}> | undefined)?.map((inner) => inner.name)])))
    expect(bodies.some((body) => findTool(body, 'files', 'list')), `the tool asked for, among ${offered}`).to.equal(true)
    expect(bodies.filter((body) => findTool(body, 'files', 'read')), 'requests offering a tool the call left out').to.deep.equal([])
  })
})
