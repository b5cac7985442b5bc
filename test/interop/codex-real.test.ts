/**
 * Dispatch through the real Codex CLI (the pinned `@openai/codex` dev dependency, whose binary
 * ships inside the npm package) against a mock model provider on loopback.
 */
import {expect} from 'chai'
import {execFile} from 'node:child_process'
import {existsSync} from 'node:fs'
import {readFile, writeFile} from 'node:fs/promises'
import path from 'node:path'
import {promisify} from 'node:util'

import {applyConfigChange, planRegister} from '../../src/codex/registration.js'
import {CLIENT_LINES, REPO_ROOT, RUN_JS, connectStdio} from '../helpers/clients.js'
import {tempDir, writeTree} from '../helpers/codex-fixtures.js'
import {
  type MockOutputItem,
  type MockResponsesProvider,
  type ResponsesRequest,
  findTool,
  functionCallOutputs,
  startMockResponsesProvider,
} from '../helpers/mock-responses-provider.js'

const CODEX_BIN_DIR = path.join(REPO_ROOT, 'node_modules', '.bin')
const FINAL_MESSAGE = 'The review found 2 problems.'
/** The prompt of a `codex exec` that calls an agent through the registered runtime; it marks that run's requests. */
const CALLER_PROMPT = 'Ask the reviewer agent to review the working tree.'
const TINY_MCP_SERVER = path.join(REPO_ROOT, 'test', 'fixtures', 'tiny-mcp-server.mjs')
const run = promisify(execFile)

/** Every tool name a request offers, MCP tools as `<namespace>/<tool>`. */
function offeredToolNames(body: ResponsesRequest): string[] {
  return (body.tools ?? []).flatMap((entry) => {
    const nested = entry.tools as Array<{name?: unknown}> | undefined
    return Array.isArray(nested) ? nested.map((tool) => `${String(entry.name)}/${String(tool.name)}`) : [String(entry.name)]
  })
}

/** Makes `dir` a git repository with one commit, as Codex finds projects by their `.git`. */
async function gitInit(dir: string): Promise<void> {
  const git = (...args: string[]) => run('git', ['-c', 'user.name=t', '-c', 'user.email=t@example.com', ...args], {cwd: dir})
  await git('init', '-q')
  await git('commit', '-q', '--allow-empty', '-m', 'start')
}

/**
 * The scripted model: a dispatched agent's run answers FINAL_MESSAGE; the `codex exec` started
 * with CALLER_PROMPT calls agent_reviewer of the registered runtime `agents`, then repeats the
 * agent's answer, or says which tool it did not get.
 */
function callerOrAgent(request: ResponsesRequest): MockOutputItem[] {
  if (!JSON.stringify(request.input).includes(CALLER_PROMPT)) return [{type: 'message', text: FINAL_MESSAGE}]
  const answer = functionCallOutputs(request).get('call_agent')
  if (answer !== undefined) return [{type: 'message', text: `AGENT SAID: ${answer}`}]
  const tool = findTool(request, 'agents', 'agent_reviewer')
  if (!tool) return [{type: 'message', text: `NO AGENT TOOL among ${JSON.stringify(request.tools?.map((entry) => entry.name))}`}]
  return [{type: 'function_call', ...tool, arguments: {prompt: 'Review the working tree.'}, callId: 'call_agent'}]
}

