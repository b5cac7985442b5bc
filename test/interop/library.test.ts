import {expect} from 'chai'
import {existsSync} from 'node:fs'
import {mkdtemp, rm, writeFile} from 'node:fs/promises'
import {type Server, createServer} from 'node:http'
import type {AddressInfo} from 'node:net'
import {tmpdir} from 'node:os'
import path from 'node:path'

import {type AgentExec, createAgentExec} from '../../src/index.js'
import {checkSandbox} from '../../src/exec/terminal/sandbox.js'
import {CLIENT_LINES, MODERN_PROTOCOL_VERSION, connectHttp} from '../helpers/clients.js'
import {itRefusesASecondEventStream, itServesEventStreamsAtOnce} from '../helpers/event-stream.js'
import {startSleep, waitUntilGone} from '../helpers/processes.js'
import {INITIALIZE_BODY, mcpPostHeaders, rawRequest} from '../helpers/raw-http.js'
import {callEveryListedTool, prepareSampleWorkspace} from '../helpers/tool-samples.js'

/** Whether bubblewrap can run here; the sandbox test is skipped, saying why, where it cannot. */
const SANDBOX = await checkSandbox({mode: 'read-only', network: false}, {workspace: tmpdir()})

const HOST_SECRET = 'the-host-application-decides'
const MOUNT = '/tools/agent-exec'

