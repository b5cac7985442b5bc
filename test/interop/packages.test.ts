import {Client} from '@modelcontextprotocol/client'
import {StdioClientTransport} from '@modelcontextprotocol/client/stdio'
import {expect} from 'chai'
import {execFileSync, spawnSync} from 'node:child_process'
import {existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, realpathSync, rmSync, writeFileSync} from 'node:fs'
import {tmpdir} from 'node:os'
import path from 'node:path'
import {parse as parseToml} from 'smol-toml'

import {AK_VERSION} from '../../src/version.js'
import {REPO_ROOT, connectHttp} from '../helpers/clients.js'
import {startHttpServer} from '../helpers/http-server.js'
import {expectRefusal, olderSystemNode} from '../helpers/older-node.js'

const pkg = JSON.parse(readFileSync(path.join(REPO_ROOT, 'package.json'), 'utf8'))

/** The library usage AgentExec's README gives, line for line (the workspace is a placeholder). */
const README_SNIPPET = [
  'import { createAgentExec } from "@agentorg/exec";',
  'const exec = createAgentExec({ workspace: "/path/to/folder", level: "files" });',
  '// In a request handler, under any path, once you have decided the caller may reach it:',
  'await exec.handle(request, response);',
  "// When you're done, which stops any command still running:",
  'await exec.close();',
]

/**
 * A host application made of README_SNIPPET's lines as they are, the workspace placeholder
 * aside: the import and createAgentExec at the top, `exec.handle` in a node:http request handler
 * for /any/path, and `exec.close()` on SIGTERM.
 */
function hostApplication(workspace: string): string {
  const [importLine, createLine, handleComment, handleLine, closeComment, closeLine] = README_SNIPPET
  return [
    "import {createServer} from 'node:http'",
    importLine,
    createLine!.replace('/path/to/folder', workspace),
    'const server = createServer(async (request, response) => {',
    "  if (!request.url.startsWith('/any/path')) return void response.writeHead(404).end()",
    `  ${handleComment}`,
    `  ${handleLine}`,
    '})',
    "server.listen(0, '127.0.0.1', () => process.stderr.write(`listening on http://127.0.0.1:${server.address().port}/any/path/mcp\\n`))",
    "process.once('SIGTERM', async () => {",
    `  ${closeComment}`,
    `  ${closeLine}`,
    '  server.closeAllConnections()',
    '  server.close()',
    '})',
    '',
  ].join('\n')
}

/** The packages installed in `folder`'s node_modules, scoped ones as `@scope/name`. */
function installedPackages(folder: string): string[] {
  const modules = path.join(folder, 'node_modules')
  return readdirSync(modules)
    .filter((name) => !name.startsWith('.'))
    .flatMap((name) => (name.startsWith('@') ? readdirSync(path.join(modules, name)).map((inner) => `${name}/${inner}`) : [name]))
}

/** PATH with the Node.js running the tests first, so a bin's `#!/usr/bin/env node` finds Node.js 22. */
const NODE_22_PATH = [path.dirname(process.execPath), process.env.PATH ?? ''].join(path.delimiter)

