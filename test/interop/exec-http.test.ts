import {expect} from 'chai'
import {randomBytes} from 'node:crypto'
import {once} from 'node:events'
import {type Socket, connect} from 'node:net'
import {mkdtemp, readFile, rm} from 'node:fs/promises'
import {tmpdir} from 'node:os'
import path from 'node:path'
import {setTimeout as sleep} from 'node:timers/promises'

import {HTTP_HEADERS_TIMEOUT_MS, HTTP_MAX_CONNECTIONS} from '../../src/exec/limits.js'
import {type LoneBundle, copyBundleAlone} from '../helpers/bundle.js'
import {CLIENT_LINES, MODERN_PROTOCOL_VERSION, connectHttp} from '../helpers/clients.js'
import {itRefusesASecondEventStream, itServesEventStreamsAtOnce} from '../helpers/event-stream.js'
import {type HttpServerProcess, runToExit, startHttpServer} from '../helpers/http-server.js'
import {isAlive, startSleep, waitUntilGone} from '../helpers/processes.js'
import {INITIALIZE_BODY, TOOLS_LIST_BODY, mcpPostHeaders, rawRequest} from '../helpers/raw-http.js'
import {callEveryListedTool, prepareSampleWorkspace} from '../helpers/tool-samples.js'

const LEVEL = 'terminal'
const TOKEN = randomBytes(24).toString('hex')