describe('dispatch through the real Codex CLI', function () {
  this.timeout(120_000)
  let provider: MockResponsesProvider
  let dir: string
  let remove: () => Promise<void>
  let codexHome: string
  let workdir: string

  before(async function () {
    if (!existsSync(path.join(CODEX_BIN_DIR, 'codex'))) throw new Error('@openai/codex is not installed: run npm ci')
    provider = await startMockResponsesProvider(callerOrAgent)
    ;({dir, remove} = await tempDir('ak-real-codex-'))
    codexHome = path.join(dir, 'codex-home')
    workdir = path.join(dir, 'work') // not a git repository: ak passes --skip-git-repo-check
    await writeTree(dir, {
      'codex-home/config.toml': [
        '# a user config with a provider on loopback',
        'model_provider = "mock"',
        // Wait for MCP servers to start before the first turn (Codex's default grace is one second).
        'mcp_optional_startup_grace_ms = 0',
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

  /** Runs `codex exec` with CALLER_PROMPT in the Codex home; its stdout and stderr, and the agent runs it dispatched. */
  async function callAgentThroughCodex(): Promise<{stdout: string; stderr: string; agentRuns: number}> {
    const before = provider.requests.length
    // A model Codex has no metadata for gets the plain request form, whose `tools` list holds the MCP tools.
    const started = run(path.join(CODEX_BIN_DIR, 'codex'), ['exec', '--skip-git-repo-check', '--color', 'never', '-m', 'mock-caller', CALLER_PROMPT], {
      cwd: workdir,
      env: {...process.env, CODEX_HOME: codexHome, PATH: `${CODEX_BIN_DIR}${path.delimiter}${process.env.PATH}`},
      timeout: 90_000,
    })
    started.child.stdin?.end() // with stdin open, codex exec waits to append it to the prompt
    const codex = await started.catch((error: {stdout?: string; stderr?: string; message: string}) => ({stdout: error.stdout ?? '', stderr: `${error.message}\n${error.stderr ?? ''}`}))
    return {...codex, agentRuns: provider.requests.slice(before).filter((body) => body.model === 'mock-model-7').length}
  }

  it('runs an agent call from codex exec through the entry register wrote, as written', async () => {
    const codex = await callAgentThroughCodex()
    expect(codex.agentRuns, `a dispatched agent run; codex stderr:\n${codex.stderr.slice(-3000)}`).to.equal(1)
    expect(codex.stdout, codex.stderr.slice(-3000)).to.contain('AGENT SAID: ').and.contain(FINAL_MESSAGE)
    expect(provider.errors).to.deep.equal([])
  })

  it('has codex exec decline the agent call once the entry asks for approval instead', async () => {
    const config = path.join(codexHome, 'config.toml')
    const written = await readFile(config, 'utf8')
    await writeFile(config, written.replace('default_tools_approval_mode = "approve"', 'default_tools_approval_mode = "writes"'))
    try {
      const codex = await callAgentThroughCodex()
      expect(codex.agentRuns).to.equal(0)
      expect(codex.stdout, codex.stderr.slice(-3000)).to.contain('AGENT SAID: ').and.contain('requires approval')
    } finally {
      await writeFile(config, written)
    }
  })

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

  describe('in a project', () => {
    let repo: string
    let projectHome: string
    const providerConfig = () =>
      ['model_provider = "mock"', '', '[model_providers.mock]', 'name = "mock"', `base_url = "${provider.baseUrl}"`, 'wire_api = "responses"', ''].join('\n')

    before(async () => {
      repo = path.join(dir, 'repo')
      projectHome = path.join(dir, 'project-codex-home')
      await writeTree(dir, {
        'repo/README.md': 'hello\n',
        'project-codex-home/agents/reviewer.toml': 'description = "Reviews changes."\nmodel = "mock-model-7"\n',
      })
      await gitInit(repo)
    })

    it("keeps a runtime registered in the trusted project's own .codex/config.toml out of the dispatched run", async () => {
      const plugins = path.join(dir, 'plugins')
      await writeTree(dir, {
        'project-codex-home/config.toml': `${providerConfig()}\n[projects.${JSON.stringify(repo)}]\ntrust_level = "trusted"\n`,
        // required: were it started, Codex would wait for it and offer its agent_* tools to the model
        'repo/.codex/config.toml': [
          '[mcp_servers.project_agents]',
          `command = ${JSON.stringify(process.execPath)}`,
          `args = ${JSON.stringify([RUN_JS, 'codex-agent-runtime', 'serve', '--codex-home', projectHome, '--plugin-root', plugins])}`,
          'required = true',
          '',
        ].join('\n'),
      })
      const client = await connectStdio('v1 (2025 era)', ['codex-agent-runtime', 'serve', '--codex-home', projectHome, '--plugin-root', plugins], {
        cwd: repo,
        env: {PATH: `${CODEX_BIN_DIR}${path.delimiter}${process.env.PATH}`},
      })
      const before = provider.requests.length
      try {
        const answer = await client.call('agent_reviewer', {prompt: 'Review.'})
        expect(answer, answer.text).to.deep.include({isError: false, text: FINAL_MESSAGE})
      } finally {
        await client.close()
      }
      const requests = provider.requests.slice(before)
      expect(requests).to.have.length.at.least(1)
      const offered = requests.map((body) => offeredToolNames(body).filter((name) => /(^|__)agent_|project_agents/.test(name)))
      expect(offered, 'agent tools offered to the dispatched run').to.deep.equal(requests.map(() => []))
    })

    for (const level of ['untrusted', 'trusted'] as const) {
      it(`serves the agents of a folder marked ${level} inside a trusted repository exactly when Codex loads that folder's config`, async () => {
        const app = path.join(repo, 'app')
        await writeTree(dir, {
          'project-codex-home/config.toml':
            `${providerConfig()}\n[projects.${JSON.stringify(repo)}]\ntrust_level = "trusted"\n\n[projects.${JSON.stringify(app)}]\ntrust_level = "${level}"\n`,
          'repo/.codex/config.toml': '',
          'repo/app/.codex/config.toml': 'model = "model-from-app-layer"\n',
          'repo/app/.codex/agents/fixer.toml': 'description = "Fixes."\n',
        })
        const env = {...process.env, CODEX_HOME: projectHome, PATH: `${CODEX_BIN_DIR}${path.delimiter}${process.env.PATH}`}
        const listed = await run(process.execPath, [RUN_JS, 'codex-agent-runtime', 'serve', '--list-only', '--codex-home', projectHome, '--plugin-root', path.join(dir, 'plugins')], {cwd: app, env})
        const before = provider.requests.length
        const codex = run(path.join(CODEX_BIN_DIR, 'codex'), ['exec', '--color', 'never', 'Say hello.'], {cwd: app, env})
        codex.child.stdin?.end() // with stdin open, codex exec waits to append it to the prompt
        await codex
        const codexLoadsApp = provider.requests.slice(before).some((body) => body.model === 'model-from-app-layer')
        expect(codexLoadsApp, 'Codex loads the folder config').to.equal(level === 'trusted')
        expect(listed.stdout.includes('fixer'), listed.stdout).to.equal(codexLoadsApp)
      })
    }
  })
})
