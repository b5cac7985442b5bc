import {expect} from 'chai'
import {mkdtemp, rm} from 'node:fs/promises'
import {tmpdir} from 'node:os'
import path from 'node:path'

import {eventually} from '../helpers/codex-fixtures.js'
import {type ServerProcess, initializeRaw, startServerProcess} from '../helpers/server-process.js'

/** `_meta.progressToken` values MCP does not allow (it must be a string or an integer). */
const WRONG_PROGRESS_TOKENS: unknown[] = [{token: 1}, [1], true, 1.5, null]

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
    })
  }
})