describe('ak exec serve --http, run from the bundle alone in a folder', () => {
  let bundle: LoneBundle
  let workspace: string
  let server: HttpServerProcess
  /** Commands left running on purpose; the server must stop them when it stops. */
  const stillRunning: number[] = []

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
    for (const pid of stillRunning) expect(await waitUntilGone(pid), `sleep ${pid} outlived the server`).to.equal(true)
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

      it('refuses a "__proto__" argument like any other unknown argument', async () => {
        const client = await connectHttp(line, server.url, {token: TOKEN})
        try {
          const answer = await client.call('list', JSON.parse('{"path": ".", "__proto__": {"limit": 1}}') as Record<string, unknown>)
          expect(answer).to.deep.include({isError: true, text: 'list has no argument "__proto__", so the call did nothing. Its arguments are: path, offset, limit.'})
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

  it('serves a request whose target is in absolute form (RFC 9112 §3.2.2), with or without the port', async () => {
    const port = new URL(server.url).port
    for (const target of [`http://127.0.0.1:${port}/mcp`, 'http://127.0.0.1/mcp', `http://localhost:${port}/mcp?x=1`]) {
      const answer = await rawRequest(server.url, {target, headers: mcpPostHeaders(TOKEN), body: INITIALIZE_BODY})
      expect(answer.status, `${target}: ${answer.body}`).to.equal(200)
      expect(answer.body).to.contain('"serverInfo"')
    }
  })

  describe('refuses', () => {
    it('a request without the token: 401 with WWW-Authenticate: Bearer, and a body naming AGENTEXEC_TOKEN', async () => {
      const answer = await fetch(server.url, {method: 'POST', headers: mcpPostHeaders(undefined), body: INITIALIZE_BODY})
      expect(answer.status).to.equal(401)
      expect(answer.headers.get('www-authenticate')).to.match(/^Bearer/)
      expect(await answer.text()).to.contain('AGENTEXEC_TOKEN')
    })

    it('a wrong token, one that only starts like the right one, or another scheme: 403 without a login challenge, naming AGENTEXEC_TOKEN', async () => {
      for (const headers of [...['wrong', TOKEN.slice(0, -1), `${TOKEN}0`, ''].map((token) => mcpPostHeaders(token)), mcpPostHeaders(undefined, {authorization: `Basic ${TOKEN}`})]) {
        const answer = await fetch(server.url, {method: 'POST', headers, body: INITIALIZE_BODY})
        expect(answer.status, headers.authorization).to.equal(403)
        expect(answer.headers.get('www-authenticate'), headers.authorization).to.equal(null)
        expect(await answer.text()).to.contain('AGENTEXEC_TOKEN')
      }
    })

    it('a foreign Origin with the right token: 403', async () => {
      const answer = await fetch(server.url, {
        method: 'POST',
        headers: mcpPostHeaders(TOKEN, {origin: 'https://evil.example'}),
        body: INITIALIZE_BODY,
      })
      expect(answer.status).to.equal(403)
      expect(((await answer.json()) as {error: {message: string}}).error.message).to.match(/"https:\/\/evil\.example" is not allowed.*loopback/)
    })

    it('a foreign Host with the right token: 403, before the token is looked at, saying which Host is served', async () => {
      const withToken = await rawRequest(server.url, {headers: mcpPostHeaders(TOKEN, {host: 'evil.example'}), body: INITIALIZE_BODY})
      expect(withToken.status).to.equal(403)
      const {message} = (JSON.parse(withToken.body) as {error: {message: string}}).error
      expect(message).to.contain('"evil.example" is not allowed')
      expect(message).to.contain(`http://127.0.0.1:${new URL(server.url).port}/mcp`)
      expect(message).to.match(/loopback/)
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
      expect(((await answer.json()) as {error: {message: string}}).error.message).to.match(/at most 4194304 bytes are accepted\. Send less/)
    })

    it('a request target that is neither a path nor an http URL: 400 saying so', async () => {
      const answer = await rawRequest(server.url, {target: '*', headers: mcpPostHeaders(TOKEN), body: INITIALIZE_BODY})
      expect(answer.status).to.equal(400)
      expect((JSON.parse(answer.body) as {error: {message: string}}).error.message).to.equal(
        'Bad request: the request target "*" is neither a path (such as /mcp) nor an http URL. Send MCP requests to the path the server printed.',
      )
    })

    it('an absolute-form target naming a foreign host, or another path: 403 and 404', async () => {
      const port = new URL(server.url).port
      const foreign = await rawRequest(server.url, {target: 'http://evil.example/mcp', headers: mcpPostHeaders(TOKEN), body: INITIALIZE_BODY})
      expect(foreign.status).to.equal(403)
      expect((JSON.parse(foreign.body) as {error: {message: string}}).error.message).to.match(/^Forbidden: The request target's host "evil\.example" is not allowed here\./)
      const other = await rawRequest(server.url, {target: `http://127.0.0.1:${port}/other`, headers: mcpPostHeaders(TOKEN), body: INITIALIZE_BODY})
      expect(other.status).to.equal(404)
    })

    it('another path: 404', async () => {
      const answer = await fetch(server.url.replace(/\/mcp$/, '/other'), {method: 'POST', headers: mcpPostHeaders(TOKEN), body: INITIALIZE_BODY})
      expect(answer.status).to.equal(404)
    })

    for (const method of ['GET', 'POST']) {
      it(`a ${method} without a session that is not initialize: 400 saying to send initialize first`, async () => {
        const answer = await fetch(server.url, {
          method,
          headers: mcpPostHeaders(TOKEN, method === 'GET' ? {accept: 'text/event-stream'} : {}),
          ...(method === 'POST' ? {body: TOOLS_LIST_BODY} : {}),
        })
        expect(answer.status).to.equal(400)
        const {message} = ((await answer.json()) as {error: {message: string}}).error
        expect(message).to.contain('initialize')
        expect(message).to.contain('Mcp-Session-Id')
        expect(message).not.to.contain('Server not initialized')
      })
    }

    it('an unknown session id: 404', async () => {
      const answer = await fetch(server.url, {
        method: 'POST',
        headers: mcpPostHeaders(TOKEN, {'mcp-session-id': 'not-a-session', 'mcp-protocol-version': '2025-11-25'}),
        body: TOOLS_LIST_BODY,
      })
      expect(answer.status).to.equal(404)
    })
  })

  describe('GET event streams', () => {
    itServesEventStreamsAtOnce(() => ({url: server.url, headers: {authorization: `Bearer ${TOKEN}`}}))
    itRefusesASecondEventStream(() => ({url: server.url, headers: {authorization: `Bearer ${TOKEN}`}}))
  })

  describe('guards its sockets', () => {
    /** Opens a socket that sends the start of a request's headers and never finishes them. */
    const slowHeaders = async (url: string): Promise<Socket> => {
      const {hostname, port} = new URL(url)
      const socket = connect(Number(port), hostname)
      socket.on('error', () => undefined)
      await once(socket, 'connect')
      socket.write(`POST /mcp HTTP/1.1\r\nHost: ${hostname}:${port}\r\n`)
      return socket
    }

    it(`closes a connection whose headers are not complete after ${HTTP_HEADERS_TIMEOUT_MS / 1000} s`, async function () {
      this.timeout(HTTP_HEADERS_TIMEOUT_MS * 4)
      const socket = await slowHeaders(server.url)
      let answer = ''
      socket.on('data', (chunk: Buffer) => (answer += chunk.toString()))
      // A safety net well under Node's own defaults (60 s for headers, checked every 30 s).
      const closed = await Promise.race([once(socket, 'close').then(() => true), sleep(HTTP_HEADERS_TIMEOUT_MS * 2.5).then(() => false)])
      socket.destroy()
      expect(closed, 'the slow-header socket is still open').to.equal(true)
      expect(answer).to.match(/^HTTP\/1\.1 408/)
    })

    it(`holds at most ${HTTP_MAX_CONNECTIONS} connections open, and serves again once they close`, async function () {
      this.timeout(120_000)
      const sockets: Socket[] = []
      try {
        for (let open = 0; open < HTTP_MAX_CONNECTIONS; open++) sockets.push(await slowHeaders(server.url))
        const refused = await rawRequest(server.url, {headers: mcpPostHeaders(TOKEN), body: INITIALIZE_BODY}).then(
          (answer) => answer.status,
          (error: NodeJS.ErrnoException) => error.code,
        )
        expect(refused).to.be.oneOf(['ECONNRESET', 'EPIPE', 'ECONNREFUSED'])
      } finally {
        for (const socket of sockets) socket.destroy()
      }
      let status: number | string = 0
      for (let tries = 0; tries < 100 && status !== 200; tries++) {
        await sleep(50)
        status = await rawRequest(server.url, {headers: mcpPostHeaders(TOKEN), body: INITIALIZE_BODY}).then(
          (answer) => answer.status,
          (error: NodeJS.ErrnoException) => error.code ?? 'error',
        )
      }
      expect(status).to.equal(200)
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

    it('cannot see or drive each other\'s commands, even with the id; nor can a stateless client', async () => {
      const owner = await connectHttp('v1 (2025 era)', server.url, {token: TOKEN})
      const other = await connectHttp('v1 (2025 era)', server.url, {token: TOKEN})
      const stateless = await connectHttp('v2 (2026-07-28)', server.url, {token: TOKEN})
      try {
        const sleeping = await startSleep(owner)
        for (const intruder of [other, stateless]) {
          const poke = await intruder.call('write_stdin', {session_id: sleeping.sessionId, chars: '\u0003'})
          expect(poke.isError, `${intruder.line}: ${poke.text}`).to.equal(true)
          expect(poke.text).not.to.contain('sleep 300')
        }
        expect(isAlive(sleeping.pid)).to.equal(true)
        const own = await owner.call('write_stdin', {session_id: sleeping.sessionId, chars: '\u0003', yield_time_ms: 5000})
        expect(own.isError, own.text).to.equal(false)
        expect(await waitUntilGone(sleeping.pid)).to.equal(true)
      } finally {
        await Promise.all([owner.close(), other.close(), stateless.close()])
      }
    })

    it('stop their running commands when ended by DELETE', async () => {
      const client = await connectHttp('v1 (2025 era)', server.url, {token: TOKEN})
      const sleeping = await startSleep(client)
      await client.terminateSession()
      await client.close()
      expect(await waitUntilGone(sleeping.pid), `sleep ${sleeping.pid} still runs`).to.equal(true)
    })

    it('keep their commands running while the client stays connected without DELETE', async () => {
      const client = await connectHttp('v1 (2025 era)', server.url, {token: TOKEN})
      const sleeping = await startSleep(client)
      await client.close()
      expect(isAlive(sleeping.pid)).to.equal(true)
      // Let the server's shutdown at the end of this suite prove it stops it.
      stillRunning.push(sleeping.pid)
    })

    for (const era of ['2025-11-25 (session)', '2026-07-28 (stateless)'] as const) {
      it(`stop an exec_command whose POST the client aborted before the answer, ${era}`, async () => {
        const pidFile = path.join(workspace, `aborted-${randomBytes(4).toString('hex')}.pid`)
        const headers: Record<string, string> = {}
        let meta: Record<string, unknown> = {}
        if (era.startsWith('2025')) {
          const opened = await fetch(server.url, {method: 'POST', headers: mcpPostHeaders(TOKEN), body: INITIALIZE_BODY})
          headers['mcp-session-id'] = opened.headers.get('mcp-session-id')!
          headers['mcp-protocol-version'] = '2025-11-25'
          await fetch(server.url, {
            method: 'POST',
            headers: mcpPostHeaders(TOKEN, headers),
            body: JSON.stringify({jsonrpc: '2.0', method: 'notifications/initialized'}),
          })
        } else {
          headers['mcp-protocol-version'] = MODERN_PROTOCOL_VERSION
          headers['mcp-method'] = 'tools/call'
          headers['mcp-name'] = 'exec_command'
          meta = {
            'io.modelcontextprotocol/protocolVersion': MODERN_PROTOCOL_VERSION,
            'io.modelcontextprotocol/clientInfo': {name: 'raw', version: '1'},
            'io.modelcontextprotocol/clientCapabilities': {},
          }
        }
        const abort = new AbortController()
        const call = fetch(server.url, {
          method: 'POST',
          headers: mcpPostHeaders(TOKEN, headers),
          body: JSON.stringify({
            jsonrpc: '2.0',
            id: 7,
            method: 'tools/call',
            params: {name: 'exec_command', arguments: {cmd: `echo $$ > ${pidFile}; exec sleep 300`, yield_time_ms: 30_000}, _meta: meta},
          }),
          signal: abort.signal,
        }).catch(() => undefined)
        let pid = 0
        for (let waits = 0; waits < 200 && !(pid > 0); waits++) {
          await sleep(50)
          pid = Number(await readFile(pidFile, 'utf8').catch(() => ''))
        }
        expect(pid, 'the command never started').to.be.above(0)
        abort.abort()
        await call
        expect(await waitUntilGone(pid), `sleep ${pid} still runs after its POST was aborted`).to.equal(true)
      })
    }

    it('expire after the idle time once their client went away without DELETE, stopping their commands', async () => {
      const quick = await serve(['--http', '127.0.0.1:0', '--level', 'terminal', '--session-idle-ms', '1000'])
      try {
        const client = await connectHttp('v1 (2025 era)', quick.url, {token: TOKEN})
        const sessionId = client.sessionId()!
        const sleeping = await startSleep(client)
        // Gone without DELETE: close() only drops the connections, the event stream among them.
        await client.close()
        // Any request would restart the idle time: watch the server's log instead.
        for (let waits = 0; waits < 300 && !/ended \(expired\)/.test(quick.stderr()); waits++) await sleep(100)
        expect((await sessionRequest(quick.url, sessionId)).status).to.equal(404)
        expect(await waitUntilGone(sleeping.pid), `sleep ${sleeping.pid} still runs`).to.equal(true)
      } finally {
        expect(await quick.stop('SIGINT')).to.equal(0)
      }
    })

    it('stay while their client holds the event stream open, or polls a command, however long past the idle time', async () => {
      // Long enough that a poll every quarter of it shows up in time on a loaded machine.
      const idleMs = 2000
      const quick = await serve(['--http', '127.0.0.1:0', '--level', 'terminal', '--session-idle-ms', String(idleMs)])
      try {
        const holding = await connectHttp('v1 (2025 era)', quick.url, {token: TOKEN})
        // A client that opens no event stream: only its requests show it is there.
        const noStream: typeof fetch = async (input, init) => (init?.method === 'GET' ? new Response(null, {status: 405}) : fetch(input, init))
        const held = await startSleep(holding)
        const polling = await connectHttp('v1 (2025 era)', quick.url, {token: TOKEN, fetch: noStream})
        const polled = await startSleep(polling)
        const until = Date.now() + 3 * idleMs
        while (Date.now() < until) {
          const answer = await polling.call('write_stdin', {session_id: polled.sessionId, chars: '\n', yield_time_ms: 250})
          expect(answer.structured?.exit_code, answer.text).to.equal('running')
          await sleep(idleMs / 4)
        }
        expect(quick.stderr()).to.not.contain('ended (expired)')
        expect(isAlive(held.pid) && isAlive(polled.pid)).to.equal(true)
        const still = await holding.call('write_stdin', {session_id: held.sessionId, chars: '\n', yield_time_ms: 250})
        expect(still.structured?.exit_code, still.text).to.equal('running')
        await polling.close()
        expect(await waitUntilGone(polled.pid), `polled sleep ${polled.pid} still runs once polls stopped`).to.equal(true)
        expect(isAlive(held.pid), 'the held session lost its command').to.equal(true)
        await holding.close()
        expect(await waitUntilGone(held.pid), `held sleep ${held.pid} still runs once its stream closed`).to.equal(true)
      } finally {
        expect(await quick.stop('SIGINT')).to.equal(0)
      }
    })
  })

  describe('stateless 2026-07-28 requests', () => {
    it('are refused at the command limit with counts and ages only: no id or command line of anyone', async function () {
      this.timeout(180_000)
      const crowded = await serve(['--http', '127.0.0.1:0', '--level', 'terminal'])
      const first = await connectHttp('v2 (2026-07-28)', crowded.url, {token: TOKEN})
      const second = await connectHttp('v2 (2026-07-28)', crowded.url, {token: TOKEN})
      const withSession = await connectHttp('v1 (2025 era)', crowded.url, {token: TOKEN})
      try {
        const own = await withSession.call('exec_command', {cmd: 'exec sleep 301 # the session one', yield_time_ms: 250})
        expect(own.structured?.exit_code, own.text).to.equal('running')
        const started = await Promise.all(
          Array.from({length: 63}, (_, index) =>
            first.call('exec_command', {cmd: index === 0 ? 'cat # secret-cat' : `exec sleep 300 # stateless ${index}`, yield_time_ms: 250}),
          ),
        )
        const ids = started.map((answer) => answer.structured?.session_id as string)
        for (const answer of started) expect(answer.structured?.exit_code, answer.text).to.equal('running')
        for (const caller of [second, first]) {
          const refused = await caller.call('exec_command', {cmd: 'echo sixty-five'})
          expect(refused.isError, refused.text).to.equal(true)
          expect(refused.text).to.contain('Too many commands: 64 are running')
          expect(refused.text).to.contain('63 running commands were started by stateless requests')
          expect(refused.text).to.contain('1 more started by other connections')
          for (const id of [...ids, own.structured?.session_id as string]) expect(refused.text).not.to.contain(id)
          expect(refused.text).not.to.match(/secret-cat|stateless \d|the session one/)
        }
        const fromSession = await withSession.call('exec_command', {cmd: 'echo sixty-five'})
        expect(fromSession.isError, fromSession.text).to.equal(true)
        expect(fromSession.text).to.contain(own.structured?.session_id as string).and.contain('the session one')
        for (const id of ids) expect(fromSession.text).not.to.contain(id)
        expect(fromSession.text).not.to.match(/secret-cat|stateless \d/)
      } finally {
        await Promise.all([first.close(), second.close(), withSession.close()])
        expect(await crowded.stop('SIGTERM')).to.equal(0)
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
