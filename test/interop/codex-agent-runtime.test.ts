import {expect} from 'chai'
import {spawn, spawnSync} from 'node:child_process'
import {readFile, writeFile} from 'node:fs/promises'
import path from 'node:path'

import {CLIENT_LINES, MODERN_PROTOCOL_VERSION, RUN_JS, type TestClient, connectStdio} from '../helpers/clients.js'
import {eventually, isAlive, standInRuns, tempDir, trustConfig, writeStandInCodex, writeTree} from '../helpers/codex-fixtures.js'
import {initializeRaw, processGroupMembers, startServerProcess} from '../helpers/server-process.js'
import {OVERLONG_LINE, initializeThrough, startStdioRelay} from '../helpers/stdio-relay.js'

/**
 * A project trusted in a Codex home, with a project agent, a user agent, a kit agent and an
 * invalid one, served by the built ak with a stand-in `codex` on PATH.
 */
async function makeFixture() {
  const {dir, remove} = await tempDir('ak-runtime-')
  const project = path.join(dir, 'project')
  const codexHome = path.join(dir, 'codex-home')
  const pluginRoot = path.join(dir, 'plugins')
  const record = path.join(dir, 'runs.jsonl')
  await writeTree(project, {
    '.git/HEAD': '',
    '.codex/agents/reviewer.toml': [
      'name = "reviewer"',
      'description = "Reviews a change and lists the problems."',
      'developer_instructions = """Be strict.\nQuote "lines"."""',
      'model = "gpt-test"',
      'model_reasoning_effort = "high"',
      'sandbox_mode = "read-only"',
      '[mcp_servers.docs]',
      'command = "docs-mcp"',
      'enabled_tools = ["search", "read"]',
      '',
    ].join('\n'),
    '.codex/agents/broken.toml': 'description = "Broken"\nmodel = [\n',
  })
  await writeTree(codexHome, {
    'config.toml': trustConfig(
      {[project]: 'trusted'},
      '\n[mcp_servers.agents]\ncommand = "node"\nargs = ["/opt/ak/bin/run.js", "codex-agent-runtime", "serve"]\n',
    ),
    'agents/helper.toml': 'description = "Helps."\n',
  })
  await writeTree(pluginRoot, {'kit-a/.codex/agents/writer.toml': 'description = "Writes."\n'})
  const binDir = path.join(dir, 'bin')
  await writeStandInCodex(binDir, record)
  const args = ['codex-agent-runtime', 'serve', '--codex-home', codexHome, '--plugin-root', pluginRoot]
  const env = {PATH: `${binDir}${path.delimiter}${process.env.PATH}`}
  return {dir, project, codexHome, pluginRoot, record, args, env, remove}
}

type Fixture = Awaited<ReturnType<typeof makeFixture>>

