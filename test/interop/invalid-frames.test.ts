import {expect} from 'chai'
import {mkdtemp, rm} from 'node:fs/promises'
import {tmpdir} from 'node:os'
import path from 'node:path'

import {eventually} from '../helpers/codex-fixtures.js'
import {type ServerProcess, initializeRaw, startServerProcess} from '../helpers/server-process.js'

/** `_meta.progressToken` values MCP does not allow (it must be a string or an integer). */
const WRONG_PROGRESS_TOKENS: unknown[] = [{token: 1}, [1], true, 1.5, null]

/** The error answers whose id is null (JSON-RPC's answer when a message's id cannot be read). */
function nullAnswers(server: ServerProcess): Array<{error?: {code: number; message: string}}> {
  return server.messages().filter((message) => message.id === null) as Array<{error?: {code: number; message: string}}>
}

describe('a stdio server whose client closes its input after a last line without a line break', () => {
  let dir: string
  before(async () => {
    dir = await mkdtemp(path.join(tmpdir(), 'ak-frames-end-'))
  })
  after(() => rm(dir, {recursive: true, force: true}))

  for (const [what, line, id] of [
    ['a ping', '{"jsonrpc":"2.0","id":"noeol","method":"ping"}', 'noeol'],
    ['a message over 10 MiB', `{"jsonrpc":"2.0","id":"eof","method":"ping","params":{"p":"${'z'.repeat(11 * 1024 * 1024)}`, 'eof'],
  ] as const) {
    it(`answers ${what} before it exits 0`, async function () {
      this.timeout(60_000)
      const server = startServerProcess(['exec', 'serve', '--workspace', dir], {cwd: dir})
      await initializeRaw(server)
      server.write(line)
      server.child.stdin.end()
      expect((await server.exited())?.code, server.stderr()).to.equal(0)
      const answer = server.messages().find((message) => message.id === id)
      expect(answer, JSON.stringify(server.messages()).slice(0, 300)).not.to.equal(undefined)
      if (id === 'eof') expect((answer as {error?: {code: number}}).error?.code).to.equal(-32_600)
      else expect(answer).to.have.property('result')
    })
  }
})

