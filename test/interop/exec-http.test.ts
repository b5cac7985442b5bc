import {expect} from 'chai'
import {randomBytes} from 'node:crypto'
import {mkdtemp, rm} from 'node:fs/promises'
import {tmpdir} from 'node:os'
import path from 'node:path'
import {setTimeout as sleep} from 'node:timers/promises'

import {type LoneBundle, copyBundleAlone} from '../helpers/bundle.js'
import {CLIENT_LINES, MODERN_PROTOCOL_VERSION, connectHttp} from '../helpers/clients.js'
import {type HttpServerProcess, runToExit, startHttpServer} from '../helpers/http-server.js'
import {INITIALIZE_BODY, TOOLS_LIST_BODY, mcpPostHeaders, rawRequest} from '../helpers/raw-http.js'
import {callEveryListedTool, prepareSampleWorkspace} from '../helpers/tool-samples.js'

/** The highest level `ak exec serve` accepts today. */
const LEVEL = 'files'
const TOKEN = randomBytes(24).toString('hex')

describe('ak exec serve --http, run from the bundle alone in a folder', () => {
  let bundle: LoneBundle
  let workspace: string
  let server: HttpServerProcess

  const serve = (args: string[], env: Record<string, string | undefined> = {AGENTEXEC_TOKEN: TOKEN}) =>
    startHttpServer(bundle.file, ['exec', 'serve', '--workspace', workspace, ...args], {env, cwd: bundle.dir})

  before(async () => {
    bundle = copyBundleAlone()
    workspace = await mkdtemp(path.join(tmpdir(), 'ak-http-'))
    await prepareSampleWorkspace(workspace)
    server = await serve(['--http', '127.0.0.1:0', '--level', LEVEL])
  })

  after(async () => {
    if (server) expect(await server.stop('SIGTERM')).to.equal(0)
    bundle?.remove()
    await rm(workspace, {recursive: true, force: true})
  })

  it('prints the URL it listens on: a free loopback port, path /mcp', () => {
    expect(server.url).to.match(/^http:\/\/127\.0\.0\.1:\d+\/mcp$/)
    expect(server.url).not.to.match(/:0\//)
  })

  for (const line of CLIENT_LINES) {
    describe(`client ${line}`, () => {
      it('speaks the client line\'s protocol era, with a session only for the 2025 era', async () => {
        const client = await connectHttp(line, server.url, {token: TOKEN})
        try {
          if (line.startsWith('v2')) {
            expect(client.protocolVersion).to.equal(MODERN_PROTOCOL_VERSION)
            expect(client.sessionId()).to.equal(undefined)
          } else {
            expect(client.protocolVersion).to.match(/^2025-/)
            expect(client.sessionId()).to.be.a('string').with.length.above(15)
          }
        } finally {
          await client.close()
        }
      })

      it('answers every tool it lists', async () => {
        const client = await connectHttp(line, server.url, {token: TOKEN})
        try {
          const names = await callEveryListedTool(client, line.slice(0, 2))
          expect(names).to.include.members(['list'])
        } finally {
          await client.close()
        }
      })

      it('cannot connect without the token, nor with a wrong one', async () => {
        for (const token of [undefined, `${TOKEN}x`]) {
          let error: unknown
          try {
            const client = await connectHttp(line, server.url, token === undefined ? {} : {token})
            await client.close()
          } catch (caught) {
            error = caught
          }
          expect(error, `token ${token}`).to.be.instanceOf(Error)
        }
      })
    })
  }

  describe('refuses', () => {
    it('a request without the token: 401 with WWW-Authenticate: Bearer', async () => {
      const answer = await fetch(server.url, {method: 'POST', headers: mcpPostHeaders(undefined), body: INITIALIZE_BODY})
      expect(answer.status).to.equal(401)
      expect(answer.headers.get('www-authenticate')).to.match(/^Bearer/)
    })

    it('a wrong token, and one that only starts like the right one: 401', async () => {
      for (const token of ['wrong', TOKEN.slice(0, -1), `${TOKEN}0`]) {
        const answer = await fetch(server.url, {method: 'POST', headers: mcpPostHeaders(token), body: INITIALIZE_BODY})
        expect(answer.status, token).to.equal(401)
      }
    })

    it('a foreign Origin with the right token: 403', async () => {
      const answer = await fetch(server.url, {
        method: 'POST',
        headers: mcpPostHeaders(TOKEN, {origin: 'https://evil.example'}),
        body: INITIALIZE_BODY,
      })
      expect(answer.status).to.equal(403)
    })

    it('a foreign Host with the right token: 403, before the token is looked at', async () => {
      const withToken = await rawRequest(server.url, {headers: mcpPostHeaders(TOKEN, {host: 'evil.example'}), body: INITIALIZE_BODY})
      expect(withToken.status).to.equal(403)
      const withoutToken = await rawRequest(server.url, {headers: mcpPostHeaders(undefined, {host: 'evil.example'}), body: INITIALIZE_BODY})
      expect(withoutToken.status).to.equal(403)
    })

    it('a body over 4 MiB: 413', async () => {
      const answer = await fetch(server.url, {
        method: 'POST',
        headers: mcpPostHeaders(TOKEN),
        body: JSON.stringify({jsonrpc: '2.0', id: 1, method: 'tools/list', params: {pad: 'x'.repeat(4 * 1024 * 1024)}}),
      })
      expect(answer.status).to.equal(413)
    })

    it('another path: 404', async () => {
      const answer = await fetch(server.url.replace(/\/mcp$/, '/other'), {method: 'POST', headers: mcpPostHeaders(TOKEN), body: INITIALIZE_BODY})
      expect(answer.status).to.equal(404)
    })

    it('an unknown session id: 404', async () => {
      const answer = await fetch(server.url, {
        method: 'POST',
        headers: mcpPostHeaders(TOKEN, {'mcp-session-id': 'not-a-session', 'mcp-protocol-version': '2025-11-25'}),
        body: TOOLS_LIST_BODY,
      })
      expect(answer.status).to.equal(404)
    })
  })

  describe('2025-era sessions', () => {
    const sessionRequest = (url: string, sessionId: string) =>
      fetch(url, {
        method: 'POST',
        headers: mcpPostHeaders(TOKEN, {'mcp-session-id': sessionId, 'mcp-protocol-version': '2025-11-25'}),
        body: TOOLS_LIST_BODY,
      })

    it('are not authentication: a session id without the token gets 401', async () => {
      const client = await connectHttp('v1 (2025 era)', server.url, {token: TOKEN})
      try {
        const answer = await fetch(server.url, {
          method: 'POST',
          headers: mcpPostHeaders(undefined, {'mcp-session-id': client.sessionId()!, 'mcp-protocol-version': '2025-11-25'}),
          body: TOOLS_LIST_BODY,
        })
        expect(answer.status).to.equal(401)
      } finally {
        await client.close()
      }
    })

    it('end with DELETE: the id then gets 404', async () => {
      const client = await connectHttp('v1 (2025 era)', server.url, {token: TOKEN})
      const sessionId = client.sessionId()!
      expect((await sessionRequest(server.url, sessionId)).status).to.equal(200)
      await client.terminateSession()
      await client.close()
      expect((await sessionRequest(server.url, sessionId)).status).to.equal(404)
    })

    it('expire after the idle time without a request', async () => {
      const quick = await serve(['--http', '127.0.0.1:0', '--session-idle-ms', '300'])
      try {
        const client = await connectHttp('v1 (2025 era)', quick.url, {token: TOKEN})
        const sessionId = client.sessionId()!
        // Any request would restart the idle time: watch the server's log instead.
        for (let waits = 0; waits < 300 && !/ended \(expired\)/.test(quick.stderr()); waits++) await sleep(100)
        expect((await sessionRequest(quick.url, sessionId)).status).to.equal(404)
        await client.close()
      } finally {
        expect(await quick.stop('SIGINT')).to.equal(0)
      }
    })
  })

  describe('at start', () => {
    for (const address of ['0.0.0.0:0', '[::]:0', '192.0.2.1:8080']) {
      it(`refuses ${address} with exit 2, saying there is no TLS and pointing to library mode`, async () => {
        const run = await runToExit(bundle.file, ['exec', 'serve', '--http', address], {env: {AGENTEXEC_TOKEN: TOKEN}, cwd: bundle.dir})
        expect(run.code).to.equal(2)
        expect(run.stderr).to.match(/no TLS/).and.match(/createAgentExec/)
      })
    }

    for (const token of [undefined, '']) {
      it(`refuses to start with AGENTEXEC_TOKEN ${token === undefined ? 'missing' : 'empty'}: exit 2`, async () => {
        const run = await runToExit(bundle.file, ['exec', 'serve', '--http', '127.0.0.1:0'], {
          env: {AGENTEXEC_TOKEN: token},
          cwd: bundle.dir,
        })
        expect(run.code).to.equal(2)
        expect(run.stderr).to.contain('AGENTEXEC_TOKEN')
      })
    }
  })
})
