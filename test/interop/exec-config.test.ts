import {Client} from '@modelcontextprotocol/client'
import {StdioClientTransport} from '@modelcontextprotocol/client/stdio'
import {expect} from 'chai'
import {execFileSync, spawnSync} from 'node:child_process'
import {existsSync} from 'node:fs'
import {appendFile, chmod, copyFile, mkdir, mkdtemp, readFile, realpath, rm, symlink, writeFile} from 'node:fs/promises'
import {tmpdir} from 'node:os'
import path from 'node:path'
import {parse as parseToml} from 'smol-toml'

import {LEVELS} from '../../src/exec/level.js'
import {checkSandbox} from '../../src/exec/terminal/sandbox.js'
import {CODEX_STARTUP_TIMEOUT_SEC} from '../../src/launch/codex-server-start.js'
import {EXEC_TOOLS} from '../../src/exec/tools/index.js'
import {BUNDLE, STANDALONE_BUNDLE, STANDALONE_SERVER} from '../helpers/bundle.js'
import {CLIENT_LINES, RUN_JS, connectStdio} from '../helpers/clients.js'

/** The environment Codex gives a stdio MCP server: a short allow-list, no npm, no node on PATH. */
function reducedEnvironment(home: string): Record<string, string> {
  return {HOME: home, PATH: '/usr/bin:/bin', SHELL: '/bin/sh', USER: 'nobody', LANG: 'C.UTF-8'}
}