describe('createAgentExec mounted in a node:http server under a non-/mcp path', () => {
  let workspace: string
  let agent: AgentExec
  let server: Server
  let url: string

  before(async () => {
    workspace = await mkdtemp(path.join(tmpdir(), 'ak-library-'))
    await prepareSampleWorkspace(workspace)
    agent = await createAgentExec({
      workspace,
      level: 'terminal',
      allowedHosts: ['127.0.0.1', 'localhost'],
      allowedOrigins: ['http://localhost:3000'],
    })
    // The host's own check, as the README shows: ak does none in library mode.
    server = createServer((req, res) => {
      if (req.headers['x-host-secret'] !== HOST_SECRET) {
        res.writeHead(401).end()
        return
      }
      if (req.url?.startsWith(MOUNT)) void agent.handle(req, res)
      else res.writeHead(404).end()
    })
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
    url = `http://127.0.0.1:${(server.address() as AddressInfo).port}${MOUNT}`
  })

  after(async () => {
    await agent?.close()
    server?.closeAllConnections()
    await new Promise((resolve) => server?.close(resolve))
    await rm(workspace, {recursive: true, force: true})
  })

  for (const line of CLIENT_LINES) {
    it(`serves every tool to client ${line}, in its protocol era`, async () => {
      const client = await connectHttp(line, url, {headers: {'x-host-secret': HOST_SECRET}})
      try {
        if (line.startsWith('v2')) expect(client.protocolVersion).to.equal(MODERN_PROTOCOL_VERSION)
        else expect(client.sessionId()).to.be.a('string')
        await callEveryListedTool(client, `lib-${line.slice(0, 2)}`)
      } finally {
        await client.close()
      }
    })
  }

  describe('GET event streams', () => {
    itServesEventStreamsAtOnce(() => ({url, headers: {'x-host-secret': HOST_SECRET}}))
    itRefusesASecondEventStream(() => ({url, headers: {'x-host-secret': HOST_SECRET}}))
  })

  it('asks for no token of its own', async () => {
    const answer = await fetch(url, {method: 'POST', headers: mcpPostHeaders(undefined, {'x-host-secret': HOST_SECRET}), body: INITIALIZE_BODY})
    expect(answer.status).to.equal(200)
  })

  it('refuses a Host outside allowedHosts and an Origin outside allowedOrigins with 403', async () => {
    const host = await rawRequest(url, {headers: mcpPostHeaders(undefined, {'x-host-secret': HOST_SECRET, host: 'evil.example'}), body: INITIALIZE_BODY})
    expect(host.status).to.equal(403)
    const origin = await fetch(url, {
      method: 'POST',
      headers: mcpPostHeaders(undefined, {'x-host-secret': HOST_SECRET, origin: 'http://evil.example'}),
      body: INITIALIZE_BODY,
    })
    expect(origin.status).to.equal(403)
    const allowed = await fetch(url, {
      method: 'POST',
      headers: mcpPostHeaders(undefined, {'x-host-secret': HOST_SECRET, origin: 'http://localhost:3000'}),
      body: INITIALIZE_BODY,
    })
    expect(allowed.status).to.equal(200)
  })

  it(`runs commands in the sandbox given as the sandbox option${SANDBOX.ok ? '' : ` (skipped: ${SANDBOX.reason})`}`, async function () {
    if (!SANDBOX.ok) this.skip()
    const confined = await createAgentExec({workspace, level: 'terminal', sandbox: 'read-only'})
    const host = createServer((req, res) => void confined.handle(req, res))
    await new Promise<void>((resolve) => host.listen(0, '127.0.0.1', resolve))
    try {
      const client = await connectHttp(CLIENT_LINES[1], `http://127.0.0.1:${(host.address() as AddressInfo).port}/mcp`)
      try {
        const answer = await client.call('exec_command', {cmd: 'touch created-in-sandbox'})
        expect(answer.structured?.exit_code).to.not.equal(0)
        expect(answer.text).to.contain('Read-only file system')
      } finally {
        await client.close()
      }
    } finally {
      await confined.close()
      host.closeAllConnections()
      await new Promise((resolve) => host.close(resolve))
    }
  })

  it('refuses an unknown sandbox mode, naming the valid ones', async () => {
    expect(() => createAgentExec({workspace, level: 'terminal', sandbox: 'full' as never})).to.throw(/off, workspace-write, read-only/)
  })

  it('refuses, synchronously, a workspace that does not exist or is not a folder', async () => {
    expect(() => createAgentExec({workspace: path.join(workspace, 'missing')})).to.throw(/does not exist.*workspace/)
    await writeFile(path.join(workspace, 'a-file'), '')
    expect(() => createAgentExec({workspace: path.join(workspace, 'a-file')})).to.throw(/is not a folder/)
    for (const options of [{}, {workspace: ''}, {workspace: 5}]) {
      expect(() => createAgentExec(options as never), JSON.stringify(options)).to.throw(
        "createAgentExec needs workspace: the path of an existing folder to serve, e.g. createAgentExec({workspace: '/path/to/project'}).",
      )
    }
  })

  it('returns {handle, close} at once, so the reference text\'s code works as written; awaiting it works too', async () => {
    const exec = createAgentExec({workspace, level: 'files'})
    expect(exec.handle).to.be.a('function')
    expect(exec.close).to.be.a('function')
    const awaited = await createAgentExec({workspace, level: 'files'})
    const mounted = createServer((req, res) => void exec.handle(req, res))
    await new Promise<void>((resolve) => mounted.listen(0, '127.0.0.1', resolve))
    try {
      const client = await connectHttp('v1 (2025 era)', `http://127.0.0.1:${(mounted.address() as AddressInfo).port}/mcp`)
      expect((await client.listTools()).map((tool) => tool.name)).to.include('edit')
      await client.close()
    } finally {
      await exec.close()
      await awaited.close()
      mounted.closeAllConnections()
      await new Promise((resolve) => mounted.close(resolve))
    }
  })

  it('refuses a 2025-era initialize past maxSessions with 503 saying the limit and how sessions end', async () => {
    const capped = await createAgentExec({workspace, maxSessions: 2})
    const cappedServer = createServer((req, res) => void capped.handle(req, res))
    await new Promise<void>((resolve) => cappedServer.listen(0, '127.0.0.1', resolve))
    const cappedUrl = `http://127.0.0.1:${(cappedServer.address() as AddressInfo).port}/mcp`
    const initialize = () => fetch(cappedUrl, {method: 'POST', headers: mcpPostHeaders(undefined), body: INITIALIZE_BODY})
    try {
      const opened = [await initialize(), await initialize()]
      expect(opened.map((answer) => answer.status)).to.deep.equal([200, 200])
      const refused = await initialize()
      expect(refused.status).to.equal(503)
      const body = (await refused.json()) as {jsonrpc: string; error: {message: string}}
      expect(body.jsonrpc).to.equal('2.0')
      expect(body.error.message).to.match(/2 are open/)
      expect(body.error.message).to.match(/expire after \d+ s/)
      expect(body.error.message).to.contain('DELETE')
      // Ending one session frees its place.
      const ended = await fetch(cappedUrl, {
        method: 'DELETE',
        headers: mcpPostHeaders(undefined, {'mcp-session-id': opened[0]!.headers.get('mcp-session-id')!, 'mcp-protocol-version': '2025-11-25'}),
      })
      expect(ended.status).to.equal(200)
      expect((await initialize()).status).to.equal(200)
    } finally {
      await capped.close()
      cappedServer.closeAllConnections()
      await new Promise((resolve) => cappedServer.close(resolve))
    }
  })

  describe('created with only workspace and level (no allow-lists)', () => {
    let plain: AgentExec
    let plainServer: Server
    let plainUrl: string

    before(async () => {
      plain = createAgentExec({workspace, level: 'terminal'})
      plainServer = createServer((req, res) => void plain.handle(req, res))
      await new Promise<void>((resolve) => plainServer.listen(0, '127.0.0.1', resolve))
      plainUrl = `http://127.0.0.1:${(plainServer.address() as AddressInfo).port}/mcp`
    })
    after(async () => {
      await plain?.close()
      plainServer?.closeAllConnections()
      await new Promise((resolve) => plainServer?.close(resolve))
    })

    it('refuses a foreign Host arriving on a loopback socket (DNS rebinding) with 403 naming allowedHosts, running nothing', async () => {
      for (const host of ['evil.example.com', 'evil.example.com:80', '127.0.0.1.nip.io']) {
        const answer = await rawRequest(plainUrl, {
          headers: mcpPostHeaders(undefined, {host}),
          body: JSON.stringify({
            jsonrpc: '2.0',
            id: 1,
            method: 'tools/call',
            params: {name: 'exec_command', arguments: {cmd: 'touch rebound'}, _meta: {'io.modelcontextprotocol/protocolVersion': '2026-07-28'}},
          }),
        })
        expect(answer.status, host).to.equal(403)
        expect(answer.body).to.contain('allowedHosts')
      }
      expect(existsSync(path.join(workspace, 'rebound'))).to.equal(false)
    })

    it('refuses a foreign Origin with 403 naming allowedOrigins, and serves loopback Host and Origin', async () => {
      const foreign = await fetch(plainUrl, {method: 'POST', headers: mcpPostHeaders(undefined, {origin: 'http://evil.example.com'}), body: INITIALIZE_BODY})
      expect(foreign.status).to.equal(403)
      expect(await foreign.text()).to.contain('allowedOrigins')
      const port = new URL(plainUrl).port
      for (const host of [`localhost:${port}`, `127.0.0.1:${port}`]) {
        const answer = await rawRequest(plainUrl, {headers: mcpPostHeaders(undefined, {host, origin: `http://${host}`}), body: INITIALIZE_BODY})
        expect(answer.status, host).to.equal(200)
      }
    })
  })

  it('ends every session on close(), leaving no process behind; later requests get 503', async () => {
    const other = await createAgentExec({workspace, level: 'terminal'})
    const otherServer = createServer((req, res) => void other.handle(req, res))
    await new Promise<void>((resolve) => otherServer.listen(0, '127.0.0.1', resolve))
    const otherUrl = `http://127.0.0.1:${(otherServer.address() as AddressInfo).port}/anything`
    try {
      const client = await connectHttp('v1 (2025 era)', otherUrl)
      const stateless = await connectHttp('v2 (2026-07-28)', otherUrl)
      const sessionId = client.sessionId()!
      const sleeping = [await startSleep(client), await startSleep(stateless)]
      await stateless.close()
      await other.close()
      for (const {pid} of sleeping) expect(await waitUntilGone(pid), `sleep ${pid} outlived close()`).to.equal(true)
      const answer = await fetch(otherUrl, {
        method: 'POST',
        headers: mcpPostHeaders(undefined, {'mcp-session-id': sessionId, 'mcp-protocol-version': '2025-11-25'}),
        body: JSON.stringify({jsonrpc: '2.0', id: 2, method: 'tools/list', params: {}}),
      })
      expect(answer.status).to.equal(503)
      await client.close().catch(() => undefined)
    } finally {
      otherServer.closeAllConnections()
      await new Promise((resolve) => otherServer.close(resolve))
    }
  })
})
