import {expect} from 'chai'
import {type Server, createServer} from 'node:http'
import type {AddressInfo} from 'node:net'
import {parse} from 'smol-toml'

import type {TomlFile} from '../../../src/codex/toml-file.js'
import {checkHttpTokens} from '../../../src/doctor/http-token-check.js'

const HOME = '/home/me/.codex'

function config(text: string): TomlFile {
  return {status: 'ok', data: parse(text) as Record<string, unknown>} as TomlFile
}

function entry(url: string, variable = 'AGENTEXEC_TOKEN'): string {
  return `[mcp_servers.ak]\nurl = "${url}"\nbearer_token_env_var = "${variable}"\n`
}

describe('doctor: the token of Codex HTTP entries on loopback', () => {
  let server: Server
  let url: string
  const seen: string[] = []

  before(async () => {
    server = createServer((req, res) => {
      req.resume()
      seen.push(`${req.method} ${req.headers.authorization ?? ''}`)
      const right = req.headers.authorization === 'Bearer right'
      res.writeHead(right ? 200 : 403, {'content-type': 'application/json', ...(right && req.method === 'POST' ? {'mcp-session-id': 's1'} : {})})
      res.end('{}')
    })
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
    url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/mcp`
  })

  after(() => new Promise<void>((resolve) => server.close(() => resolve())))

  it('warns when the variable the entry names is not set, saying Codex does not start it', async () => {
    const result = await checkHttpTokens(HOME, config(entry(url)), {})
    expect(result.status).to.equal('warn')
    expect(result.detail).to.equal('[mcp_servers.ak] sends the token in AGENTEXEC_TOKEN, which is not set here: Codex does not start it')
    expect(result.fix).to.contain('export AGENTEXEC_TOKEN=')
  })

  it('warns when the server at the URL refuses the token, and passes when it accepts it (ending the session it opened)', async () => {
    const wrong = await checkHttpTokens(HOME, config(entry(url)), {AGENTEXEC_TOKEN: 'wrong'})
    expect(wrong.status).to.equal('warn')
    expect(wrong.detail).to.contain('refuses the token in AGENTEXEC_TOKEN (HTTP 403)')
    seen.length = 0
    const right = await checkHttpTokens(HOME, config(entry(url)), {AGENTEXEC_TOKEN: 'right'})
    expect(right.status).to.equal('ok')
    expect(right.detail).to.contain('accepts it')
    expect(seen).to.deep.equal(['POST Bearer right', 'DELETE Bearer right'])
  })

  it('passes with a note when nothing listens at the URL now', async () => {
    const result = await checkHttpTokens(HOME, config(entry('http://127.0.0.1:1/mcp')), {AGENTEXEC_TOKEN: 'x'})
    expect(result.status).to.equal('ok')
    expect(result.detail).to.contain('no server answers')
  })

  it('leaves alone entries that are not on loopback or send no token variable', async () => {
    const text = `${entry('https://example.com/mcp')}\n[mcp_servers.b]\nurl = "${url}"\n`.replace('[mcp_servers.ak]', '[mcp_servers.a]')
    const result = await checkHttpTokens(HOME, config(text), {})
    expect(result.status).to.equal('ok')
    expect(result.detail).to.contain('no [mcp_servers.*] entry')
  })
})