for (const line of CLIENT_LINES) {
  describe(`ak codex-agent-runtime serve over stdio, client ${line}`, () => {
    let fixture: Fixture
    let client: TestClient

    before(async () => {
      fixture = await makeFixture()
      client = await connectStdio(line, fixture.args, {cwd: fixture.project, env: fixture.env})
    })
    after(async () => {
      await client?.close()
      await fixture?.remove()
    })

    it('speaks the protocol era of the client line', () => {
      if (line.startsWith('v2')) expect(client.protocolVersion).to.equal(MODERN_PROTOCOL_VERSION)
      else expect(client.protocolVersion).to.match(/^2025-/)
    })

    it('offers one agent_<slug> tool per agent, described by its file', async () => {
      const tools = await client.listTools()
      expect(tools.map((tool) => tool.name).sort()).to.deep.equal(['agent_broken', 'agent_helper', 'agent_reviewer', 'agent_writer'])
      const reviewer = tools.find((tool) => tool.name === 'agent_reviewer')!
      expect(reviewer.description).to.match(/^Reviews a change and lists the problems\./)
      expect(reviewer.inputSchema).to.have.nested.property('properties.prompt')
      expect(reviewer.inputSchema).to.have.nested.property('properties.tools')
      expect((reviewer.inputSchema as {required?: string[]}).required).to.deep.equal(['prompt'])
      expect(reviewer.outputSchema).to.deep.include({type: 'object', required: ['final_message', 'output_dropped_bytes']})
    })

    it('writes the startup line on stderr', () => {
      expect(client.stderr()).to.match(/ak \d+\.\d+\.\d+ serving 4 agents over stdio/)
    })

    it("answers with codex exec's stdout, run with the agent's policy", async () => {
      const answer = await client.call('agent_reviewer', {prompt: 'Review the diff'})
      expect(answer).to.deep.include({isError: false, text: 'answer: Review the diff'})
      // The tool declares an outputSchema (listed above, so the client checked the answer against it).
      expect(answer.structured).to.deep.equal({final_message: 'answer: Review the diff', output_dropped_bytes: 0})
      const run = (await standInRuns(fixture.record)).pop()!
      expect(run.stdin).to.equal('Review the diff')
      expect(run.cwd).to.equal(fixture.project)
      expect(run.codexHome).to.equal(fixture.codexHome)
      expect(run.argv.slice(0, 9)).to.deep.equal(['exec', '--cd', fixture.project, '--color', 'never', '-s', 'read-only', '-m', 'gpt-test'])
      expect(run.argv).not.to.include('--skip-git-repo-check')
      expect(run.argv).to.include('model_reasoning_effort="high"')
      expect(run.argv).to.include('developer_instructions="Be strict.\\nQuote \\"lines\\"."')
      expect(run.argv).to.include('mcp_servers.docs.enabled_tools=["search", "read"]')
      expect(run.argv).to.include('mcp_servers.agents.enabled=false')
      expect(run.argv[run.argv.length - 1]).to.equal('-')
    })

    it('narrows MCP tools to those asked for', async () => {
      await client.call('agent_reviewer', {prompt: 'Look it up', tools: ['docs.search']})
      const run = (await standInRuns(fixture.record)).pop()!
      expect(run.argv.filter((arg) => arg.startsWith('mcp_servers.docs.enabled_tools='))).to.deep.equal([
        'mcp_servers.docs.enabled_tools=["search", "read"]',
        'mcp_servers.docs.enabled_tools=["search"]',
      ])
    })

    it('refuses a tool the policy does not allow, without running codex', async () => {
      const before = (await standInRuns(fixture.record)).length
      const answer = await client.call('agent_reviewer', {prompt: 'Write it', tools: ['docs.write']})
      expect(answer.isError).to.equal(true)
      expect(answer.text).to.contain('allows only docs.search, docs.read')
      expect((await standInRuns(fixture.record)).length).to.equal(before)
    })

    it('answers a failed run with isError and the captured stderr, and keeps serving', async () => {
      const failed = await client.call('agent_helper', {prompt: 'FAIL now'})
      expect(failed.isError).to.equal(true)
      expect(failed.text).to.contain('exited with code 3').and.contain('model exploded')
      expect(await client.call('agent_helper', {prompt: 'again'})).to.deep.include({isError: false, text: 'answer: again'})
    })

    it('answers every call to an invalid agent with the parse error and its line', async () => {
      const answer = await client.call('agent_broken', {prompt: 'hi'})
      expect(answer.isError).to.equal(true)
      expect(answer.text).to.match(/does not parse as TOML \(line 3, column \d+/)
    })

    it('picks up an edit of the agent file on the next call', async () => {
      const file = path.join(fixture.codexHome, 'agents', 'helper.toml')
      await writeFile(file, 'description = "Helps."\nmodel = "edited-model"\n')
      await client.call('agent_helper', {prompt: 'hi'})
      expect((await standInRuns(fixture.record)).pop()!.argv).to.include('edited-model')
    })

    it('refuses an argument the tool does not define, naming the ones it takes, without running codex', async () => {
      const before = (await standInRuns(fixture.record)).length
      const answer = await client.call('agent_helper', {prompt: 'hi', extra: 1})
      expect(answer).to.deep.include({
        isError: true,
        text: 'agent_helper has no argument "extra", so the call did nothing. Its arguments are: prompt, tools.',
      })
      expect((await standInRuns(fixture.record)).length).to.equal(before)
    })

    it('refuses an empty prompt', async () => {
      expect((await client.call('agent_helper', {prompt: ''})).isError).to.equal(true)
      expect((await client.call('agent_helper', {prompt: '   '})).isError).to.equal(true)
    })

    it('sends progress notifications when the client asks for them', async () => {
      const messages: string[] = []
      const answer = await client.call('agent_writer', {prompt: 'draft'}, {onProgress: (progress) => messages.push(progress.message ?? '')})
      expect(answer.isError).to.equal(false)
      expect(messages[0]).to.equal('agent_writer: codex exec started')
    })

    it('stops the subprocess tree when the call is cancelled, and keeps serving', async () => {
      const pidsFile = `${fixture.record}.pids`
      await writeFile(pidsFile, '')
      const controller = new AbortController()
      const call = client.call('agent_writer', {prompt: 'HANG'}, {signal: controller.signal}).catch((error: unknown) => error)
      await eventually(async () => (await readFile(pidsFile, 'utf8')) !== '')
      const pids = JSON.parse(await readFile(pidsFile, 'utf8')) as number[]
      controller.abort()
      await call
      await eventually(() => pids.every((pid) => !isAlive(pid)))
      expect((await client.call('agent_writer', {prompt: 'still there?'})).isError).to.equal(false)
    })
  })
}

describe('ak codex-agent-runtime serve, process behaviour', () => {
  let fixture: Fixture
  before(async () => {
    fixture = await makeFixture()
  })
  after(() => fixture?.remove())

  const ak = (args: string[], options: {cwd?: string; env?: Record<string, string>} = {}) =>
    spawnSync(process.execPath, [RUN_JS, ...args], {
      cwd: options.cwd ?? fixture.project,
      env: {...process.env, ...fixture.env, ...options.env},
      encoding: 'utf8',
      input: '',
    })

  it('prints the discovery as plain text with --list-only, even with --json, and notes the flag on stderr', () => {
    const result = ak([...fixture.args, '--list-only', '--json'])
    expect(result.status).to.equal(0)
    expect(result.stdout).to.equal(
      [
        `codex home: ${fixture.codexHome}`,
        `plugin root: ${fixture.pluginRoot}`,
        `project agents: ${path.join(fixture.project, '.codex', 'agents')}`,
        'agents: 4',
        'broken  (project)  [invalid]',
        'helper',
        'reviewer  (project)',
        'writer  kit-a',
        '',
      ].join('\n'),
    )
    expect(result.stderr).to.contain('--json does not change the --list-only report')
    expect(result.stderr).to.match(/broken\.toml: it does not parse as TOML \(line 3/)
  })

  it('shows a skipped project with its reason', () => {
    const result = ak([...fixture.args, '--list-only'], {env: {}, cwd: fixture.project})
    expect(result.stdout).to.contain('project agents:')
    const untrusted = ak(['codex-agent-runtime', 'serve', '--list-only', '--codex-home', path.join(fixture.dir, 'empty-home'), '--plugin-root', fixture.pluginRoot])
    expect(untrusted.status).to.equal(0)
    expect(untrusted.stdout).to.match(/^project agents: skipped \(the project .* is not recorded as trusted in .*\)$/m)
    expect(untrusted.stderr).to.contain('are not served')
  })

  it('exits 1 when a root cannot be read', async () => {
    await writeFile(path.join(fixture.dir, 'not-a-folder'), '')
    const result = ak(['codex-agent-runtime', 'serve', '--list-only', '--codex-home', fixture.codexHome, '--plugin-root', path.join(fixture.dir, 'not-a-folder')])
    expect(result.status).to.equal(1)
    expect(result.stderr).to.contain('Cannot read the plugin root')
  })

  it('exits 2 for an unknown flag, an invalid flag value or a positional argument', () => {
    expect(ak([...fixture.args, '--list-only', '--bogus']).status).to.equal(2)
    expect(ak([...fixture.args, '--list-only', '--max-dispatches', '0']).status).to.equal(2)
    expect(ak([...fixture.args, '--list-only', 'extra']).status).to.equal(2)
  })

  it('exits 0 when the client disconnects, and notes ignored shared flags on stderr', () => {
    const result = ak([...fixture.args, '--quiet', '--yes'])
    expect(result.status).to.equal(0)
    expect(result.stdout).to.equal('')
    expect(result.stderr).to.contain('--quiet, --yes do not change ak codex-agent-runtime serve')
  })

  it('exits 0 on SIGTERM', async () => {
    const child = spawn(process.execPath, [RUN_JS, ...fixture.args], {cwd: fixture.project, env: {...process.env, ...fixture.env}, stdio: ['pipe', 'pipe', 'pipe']})
    let stderr = ''
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()))
    await eventually(() => stderr.includes('serving'))
    const exit = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)))
    child.kill('SIGTERM')
    expect(await exit).to.equal(0)
  })

  it('exits 0 on SIGHUP to its process group (a closed terminal), leaving no agent and no process of the group', async () => {
    const pidsFile = `${fixture.record}.pids`
    await writeFile(pidsFile, '')
    const server = startServerProcess(fixture.args, {cwd: fixture.project, env: fixture.env})
    await initializeRaw(server)
    server.send({jsonrpc: '2.0', id: 2, method: 'tools/call', params: {name: 'agent_helper', arguments: {prompt: 'HANG'}}})
    await eventually(async () => (await readFile(pidsFile, 'utf8')) !== '')
    const pids = JSON.parse(await readFile(pidsFile, 'utf8')) as number[]
    process.kill(-server.child.pid!, 'SIGHUP')
    expect(await server.exited(), server.stderr()).to.deep.equal({code: 0, signal: null})
    await eventually(() => pids.every((pid) => !isAlive(pid)))
    expect(processGroupMembers(server.child.pid!)).to.deep.equal([])
  })

  it('starts and lists tools without codex installed, and fails the call clearly', async () => {
    const client = await connectStdio('v1 (2025 era)', fixture.args, {cwd: fixture.project, env: {PATH: path.join(fixture.dir, 'empty-bin')}})
    try {
      expect((await client.listTools()).length).to.equal(4)
      const answer = await client.call('agent_helper', {prompt: 'hi'})
      expect(answer.isError).to.equal(true)
      expect(answer.text).to.contain('"codex" was not found')
    } finally {
      await client.close()
    }
  })

  it('stops running agents when the client disconnects', async () => {
    const pidsFile = `${fixture.record}.pids`
    await writeFile(pidsFile, '')
    const client = await connectStdio('v2 (2026-07-28)', fixture.args, {cwd: fixture.project, env: fixture.env})
    void client.call('agent_helper', {prompt: 'HANG'}).catch(() => undefined)
    await eventually(async () => (await readFile(pidsFile, 'utf8')) !== '')
    const pids = JSON.parse(await readFile(pidsFile, 'utf8')) as number[]
    await client.close()
    await eventually(() => pids.every((pid) => !isAlive(pid)))
  })

  for (const [ending, isOverlong] of [['the client process is killed with SIGKILL', false], ['a line over 10 MiB was answered first', true]] as const) {
    it(`exits 0 and stops running agents when ${ending}`, async () => {
      const pidsFile = `${fixture.record}.pids`
      await writeFile(pidsFile, '')
      const relay = await startStdioRelay(fixture.args, {cwd: fixture.project, env: fixture.env})
      try {
        await initializeThrough(relay)
        relay.send({jsonrpc: '2.0', id: 2, method: 'tools/call', params: {name: 'agent_helper', arguments: {prompt: 'HANG'}}})
        await eventually(async () => (await readFile(pidsFile, 'utf8')) !== '')
        const pids = JSON.parse(await readFile(pidsFile, 'utf8')) as number[]
        if (isOverlong) {
          relay.relay.stdin.write(OVERLONG_LINE)
          expect(((await relay.response(99)) as {error?: {code: number}}).error?.code).to.equal(-32_600)
          expect(pids.every((pid) => isAlive(pid)), 'the agent runs on after the answer').to.equal(true)
        }
        relay.relay.kill('SIGKILL')
        const {code, stderr} = await relay.akExit()
        expect(code, stderr).to.equal(0)
        expect(stderr).not.to.contain('unsettled')
        await eventually(() => pids.every((pid) => !isAlive(pid)))
      } finally {
        await relay.remove()
      }
    })
  }

  it('runs at most --max-dispatches agents at once; a further call waits, then runs', async () => {
    const pidsFile = `${fixture.record}.pids`
    await writeFile(pidsFile, '')
    const client = await connectStdio('v1 (2025 era)', [...fixture.args, '--max-dispatches', '1'], {cwd: fixture.project, env: fixture.env})
    try {
      const controller = new AbortController()
      const first = client.call('agent_helper', {prompt: 'HANG'}, {signal: controller.signal}).catch((error: unknown) => error)
      await eventually(async () => (await readFile(pidsFile, 'utf8')) !== '')
      const messages: string[] = []
      const second = client.call('agent_writer', {prompt: 'queued'}, {onProgress: (progress) => messages.push(progress.message ?? '')})
      await eventually(() => messages.length > 0)
      expect(messages[0]).to.equal('agent_writer: waiting for a free dispatch slot (at most 1 at once)')
      controller.abort()
      await first
      expect(await second).to.deep.include({isError: false, text: 'answer: queued'})
    } finally {
      await client.close()
    }
  })

  it('starts waiting calls in the order they arrived (first in, first out)', async () => {
    const {dir, remove} = await tempDir('ak-fifo-')
    try {
      const codexHome = path.join(dir, 'codex-home')
      const record = path.join(dir, 'runs.jsonl')
      // The first agent's file is the largest (long comments), so it takes the longest to read and plan.
      await writeTree(codexHome, {
        'agents/reviewer.toml': `description = "Reviews."\n${'# Be thorough, and quote the lines you mean.\n'.repeat(20_000)}`,
        'agents/other.toml': 'description = "Other."\n',
        'agents/dup.toml': 'description = "Dup."\n',
        'agents/inj.toml': 'description = "Inj."\n',
      })
      await writeTree(dir, {'work/.keep': ''})
      await writeStandInCodex(path.join(dir, 'bin'), record)
      const args = ['codex-agent-runtime', 'serve', '--codex-home', codexHome, '--plugin-root', path.join(dir, 'plugins'), '--max-dispatches', '1']
      const env = {PATH: `${path.join(dir, 'bin')}${path.delimiter}${process.env.PATH}`}
      const client = await connectStdio('v1 (2025 era)', args, {cwd: path.join(dir, 'work'), env})
      try {
        const order = ['reviewer', 'other', 'dup', 'inj']
        const answers = await Promise.all(order.map((slug) => client.call(`agent_${slug}`, {prompt: slug})))
        expect(answers.map((answer) => answer.text)).to.deep.equal(order.map((slug) => `answer: ${slug}`))
        expect((await standInRuns(record)).map((run) => run.stdin)).to.deep.equal(order)
      } finally {
        await client.close()
      }
    } finally {
      await remove()
    }
  })

  it('disables a server entry that starts this runtime through a shell script', async () => {
    const home = path.join(fixture.dir, 'shell-home')
    await writeTree(home, {
      'agents/shelly.toml': [
        'description = "Runs through a shell."',
        '[mcp_servers.c]',
        'command = "sh"',
        'args = ["-c", "ak codex-agent-runtime serve"]',
        '[mcp_servers.d]',
        'command = "bash"',
        'args = ["-lc", "exec env X=1 npx @agentorg/ak codex-agent-runtime serve"]',
        '',
      ].join('\n'),
    })
    const result = ak(['codex-agent-runtime', 'inspect', 'shelly', '--json', '--codex-home', home, '--plugin-root', fixture.pluginRoot])
    expect(result.status, result.stderr).to.equal(0)
    const report = JSON.parse(result.stdout)
    expect(report.args).to.include('mcp_servers.c.enabled=false')
    expect(report.args).to.include('mcp_servers.d.enabled=false')
  })

  it('inspects an agent: origin, policy and the exact codex exec command', () => {
    const result = ak(['codex-agent-runtime', 'inspect', 'reviewer', '--json', '--codex-home', fixture.codexHome, '--plugin-root', fixture.pluginRoot])
    expect(result.status).to.equal(0)
    const report = JSON.parse(result.stdout)
    expect(report).to.deep.include({slug: 'reviewer', origin: {kind: 'project'}, status: 'ok', command: 'codex'})
    expect(report.policy).to.deep.include({sandboxMode: 'read-only', model: 'gpt-test', reasoningEffort: 'high'})
    expect(report.args).to.include('mcp_servers.agents.enabled=false')
    const text = ak(['codex-agent-runtime', 'inspect', 'reviewer', '--codex-home', fixture.codexHome, '--plugin-root', fixture.pluginRoot])
    expect(text.stdout).to.match(/^command: CODEX_HOME=\S+ AK_CODEX_AGENT_DEPTH=1 codex exec --cd /m)
    expect(ak(['codex-agent-runtime', 'inspect', 'nosuch', '--codex-home', fixture.codexHome]).status).to.equal(1)
    expect(ak(['codex-agent-runtime', 'inspect', 'Bad Slug', '--codex-home', fixture.codexHome]).status).to.equal(2)
  })

  it('registers and unregisters through the commands, asking for --yes when it cannot ask', async () => {
    const home = path.join(fixture.dir, 'reg-home')
    await writeTree(home, {'config.toml': '# mine\nmodel = "x"\n'})
    const refused = ak(['codex-agent-runtime', 'register', '--codex-home', home, '--no-interactive'])
    expect(refused.status).to.equal(2)
    expect(refused.stderr).to.contain('Pass --yes')
    expect(await readFile(path.join(home, 'config.toml'), 'utf8')).to.equal('# mine\nmodel = "x"\n')
    const done = ak(['codex-agent-runtime', 'register', '--codex-home', home, '--yes', '--json', '--name', 'team'])
    expect(done.status).to.equal(0)
    expect(JSON.parse(done.stdout)).to.include({action: 'add', name: 'team'})
    expect(await readFile(path.join(home, 'config.toml'), 'utf8')).to.contain('[mcp_servers.team]\n')
    expect(ak(['codex-agent-runtime', 'unregister', '--codex-home', home, '--yes', '--name', 'team']).status).to.equal(0)
    expect(await readFile(path.join(home, 'config.toml'), 'utf8')).to.equal('# mine\nmodel = "x"\n')
  })

  it("keeps an approval mode the user set when registering again, and says what it means", async () => {
    const home = path.join(fixture.dir, 'asked-home')
    await writeTree(home, {'config.toml': ''})
    expect(ak(['codex-agent-runtime', 'register', '--codex-home', home, '--yes']).status).to.equal(0)
    const asked = (await readFile(path.join(home, 'config.toml'), 'utf8')).replace('default_tools_approval_mode = "approve"', 'default_tools_approval_mode = "writes"')
    await writeFile(path.join(home, 'config.toml'), asked)
    const again = ak(['codex-agent-runtime', 'register', '--codex-home', home, '--yes'])
    expect(again.status).to.equal(0)
    expect(again.stderr).to.contain('Kept your default_tools_approval_mode = "writes" in [mcp_servers.agents]: Codex asks before each agent call, and codex exec')
    expect(await readFile(path.join(home, 'config.toml'), 'utf8')).to.equal(asked)
  })
})