describe('the npm packages, installed from their tarballs', function () {
  this.timeout(240_000)
  let scratch: string
  /** Install folder of each package, by name. */
  const installs: Record<string, string> = {}

  before(() => {
    scratch = mkdtempSync(path.join(tmpdir(), 'ak-packages-'))
    const out = path.join(scratch, 'pack')
    // `npm run pack` is `npm run build` and then this script; dist/ is built already.
    const written = execFileSync(process.execPath, [path.join(REPO_ROOT, 'scripts', 'pack.js'), '--out', out], {cwd: REPO_ROOT, encoding: 'utf8'})
    expect(written.trim().split('\n').map((line) => path.basename(line))).to.deep.equal([`agentorg-exec-${pkg.version}.tgz`, `agentorg-ak-${pkg.version}.tgz`])
    for (const name of ['exec', 'ak']) {
      const folder = path.join(scratch, `install-${name}`)
      mkdirSync(folder)
      const install = spawnSync('npm', ['install', '--offline', '--no-audit', '--no-fund', path.join(out, `agentorg-${name}-${pkg.version}.tgz`)], {
        cwd: folder,
        encoding: 'utf8',
      })
      expect(install.status, install.stderr).to.equal(0)
      expect(install.stderr).not.to.match(/allowScripts|install-scripts/)
      installs[`@agentorg/${name}`] = folder
    }
  })

  after(() => rmSync(scratch, {recursive: true, force: true}))

  for (const name of ['@agentorg/exec', '@agentorg/ak']) {
    it(`${name} installs alone: one package, no dependencies, no install script`, () => {
      const folder = installs[name]!
      expect(installedPackages(folder)).to.deep.equal([name])
      const installed = JSON.parse(readFileSync(path.join(folder, 'node_modules', name, 'package.json'), 'utf8'))
      expect(installed).to.include({version: pkg.version, license: 'Apache-2.0'})
      expect(installed.dependencies ?? {}).to.deep.equal({})
      expect(installed.optionalDependencies ?? {}).to.deep.equal({})
      expect(installed.peerDependencies ?? {}).to.deep.equal({})
      expect(Object.keys(installed.scripts ?? {}).filter((script) => /^(pre|post)?install$|^prepare$/.test(script))).to.deep.equal([])
      for (const file of ['LICENSE', 'NOTICE', 'README.md']) expect(existsSync(path.join(folder, 'node_modules', name, file)), file).to.equal(true)
    })
  }

  it("@agentorg/exec's README gives the library usage as this test runs it", () => {
    const readme = readFileSync(path.join(installs['@agentorg/exec']!, 'node_modules', '@agentorg', 'exec', 'README.md'), 'utf8')
    expect(readme).to.contain(['```js', ...README_SNIPPET, '```'].join('\n'))
  })

  it("@agentorg/ak's README speaks to those who installed it, not of a clone", () => {
    const readme = readFileSync(path.join(installs['@agentorg/ak']!, 'node_modules', '@agentorg', 'ak', 'README.md'), 'utf8')
    expect(readme).to.contain('npm install -g @agentorg/ak').and.contain('ak exec config --client codex')
    expect(readme).to.not.match(/npm ci|bin\/run\.js|npm test|\]\(docs\//)
  })

  it('runs the README\'s library usage against @agentorg/exec, served to a real MCP client under /any/path', async () => {
    const folder = installs['@agentorg/exec']!
    const workspace = path.join(scratch, 'workspace')
    mkdirSync(workspace)
    writeFileSync(path.join(workspace, 'notes.txt'), 'alpha\n')
    writeFileSync(path.join(folder, 'app.mjs'), hostApplication(workspace))
    const app = await startHttpServer(path.join(folder, 'app.mjs'), [], {cwd: folder})
    try {
      const client = await connectHttp('v2 (2026-07-28)', app.url)
      try {
        const edited = await client.call('edit', {path: 'notes.txt', old_text: 'alpha', new_text: 'beta'})
        expect(edited.isError, edited.text).to.equal(false)
        const read = await client.call('read', {path: 'notes.txt'})
        expect(read.text).to.contain('beta')
      } finally {
        await client.close()
      }
    } finally {
      expect(await app.stop('SIGTERM'), app.stderr()).to.equal(0)
    }
    expect(readFileSync(path.join(workspace, 'notes.txt'), 'utf8')).to.equal('beta\n')
  })

  /**
   * Serves `entry` (a host over @agentorg/exec, run with Node.js from the package's install folder)
   * to a real MCP client and runs a search in a workspace holding one file.
   */
  async function servesASearch(entry: string, workspace: string): Promise<void> {
    const app = await startHttpServer(entry, [], {cwd: installs['@agentorg/exec']!})
    try {
      const client = await connectHttp('v2 (2026-07-28)', app.url)
      try {
        const found = await client.call('search', {query: 'alpha'})
        expect(found.isError, found.text).to.equal(false)
        expect(found.text).to.contain('notes.txt')
      } finally {
        await client.close()
      }
    } finally {
      expect(await app.stop('SIGTERM'), app.stderr()).to.equal(0)
    }
  }

  /** The README's host as CommonJS: `require("@agentorg/exec")` in place of the import line. */
  function commonJsHost(workspace: string): string {
    return hostApplication(workspace)
      .replace("import {createServer} from 'node:http'", "const {createServer} = require('node:http')")
      .replace(README_SNIPPET[0]!, 'const { createAgentExec } = require("@agentorg/exec");')
  }

  it('require("@agentorg/exec") from a CommonJS host serves a search', async () => {
    const folder = installs['@agentorg/exec']!
    const workspace = path.join(scratch, 'workspace-cjs')
    mkdirSync(workspace)
    writeFileSync(path.join(workspace, 'notes.txt'), 'alpha\n')
    writeFileSync(path.join(folder, 'app.cjs'), commonJsHost(workspace))
    await servesASearch(path.join(folder, 'app.cjs'), workspace)
  })

  it('a CommonJS esbuild bundle of a host over @agentorg/exec builds and serves a search', async () => {
    const folder = installs['@agentorg/exec']!
    const workspace = path.join(scratch, 'workspace-bundle')
    mkdirSync(workspace)
    writeFileSync(path.join(workspace, 'notes.txt'), 'alpha\n')
    writeFileSync(path.join(folder, 'host.cjs'), commonJsHost(workspace))
    const {build} = await import('esbuild')
    const bundled = path.join(scratch, 'host-bundle.cjs')
    await build({entryPoints: [path.join(folder, 'host.cjs')], bundle: true, platform: 'node', format: 'cjs', target: 'node22', outfile: bundled, logLevel: 'silent'})
    await servesASearch(bundled, workspace)
  })

  it("types @agentorg/exec's library: createAgentExec's options and result check with tsc", () => {
    const folder = installs['@agentorg/exec']!
    writeFileSync(
      path.join(folder, 'typed.ts'),
      [
        "import {type AgentExec, type AgentExecOptions, createAgentExec} from '@agentorg/exec'",
        "const options: AgentExecOptions = {workspace: '.', level: 'terminal', sandbox: 'workspace-write'}",
        'const exec: AgentExec = createAgentExec(options)',
        'void exec.ready.then(() => exec.close())',
        '// @ts-expect-error an unknown level',
        "createAgentExec({workspace: '.', level: 'admin'})",
        '',
      ].join('\n'),
    )
    const tsc = spawnSync(
      process.execPath,
      [
        path.join(REPO_ROOT, 'node_modules', 'typescript', 'bin', 'tsc'),
        '--noEmit', '--strict', '--module', 'nodenext', '--moduleResolution', 'nodenext', '--target', 'es2023',
        '--typeRoots', path.join(REPO_ROOT, 'node_modules', '@types'), '--types', 'node',
        'typed.ts',
      ],
      {cwd: folder, encoding: 'utf8'},
    )
    expect(tsc.status, tsc.stdout + tsc.stderr).to.equal(0)
  })

  for (const [name, bin, expected] of [
    ['@agentorg/exec', 'agentexec', `agentexec ${AK_VERSION}\n`],
    ['@agentorg/ak', 'agentexec', `agentexec ${AK_VERSION}\n`],
    ['@agentorg/ak', 'ak', `@agentorg/ak/${AK_VERSION} `],
  ] as const) {
    it(`${name}'s ${bin} --version runs on Node.js 22`, () => {
      const result = spawnSync(path.join(installs[name]!, 'node_modules', '.bin', bin), ['--version'], {
        cwd: installs[name],
        env: {...process.env, PATH: NODE_22_PATH},
        encoding: 'utf8',
      })
      expect(result.status, result.stderr).to.equal(0)
      expect(result.stdout.startsWith(expected), result.stdout).to.equal(true)
    })
  }

  it("@agentorg/ak's ak serves AgentExec and runs commands from its bundle", () => {
    const folder = installs['@agentorg/ak']!
    const ak = path.join(folder, 'node_modules', '.bin', 'ak')
    const env = {...process.env, PATH: NODE_22_PATH}
    const initialize = {jsonrpc: '2.0', id: 1, method: 'initialize', params: {protocolVersion: '2025-06-18', capabilities: {}, clientInfo: {name: 't', version: '1'}}}
    const served = spawnSync(ak, ['exec', 'serve', '--workspace', folder], {env, input: `${JSON.stringify(initialize)}\n`, encoding: 'utf8'})
    expect(served.status, served.stderr).to.equal(0)
    expect(JSON.parse(served.stdout.split('\n')[0]!)).to.nested.include({'result.serverInfo.name': 'ak-exec'})
    const help = spawnSync(ak, ['codex-agent-runtime', 'serve', '--help'], {env, encoding: 'utf8'})
    expect(help.status, help.stderr).to.equal(0)
    expect(help.stdout).to.contain('--codex-home')
  })

  /**
   * The entry the installed `ak` at `bins` prints for `exec config --client codex` (or, with
   * `register`, writes into a Codex home), run with Node.js 22 on PATH but not the install's bins.
   */
  function installedAkEntries(bins: string, workspace: string): {config: {command: string; args: string[]}; registered: {command: string; args: string[]}} {
    const env = {...process.env, PATH: NODE_22_PATH}
    const printed = spawnSync(path.join(bins, 'ak'), ['exec', 'config', '--client', 'codex', '--level', 'files', '--workspace', workspace, '--quiet'], {env, encoding: 'utf8'})
    expect(printed.status, printed.stderr).to.equal(0)
    expect(printed.stdout).to.contain('default_tools_approval_mode = "approve"').and.not.contain('npx')
    // Nothing of the clone the tarballs came from, but the Node.js running the tests (which may lie in it).
    expect(printed.stdout.replaceAll(JSON.stringify(realpathSync(process.execPath)), '')).to.not.contain(REPO_ROOT)
    const codexHome = path.join(workspace, '.codex-home')
    mkdirSync(codexHome, {recursive: true})
    const registered = spawnSync(path.join(bins, 'ak'), ['codex-agent-runtime', 'register', '--codex-home', codexHome, '--plugin-root', workspace, '--yes'], {env, encoding: 'utf8'})
    expect(registered.status, registered.stderr).to.equal(0)
    const entries = (text: string) => Object.values((parseToml(text) as {mcp_servers: Record<string, {command: string; args: string[]}>}).mcp_servers)[0]!
    return {config: entries(printed.stdout), registered: entries(readFileSync(path.join(codexHome, 'config.toml'), 'utf8'))}
  }

  /** Starts `entry` under the reduced environment Codex gives an MCP server (no node, no ak on PATH) and lists its tools. */
  async function toolsOf(entry: {command: string; args: string[]}, workspace: string): Promise<string[]> {
    const client = new Client({name: 'ak-tests', version: '1.0.0'})
    const env = {HOME: workspace, PATH: '/usr/bin:/bin', SHELL: '/bin/sh', USER: 'nobody', LANG: 'C.UTF-8'}
    await client.connect(new StdioClientTransport({command: entry.command, args: entry.args, cwd: '/', env, stderr: 'pipe'}))
    try {
      return (await client.listTools()).tools.map((tool) => tool.name)
    } finally {
      await client.close()
    }
  }

  for (const where of ['a project', 'a prefix'] as const) {
    it(`@agentorg/ak installed into ${where}, its bins not on PATH: exec config and register name the Node.js and files that start that install, never npx`, async () => {
      let bins: string
      let packageRoot: string
      if (where === 'a project') {
        bins = path.join(installs['@agentorg/ak']!, 'node_modules', '.bin')
        packageRoot = path.join(installs['@agentorg/ak']!, 'node_modules', '@agentorg', 'ak')
      } else {
        const prefix = path.join(scratch, 'prefix')
        const tarball = path.join(scratch, 'pack', `agentorg-ak-${pkg.version}.tgz`)
        const install = spawnSync('npm', ['install', '--global', '--prefix', prefix, '--offline', '--no-audit', '--no-fund', tarball], {encoding: 'utf8'})
        expect(install.status, install.stderr).to.equal(0)
        bins = path.join(prefix, 'bin')
        packageRoot = path.join(prefix, 'lib', 'node_modules', '@agentorg', 'ak')
      }
      packageRoot = realpathSync(packageRoot)
      const workspace = mkdtempSync(path.join(scratch, 'workspace-entry-'))
      const {config, registered} = installedAkEntries(bins, workspace)
      const node = realpathSync(process.execPath)
      expect(config).to.deep.include({command: node, args: [path.join(packageRoot, 'dist', 'agentexec.js'), '--workspace', workspace, '--level', 'files']})
      expect(registered.command).to.equal(node)
      expect(registered.args.slice(0, 3)).to.deep.equal([path.join(packageRoot, 'bin', 'run.js'), 'codex-agent-runtime', 'serve'])
      expect(await toolsOf(config, workspace)).to.include('edit')
      const version = spawnSync(registered.command, [registered.args[0]!, '--version'], {env: {PATH: '/usr/bin:/bin'}, encoding: 'utf8'})
      expect(version.status, version.stderr).to.equal(0)
      expect(version.stdout).to.contain(`@agentorg/ak/${AK_VERSION}`)
    })
  }

  it("refuses the machine's older Node.js in one line, for both bins of both packages and the library", function () {
    const node = olderSystemNode()
    if (!node) {
      console.log('      (skipped: no Node.js older than 22.15 at /usr/bin/node or on PATH outside this project)')
      this.skip()
    }
    const oldPath = [path.dirname(node!), process.env.PATH ?? ''].join(path.delimiter)
    const cases = [
      ['@agentorg/exec', 'agentexec', 'agentexec'],
      ['@agentorg/ak', 'agentexec', 'agentexec'],
      ['@agentorg/ak', 'ak', 'ak'],
    ] as const
    for (const [name, bin, program] of cases) {
      const bins = path.join(installs[name]!, 'node_modules', '.bin')
      expectRefusal(spawnSync(node!, [path.join(bins, bin), '--version'], {input: ''}), program)
      // Through the bin link and its `#!/usr/bin/env node`, with the older Node.js first on PATH.
      expectRefusal(spawnSync(path.join(bins, bin), ['--version'], {env: {...process.env, PATH: oldPath}, input: ''}), program)
    }
    for (const name of ['@agentorg/exec', '@agentorg/ak']) {
      const importer = `import {createAgentExec} from ${JSON.stringify(name)}; console.log(typeof createAgentExec)`
      expectRefusal(spawnSync(node!, ['--input-type=module', '-e', importer], {cwd: installs[name], input: ''}), '@agentorg/exec')
    }
  })
})
