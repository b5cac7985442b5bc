import {expect} from 'chai'
import {parse as parseToml} from 'smol-toml'

import {BadInputError} from '../../../../src/errors.js'
import {MORE_CONFIG_CLIENTS, OPENCODE_SCHEMA, OPENCODE_TIMEOUT_MS} from '../../../../src/exec/serving/client-blocks.js'
import {renderClientConfig} from '../../../../src/exec/serving/client-config.js'
import {CODEX_REQUIRED_COMMENT, CODEX_STARTUP_TIMEOUT_SEC} from '../../../../src/launch/codex-server-start.js'
import {CODEX_APPROVAL_COMMENT} from '../../../../src/launch/codex-tool-approval.js'
import {RUN_JS} from '../../../helpers/clients.js'

const workspace = '/home/dev/my "app"'
const expectedArgs = [RUN_JS, 'exec', 'serve', '--workspace', workspace, '--level', 'files']

describe('renderClientConfig', () => {
  it('writes a Codex [mcp_servers.<name>] table with absolute command and args', () => {
    const config = renderClientConfig({client: 'codex', workspace, level: 'files'})
    expect(config.text.startsWith('[mcp_servers.ak-exec]\n')).to.equal(true)
    expect(parseToml(config.text)).to.deep.equal({
      mcp_servers: {
        'ak-exec': {command: process.execPath, args: expectedArgs, required: true, startup_timeout_sec: CODEX_STARTUP_TIMEOUT_SEC, default_tools_approval_mode: 'approve'},
      },
    })
    expect(parseToml(config.text)).to.deep.equal({mcp_servers: {'ak-exec': config.server}})
  })

  for (const level of ['files', 'terminal'] as const) {
    it(`lets codex exec run the tools at ${level}, under a one-line comment saying how to be asked instead`, () => {
      const lines = renderClientConfig({client: 'codex', workspace, level}).text.trimEnd().split('\n')
      expect(lines.slice(-2)).to.deep.equal([`# ${CODEX_APPROVAL_COMMENT}`, 'default_tools_approval_mode = "approve"'])
      expect(CODEX_APPROVAL_COMMENT).to.contain('codex exec').and.contain('"writes"')
    })
  }

  for (const level of ['read', 'files', 'terminal'] as const) {
    it(`makes Codex wait for the server and fail without it at ${level}, under a comment saying so`, () => {
      const config = renderClientConfig({client: 'codex', workspace, level})
      expect(config.text).to.contain(`\n# ${CODEX_REQUIRED_COMMENT}\nrequired = true\nstartup_timeout_sec = ${CODEX_STARTUP_TIMEOUT_SEC}\n`)
      expect(config.server).to.include({required: true, startup_timeout_sec: CODEX_STARTUP_TIMEOUT_SEC})
      expect(CODEX_STARTUP_TIMEOUT_SEC, 'longer than Codex\'s own 30 s').to.be.above(30)
    })
  }

  it('leaves the approval mode to Codex at read, where every tool is read-only', () => {
    const config = renderClientConfig({client: 'codex', workspace, level: 'read'})
    expect(config.text).not.to.contain('approval')
    expect(config.server).not.to.have.property('default_tools_approval_mode')
  })

  it('writes no Codex key into the JSON of the other clients', () => {
    for (const client of ['claude', 'vscode'] as const) {
      expect(renderClientConfig({client, workspace, level: 'terminal'}).text).not.to.contain('approval')
    }
  })

  it('writes Claude mcpServers JSON', () => {
    const config = renderClientConfig({client: 'claude', workspace, level: 'files', name: 'work_files'})
    expect(JSON.parse(config.text)).to.deep.equal({
      mcpServers: {work_files: {command: process.execPath, args: expectedArgs}},
    })
  })

  it('writes VS Code servers JSON with type stdio', () => {
    const config = renderClientConfig({client: 'vscode', workspace, level: 'files'})
    expect(JSON.parse(config.text)).to.deep.equal({
      servers: {'ak-exec': {type: 'stdio', command: process.execPath, args: expectedArgs}},
    })
  })

  it('passes the sandbox on to the server it starts, and nothing for none', () => {
    const sandboxed = renderClientConfig({client: 'claude', workspace, level: 'terminal', sandbox: {mode: 'workspace-write', network: true}})
    expect((sandboxed.server as {args: string[]}).args.slice(-3)).to.deep.equal(['--sandbox', 'workspace-write', '--sandbox-network'])
    const none = renderClientConfig({client: 'claude', workspace, level: 'terminal', sandbox: {mode: 'off', network: true}})
    expect((none.server as {args: string[]}).args).to.not.include('--sandbox')
  })

  it("starts the installed package by its agentexec bin, or by node and the install's agentexec file, never npx", () => {
    const serve = ['--workspace', workspace, '--level', 'terminal']
    const global = renderClientConfig({client: 'codex', workspace, level: 'terminal', install: {kind: 'package', version: '1.2.3', binsOnPath: ['ak', 'agentexec'], node: '/opt/node', packageRoot: '/pkg'}})
    expect(parseToml(global.text)).to.deep.equal({mcp_servers: {'ak-exec': {command: 'agentexec', args: serve, required: true, startup_timeout_sec: CODEX_STARTUP_TIMEOUT_SEC, default_tools_approval_mode: 'approve'}}})
    const local = renderClientConfig({client: 'claude', workspace, level: 'terminal', install: {kind: 'package', version: '1.2.3', binsOnPath: [], node: '/opt/node', packageRoot: '/pkg'}})
    expect(JSON.parse(local.text)).to.deep.equal({mcpServers: {'ak-exec': {command: '/opt/node', args: ['/pkg/dist/agentexec.js', ...serve]}}})
  })

  it("writes each client's HTTP form for a running server, naming the token's variable, never a launch line", () => {
    const url = 'http://127.0.0.1:8765/mcp'
    const codex = renderClientConfig({client: 'codex', workspace, level: 'files', url})
    expect(parseToml(codex.text)).to.deep.equal({
      mcp_servers: {
        'ak-exec': {url, bearer_token_env_var: 'AGENTEXEC_TOKEN', required: true, startup_timeout_sec: CODEX_STARTUP_TIMEOUT_SEC, default_tools_approval_mode: 'approve'},
      },
    })
    expect(JSON.parse(renderClientConfig({client: 'claude', workspace, level: 'files', url}).text)).to.deep.equal({
      mcpServers: {'ak-exec': {type: 'http', url, headers: {Authorization: 'Bearer ${AGENTEXEC_TOKEN}'}}},
    })
    expect(JSON.parse(renderClientConfig({client: 'vscode', workspace, level: 'files', url}).text)).to.deep.equal({
      servers: {'ak-exec': {type: 'http', url, headers: {Authorization: 'Bearer ${env:AGENTEXEC_TOKEN}'}}},
    })
  })

  it('refuses a server name a client would not accept', () => {
    expect(() => renderClientConfig({client: 'codex', workspace, level: 'read', name: 'my server'})).to.throw(
      BadInputError,
      /letters, digits/,
    )
  })
})

