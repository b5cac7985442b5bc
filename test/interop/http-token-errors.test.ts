import {Client as ClientV1} from '@modelcontextprotocol/sdk/client/index.js'
import type {OAuthClientProvider} from '@modelcontextprotocol/sdk/client/auth.js'
import {StreamableHTTPClientTransport as HttpV1} from '@modelcontextprotocol/sdk/client/streamableHttp.js'
import {expect} from 'chai'
import {mkdtemp, realpath, rm} from 'node:fs/promises'
import {tmpdir} from 'node:os'
import path from 'node:path'

import {CLIENT_LINES, RUN_JS, connectHttp} from '../helpers/clients.js'
import {CODEX_RUN_TIMEOUT_MS, runCodexExec} from '../helpers/codex-exec.js'
import {type HttpServerProcess, startHttpServer} from '../helpers/http-server.js'

const TOKEN = 'token-errors-0123456789abcdef'

/**
 * A wrong or missing token is reported by each real client as a token problem naming
 * AGENTEXEC_TOKEN, never as a login ak does not have: the TypeScript clients (1.x and 2.x), the
 * 1.x client with an OAuth provider as the MCP Inspector runs it (it must not start OAuth for a
 * wrong token), and Codex with an HTTP entry that names the variable (it must stop, not run
 * without ak).
 */
describe('a wrong or missing bearer token, as clients report it', function () {
  this.timeout(CODEX_RUN_TIMEOUT_MS + 60_000)
  let workspace: string
  let server: HttpServerProcess

  before(async () => {
    workspace = await realpath(await mkdtemp(path.join(tmpdir(), 'ak-token-ws-')))
    server = await startHttpServer(RUN_JS, ['exec', 'serve', '--workspace', workspace, '--http', '127.0.0.1:0'], {env: {AGENTEXEC_TOKEN: TOKEN}})
  })

  after(async () => {
    await server?.stop()
    await rm(workspace, {recursive: true, force: true})
  })

  for (const line of CLIENT_LINES) {
    for (const [label, token] of [['a wrong token', 'wrong'], ['no token', undefined]] as const) {
      it(`${line} client with ${label}: an error ${token === undefined ? '(401)' : '(403, no login asked for)'} naming AGENTEXEC_TOKEN`, async () => {
        const error = await connectHttp(line, server.url, token === undefined ? {} : {token}).then(
          async (client) => {
            await client.close()
            throw new Error('served without the token')
          },
          (refusal: Error & {code?: unknown; data?: {text?: string}}) => refusal,
        )
        // 1.x shows the body and keeps the status as the error's code; 2.x words the status and keeps the body in its data.
        expect(`${String(error)} ${String(error.code)} ${error.data?.text ?? ''}`).to.contain('AGENTEXEC_TOKEN').and.contain(token === undefined ? '401' : '403')
      })
    }
  }

  it('a client with an OAuth provider (as the MCP Inspector) and a wrong token: no OAuth flow, an error naming AGENTEXEC_TOKEN', async () => {
    const logStart = server.stderr().length
    const oauthSteps: string[] = []
    const provider: OAuthClientProvider = {
      redirectUrl: 'http://127.0.0.1:1/callback',
      clientMetadata: {redirect_uris: ['http://127.0.0.1:1/callback'], client_name: 'ak-tests'},
      clientInformation: () => undefined,
      saveClientInformation: () => void oauthSteps.push('register'),
      tokens: () => undefined,
      saveTokens: () => void oauthSteps.push('tokens'),
      redirectToAuthorization: () => void oauthSteps.push('redirect'),
      saveCodeVerifier: () => undefined,
      codeVerifier: () => '',
    }
    const transport = new HttpV1(new URL(server.url), {authProvider: provider, requestInit: {headers: {authorization: 'Bearer wrong'}}})
    const error = await new ClientV1({name: 'ak-tests', version: '1.0.0'}).connect(transport).then(
      () => new Error('served with a wrong token'),
      (refusal: Error) => refusal,
    )
    expect(String(error)).to.contain('AGENTEXEC_TOKEN').and.not.contain('OAuth')
    expect(oauthSteps, 'OAuth steps taken').to.deep.equal([])
    expect(server.stderr().slice(logStart), 'requests the server saw').to.not.match(/\.well-known|\/register|\/token/)
  })

  it('Codex with a wrong token in the variable its entry names: stops with an error naming AGENTEXEC_TOKEN', async () => {
    const block = [`[mcp_servers.ak]`, `url = "${server.url}"`, `bearer_token_env_var = "AGENTEXEC_TOKEN"`, 'required = true', ''].join('\n')
    const run = await runCodexExec({block, cwd: workspace, env: {AGENTEXEC_TOKEN: 'wrong'}, script: () => [{type: 'message', text: 'RAN WITHOUT AK'}]})
    expect(run.exitCode, run.stderr.slice(-3000)).to.not.equal(0)
    expect(run.stderr).to.match(/required MCP servers failed to initialize: ak: .*AGENTEXEC_TOKEN/)
    expect(run.stdout).to.not.contain('RAN WITHOUT AK')
  })
})