describe('ak exec config and ak exec tools against a served AgentExec', () => {
  let workspace: string

  before(async () => {
    workspace = await realpath(await mkdtemp(path.join(tmpdir(), 'ak-config-interop-')))
    await writeFile(path.join(workspace, 'hello.txt'), 'hi')
  })

  after(async () => {
    await rm(workspace, {recursive: true, force: true})
  })

  it('starts the Codex block with a blank line, so appending it to a config without a final line break stays valid TOML', async () => {
    const config = path.join(workspace, 'config.toml')
    await writeFile(config, 'model = "x"')
    const block = execFileSync(process.execPath, [RUN_JS, 'exec', 'config', '--client', 'codex', '--workspace', workspace, '-q'], {encoding: 'utf8'})
    await appendFile(config, block)
    const parsed = parseToml(await readFile(config, 'utf8')) as {model: string; mcp_servers: Record<string, unknown>}
    expect(parsed.model).to.equal('x')
    expect(parsed.mcp_servers).to.have.property('ak-exec')
  })

  it('confines the commands of a terminal block to the workspace where bubblewrap works, says so, and warns for --sandbox off', async function () {
    this.timeout(60_000)
    const sandbox = await checkSandbox({mode: 'workspace-write', network: false}, {workspace})
    const printed = spawnSync(process.execPath, [RUN_JS, 'exec', 'config', '--client', 'claude', '--workspace', workspace, '--level', 'terminal'], {encoding: 'utf8'})
    expect(printed.status, printed.stderr).to.equal(0)
    const server = (JSON.parse(printed.stdout) as {mcpServers: Record<string, {command: string; args: string[]}>}).mcpServers['ak-exec']!
    if (!sandbox.ok) {
      expect(server.args).to.not.include('--sandbox')
      expect(printed.stderr).to.contain('ak: warning: The block runs commands without a sandbox')
      this.skip()
    }
    expect(server.args.slice(-2)).to.deep.equal(['--sandbox', 'workspace-write'])
    expect(printed.stderr).to.contain("Commands run in ak's sandbox (--sandbox workspace-write")
    const outside = await mkdtemp(path.join(tmpdir(), 'ak-config-outside-'))
    const client = new Client({name: 'ak-tests', version: '1.0.0'})
    await client.connect(new StdioClientTransport({command: server.command, args: server.args, cwd: '/', env: reducedEnvironment(workspace), stderr: 'pipe'}))
    try {
      const run = async (cmd: string) => ((await client.callTool({name: 'exec_command', arguments: {cmd}})) as {structuredContent: {exit_code: number}}).structuredContent.exit_code
      expect(await run('echo in > inside.txt')).to.equal(0)
      expect(await run(`echo out > ${outside}/outside.txt`)).to.not.equal(0)
      expect(await readFile(path.join(workspace, 'inside.txt'), 'utf8')).to.equal('in\n')
      expect(existsSync(path.join(outside, 'outside.txt'))).to.equal(false)
    } finally {
      await client.close()
      await rm(outside, {recursive: true, force: true})
    }
    const off = spawnSync(process.execPath, [RUN_JS, 'exec', 'config', '--client', 'claude', '--workspace', workspace, '--level', 'terminal', '--sandbox', 'off', '-q'], {encoding: 'utf8'})
    expect(off.status).to.equal(0)
    expect(JSON.parse(off.stdout).mcpServers['ak-exec'].args).to.not.include('--sandbox')
    expect(off.stderr).to.contain('ak: warning: --sandbox off:')
  })

  it('starts a working server from the Codex block under a reduced environment and another directory', async () => {
    const block = execFileSync(process.execPath, [RUN_JS, 'exec', 'config', '--client', 'codex', '--workspace', workspace, '-q'], {
      encoding: 'utf8',
    })
    const server = (parseToml(block) as {mcp_servers: Record<string, {command: string; args: string[]}>}).mcp_servers['ak-exec']!
    const transport = new StdioClientTransport({
      command: server.command,
      args: server.args,
      cwd: '/',
      env: reducedEnvironment(workspace),
      stderr: 'pipe',
    })
    const client = new Client({name: 'ak-tests', version: '1.0.0'})
    await client.connect(transport)
    try {
      const result = (await client.callTool({name: 'list', arguments: {}})) as {content: Array<{text: string}>}
      expect(result.content[0]!.text).to.contain('hello.txt  2 bytes')
    } finally {
      await client.close()
    }
  })

  describe('from an installed package', () => {
    let prefix: string
    let packageRoot: string

    /** A global npm prefix holding the one-file CLI and server as `@agentorg/ak`, with its bins linked into `bin/`. */
    before(async () => {
      prefix = await realpath(await mkdtemp(path.join(tmpdir(), 'ak-prefix-')))
      packageRoot = path.join(prefix, 'lib', 'node_modules', '@agentorg', 'ak')
      await mkdir(path.join(packageRoot, 'dist'), {recursive: true})
      await mkdir(path.join(prefix, 'bin'))
      for (const [file, bin] of [[BUNDLE, 'ak'], [STANDALONE_SERVER, 'agentexec']] as const) {
        const installed = path.join(packageRoot, 'dist', path.basename(file))
        await copyFile(file, installed)
        await chmod(installed, 0o755)
        await symlink(path.relative(path.join(prefix, 'bin'), installed), path.join(prefix, 'bin', bin))
      }
      // The agentexec launcher imports the bundle beside it.
      await copyFile(STANDALONE_BUNDLE, path.join(packageRoot, 'dist', path.basename(STANDALONE_BUNDLE)))
    })

    after(async () => {
      await rm(prefix, {recursive: true, force: true})
    })

    /** The Codex block the installed ak prints with `path` as PATH. */
    function printedEntry(searchPath: string): {command: string; args: string[]} {
      const block = execFileSync(process.execPath, [path.join(packageRoot, 'dist', 'ak.mjs'), 'exec', 'config', '--client', 'codex', '--workspace', workspace, '--level', 'files', '-q'], {
        encoding: 'utf8',
        env: {...process.env, PATH: searchPath},
      })
      return (parseToml(block) as {mcp_servers: Record<string, {command: string; args: string[]}>}).mcp_servers['ak-exec']!
    }

    it('names its agentexec bin when PATH finds it, and that entry starts a working server', async () => {
      const nodeDir = path.dirname(process.execPath)
      const server = printedEntry([path.join(prefix, 'bin'), nodeDir, '/usr/bin', '/bin'].join(path.delimiter))
      expect(server).to.deep.equal({
        command: 'agentexec',
        args: ['--workspace', workspace, '--level', 'files'],
        required: true,
        startup_timeout_sec: CODEX_STARTUP_TIMEOUT_SEC,
        default_tools_approval_mode: 'approve',
      })
      const transport = new StdioClientTransport({
        command: server.command,
        args: server.args,
        cwd: '/',
        env: {...reducedEnvironment(workspace), PATH: [path.join(prefix, 'bin'), nodeDir, '/usr/bin', '/bin'].join(path.delimiter)},
        stderr: 'pipe',
      })
      const client = new Client({name: 'ak-tests', version: '1.0.0'})
      await client.connect(transport)
      try {
        const {tools} = await client.listTools()
        expect(tools.map((tool) => tool.name)).to.include('edit')
      } finally {
        await client.close()
      }
    })

    it("names the Node.js running it and the install's agentexec file when its bins are not on PATH, and that entry starts a working server", async () => {
      const server = printedEntry(['/usr/bin', '/bin'].join(path.delimiter))
      expect(server.command).to.equal(process.execPath)
      expect(server.args).to.deep.equal([path.join(packageRoot, 'dist', 'agentexec.js'), '--workspace', workspace, '--level', 'files'])
      // Under the reduced environment Codex gives it: no node and no ak on PATH.
      const transport = new StdioClientTransport({command: server.command, args: server.args, cwd: '/', env: reducedEnvironment(workspace), stderr: 'pipe'})
      const client = new Client({name: 'ak-tests', version: '1.0.0'})
      await client.connect(transport)
      try {
        const {tools} = await client.listTools()
        expect(tools.map((tool) => tool.name)).to.include('edit')
      } finally {
        await client.close()
      }
    })
  })

  for (const line of CLIENT_LINES) {
    it(`prints with --json the same tool definitions a ${line} client lists from exec serve, at the highest level`, async () => {
      const level = LEVELS.at(-1)!
      const printed = JSON.parse(
        execFileSync(process.execPath, [RUN_JS, 'exec', 'tools', '--level', level, '--json'], {encoding: 'utf8'}),
      ) as {tools: unknown[]}
      expect(printed.tools).to.have.length(EXEC_TOOLS.length)
      const client = await connectStdio(line, ['exec', 'serve', '--workspace', workspace, '--level', level])
      try {
        expect(printed.tools).to.deep.equal(await client.listTools())
      } finally {
        await client.close()
      }
    })
  }
})

describe('ak exec config --http', () => {
  it('prints the HTTP form and the serve line, never the token, and refuses port 0', () => {
    const token = 'never-shown-0123456789'
    const run = spawnSync(process.execPath, [RUN_JS, 'exec', 'config', '--client', 'claude', '--http', '127.0.0.1:8765', '--workspace', tmpdir(), '--level', 'files'], {
      encoding: 'utf8',
      env: {...process.env, AGENTEXEC_TOKEN: token},
    })
    expect(run.status, run.stderr).to.equal(0)
    expect(JSON.parse(run.stdout).mcpServers['ak-exec']).to.deep.equal({type: 'http', url: 'http://127.0.0.1:8765/mcp', headers: {Authorization: 'Bearer ${AGENTEXEC_TOKEN}'}})
    expect(run.stderr).to.contain('ak exec serve --http 127.0.0.1:8765 --workspace')
    expect(run.stdout + run.stderr).to.not.contain(token)
    const zero = spawnSync(process.execPath, [RUN_JS, 'exec', 'config', '--client', 'codex', '--http', '127.0.0.1:0'], {encoding: 'utf8'})
    expect(zero.status).to.equal(2)
    expect(zero.stderr).to.contain('give the port the server listens on')
  })
})