describe('renderClientConfig for Gemini CLI, OpenCode, Cursor, Windsurf and Zed', () => {
  const url = 'http://127.0.0.1:8765/mcp'

  it('writes each client\'s key and stdio entry, with the same launch line as the others', () => {
    const launch = {command: process.execPath, args: expectedArgs}
    const expected = {
      gemini: {mcpServers: {'ak-exec': {...launch, trust: true}}},
      opencode: {$schema: OPENCODE_SCHEMA, mcp: {'ak-exec': {type: 'local', command: [process.execPath, ...expectedArgs], enabled: true, timeout: OPENCODE_TIMEOUT_MS}}},
      cursor: {mcpServers: {'ak-exec': launch}},
      windsurf: {mcpServers: {'ak-exec': launch}},
      zed: {context_servers: {'ak-exec': {source: 'custom', ...launch, env: {}}}},
    }
    for (const client of MORE_CONFIG_CLIENTS) {
      const config = renderClientConfig({client, workspace, level: 'files'})
      expect(JSON.parse(config.text), client).to.deep.equal(expected[client])
      expect(Object.values(JSON.parse(config.text) as Record<string, unknown>).at(-1), client).to.deep.equal({'ak-exec': config.server})
    }
  })

  it('asks OpenCode to wait for the start as long as Codex, not its own 5 s', () => {
    expect(OPENCODE_TIMEOUT_MS).to.equal(CODEX_STARTUP_TIMEOUT_SEC * 1000).and.be.above(5000)
  })

  it('says before the Gemini CLI block that the folder must be trusted, naming it', () => {
    expect(renderClientConfig({client: 'gemini', workspace, level: 'read'}).steps).to.contain('does not trust').and.contain(`"${workspace}": "TRUST_FOLDER"`)
  })

  it("writes each client's HTTP form, naming the token's variable in the client's own syntax", () => {
    const http = (client: (typeof MORE_CONFIG_CLIENTS)[number]) => JSON.parse(renderClientConfig({client, workspace, level: 'files', url}).text)
    expect(http('gemini')).to.deep.equal({mcpServers: {'ak-exec': {httpUrl: url, headers: {Authorization: 'Bearer ${AGENTEXEC_TOKEN}'}, trust: true}}})
    expect(http('opencode').mcp['ak-exec']).to.deep.equal({type: 'remote', url, headers: {Authorization: 'Bearer {env:AGENTEXEC_TOKEN}'}, enabled: true, timeout: OPENCODE_TIMEOUT_MS})
    expect(http('cursor')).to.deep.equal({mcpServers: {'ak-exec': {url, headers: {Authorization: 'Bearer ${env:AGENTEXEC_TOKEN}'}}}})
    expect(http('windsurf')).to.deep.equal({mcpServers: {'ak-exec': {serverUrl: url, headers: {Authorization: 'Bearer ${env:AGENTEXEC_TOKEN}'}}}})
    expect(() => http('zed')).to.throw(BadInputError, /leave out --http/)
  })
})
