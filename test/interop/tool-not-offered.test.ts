import {expect} from 'chai'
import {randomBytes} from 'node:crypto'
import {mkdtemp, rm} from 'node:fs/promises'
import {type Server, createServer} from 'node:http'
import type {AddressInfo} from 'node:net'
import {tmpdir} from 'node:os'
import path from 'node:path'

import {type AgentExec, createAgentExec} from '../../src/index.js'
import {CLIENT_LINES, RUN_JS, type TestClient, connectHttp, connectStdio} from '../helpers/clients.js'
import {type HttpServerProcess, startHttpServer} from '../helpers/http-server.js'

const TOKEN = randomBytes(24).toString('hex')

/** What a client sees when a `tools/call` is refused as a JSON-RPC error. */
async function refusal(client: TestClient, tool: string): Promise<{code: unknown; message: string}> {
  try {
    const answer = await client.call(tool, {path: 'a.txt', old_text: 'a', new_text: 'b'})
    throw new Error(`tools/call ${tool} was answered: ${answer.text}`)
  } catch (error) {
    const {code, message} = error as {code?: unknown; message: string}
    return {code, message}
  }
}

/**
 * A `tools/call` for a tool the server does not offer gets JSON-RPC error -32602 (the MCP spec's
 * code for an unknown tool) saying what to do: over stdio, HTTP and library mode alike.
 */
describe('a tools/call for a tool the server does not offer', () => {
  let workspace: string
  let http: HttpServerProcess
  let library: AgentExec
  let libraryServer: Server
  let libraryUrl: string

  before(async () => {
    workspace = await mkdtemp(path.join(tmpdir(), 'ak-not-offered-'))
    http = await startHttpServer(RUN_JS, ['exec', 'serve', '--workspace', workspace, '--level', 'read', '--http', '127.0.0.1:0'], {
      env: {AGENTEXEC_TOKEN: TOKEN},
    })
    library = createAgentExec({workspace, level: 'read'})
    libraryServer = createServer((req, res) => void library.handle(req, res))
    await new Promise<void>((resolve) => libraryServer.listen(0, '127.0.0.1', resolve))
    libraryUrl = `http://127.0.0.1:${(libraryServer.address() as AddressInfo).port}/mcp`
  })

  after(async () => {
    if (http) expect(await http.stop('SIGTERM')).to.equal(0)
    await library?.close()
    libraryServer?.closeAllConnections()
    await new Promise((resolve) => libraryServer?.close(resolve))
    await rm(workspace, {recursive: true, force: true})
  })

  const transports: Array<[string, (line: (typeof CLIENT_LINES)[number]) => Promise<TestClient>]> = [
    ['stdio', (line) => connectStdio(line, ['exec', 'serve', '--workspace', workspace, '--level', 'read'])],
    ['HTTP', (line) => connectHttp(line, http.url, {token: TOKEN})],
    ['library mode', (line) => connectHttp(line, libraryUrl)],
  ]
  for (const [transport, connect] of transports) {
    for (const line of CLIENT_LINES) {
      describe(`over ${transport}, client ${line}`, () => {
        let client: TestClient
        before(async () => (client = await connect(line)))
        after(async () => client?.close())

        it('above the served level: -32602 saying it is not offered at this level, which level offers it and how to serve that', async () => {
          const {code, message} = await refusal(client, 'edit')
          expect(code).to.equal(-32_602)
          expect(message).to.contain('"edit" is not offered at level read')
          expect(message).to.contain('level files')
          expect(message).to.contain('--level files')
          expect(message).to.contain("level: 'files'")
        })

        it('an unknown name: -32602 naming the tools this server offers', async () => {
          const {code, message} = await refusal(client, 'nosuch')
          expect(code).to.equal(-32_602)
          expect(message).to.contain('no tool "nosuch"')
          expect(message).to.contain('read, list, search')
        })
      })
    }
  }
})