describe('a stdio server answers every request with an id, even one the MCP schema rejects', () => {
  let dir: string
  before(async () => {
    dir = await mkdtemp(path.join(tmpdir(), 'ak-frames-'))
  })
  after(() => rm(dir, {recursive: true, force: true}))

  const servers: Array<[string, (dir: string) => string[]]> = [
    ['ak exec serve', (dir) => ['exec', 'serve', '--level', 'terminal', '--workspace', dir]],
    ['ak codex-agent-runtime serve', (dir) => ['codex-agent-runtime', 'serve', '--codex-home', dir, '--plugin-root', dir]],
  ]

  for (const [name, args] of servers) {
    describe(name, () => {
      let server: ServerProcess
      before(async () => {
        server = startServerProcess(args(dir), {cwd: dir})
        await initializeRaw(server)
      })
      after(async () => {
        server.child.stdin.end()
        await server.exited()
      })

      it('answers a tools/call whose progressToken has the wrong type with invalid params, logging one line each', async () => {
        const linesBefore = server.stderr().split('\n').length
        for (const [index, progressToken] of WRONG_PROGRESS_TOKENS.entries()) {
          const id = 100 + index
          server.send({jsonrpc: '2.0', id, method: 'tools/call', params: {name: 'list', arguments: {}, _meta: {progressToken}}})
          const answer = (await server.response(id)) as {error?: {code: number; message: string}}
          expect(answer.error?.code, JSON.stringify(answer)).to.equal(-32_602)
          expect(answer.error?.message).to.match(/params\._meta\.progressToken/)
        }
        await eventually(() => server.stderr().split('\n').length - linesBefore >= WRONG_PROGRESS_TOKENS.length)
        const added = server.stderr().split('\n').slice(linesBefore - 1).filter(Boolean)
        expect(added, server.stderr()).to.have.length(WRONG_PROGRESS_TOKENS.length)
        for (const line of added) expect(line).to.match(/progressToken/)
      })

      it('answers a request with a malformed params object with invalid params, and keeps serving', async () => {
        server.send({jsonrpc: '2.0', id: 200, method: 'tools/call', params: 'list'})
        const answer = (await server.response(200)) as {error?: {code: number}}
        expect(answer.error?.code, JSON.stringify(answer)).to.equal(-32_602)
        server.send({jsonrpc: '2.0', id: 201, method: 'tools/list', params: {}})
        expect(await server.response(201)).to.have.property('result')
      })

      it('answers a line that is not JSON with a parse error (id null), skips blank lines, and keeps serving', async () => {
        server.write('not json\n\n   \n')
        const answer = (await server.response(null)) as {error?: {code: number; message: string}}
        expect(answer.error?.code, JSON.stringify(answer)).to.equal(-32_700)
        expect(answer.error?.message).to.contain('not JSON').and.contain('one JSON-RPC message per line')
        await eventually(() => server.stderr().includes('that is not JSON'))
        server.send({jsonrpc: '2.0', id: 300, method: 'tools/list', params: {}})
        expect(await server.response(300)).to.have.property('result')
        expect(server.stderr().match(/that is not JSON/g)).to.have.length(1)
      })

      it('answers a message with an id but no method, result or error by its id', async () => {
        server.send({jsonrpc: '2.0', id: 500})
        const answer = (await server.response(500)) as {error?: {code: number; message: string}}
        expect(answer.error?.code, JSON.stringify(answer)).to.equal(-32_600)
        expect(answer.error?.message).to.contain('Invalid request')
      })

      it('answers a batch (an array), even an empty one, with one invalid-request error (id null), and keeps serving', async () => {
        const before = nullAnswers(server).length
        server.write('[{"jsonrpc":"2.0","id":501,"method":"ping"},{"jsonrpc":"2.0","id":502,"method":"ping"}]\n[]\n')
        await eventually(() => nullAnswers(server).length >= before + 2)
        for (const answer of nullAnswers(server).slice(before)) {
          expect(answer.error?.code, JSON.stringify(answer)).to.equal(-32_600)
          expect(answer.error?.message).to.contain('batch').and.contain('one message per line')
        }
        server.send({jsonrpc: '2.0', id: 503, method: 'ping'})
        expect(await server.response(503)).to.have.property('result')
      })

      it('answers a message over 10 MiB with an error for its id wherever the id stands, and keeps serving', async function () {
        this.timeout(60_000)
        const huge = 'x'.repeat(11 * 1024 * 1024)
        server.write(`{"jsonrpc":"2.0","id":600,"method":"tools/call","params":{"name":"list","arguments":{"path":"${huge}"}}}\n`)
        server.write(`{"jsonrpc":"2.0","method":"tools/call","params":{"name":"list","arguments":{"path":"${huge}","id":5}},"id":"six-01"}\n`)
        server.write(`{"jsonrpc":"2.0","params":{"id":99,"p":"${huge}"},"id":602,"method":"ping"}\n`)
        for (const id of [600, 'six-01', 602]) {
          const answer = (await server.response(id)) as {error?: {code: number; message: string}}
          expect(answer.error?.code, JSON.stringify(answer).slice(0, 300)).to.equal(-32_600)
          expect(answer.error?.message).to.contain('over the 10485760 bytes').and.contain('Send less in one message')
        }
        const before = nullAnswers(server).length
        server.write(`${'y'.repeat(20 * 1024 * 1024)}\n`)
        await eventually(() => nullAnswers(server).length > before)
        expect(nullAnswers(server).at(-1)?.error?.message).to.contain('over the 10485760 bytes')
        server.send({jsonrpc: '2.0', id: 601, method: 'tools/list', params: {}})
        expect(await server.response(601)).to.have.property('result')
        expect(server.stderr()).to.match(/rejected a message of 1153\d{4} bytes/)
      })
    })
  }
})
