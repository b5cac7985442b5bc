import {expect} from 'chai'

import {CLIENT_INFO_META_KEY, ConnectionClient, isTextFirstClient} from '../../../src/mcp/text-first-clients.js'

describe('the client of a stdio connection', () => {
  it('is named by initialize in the 2025-era revisions', () => {
    const client = new ConnectionClient()
    client.observe({jsonrpc: '2.0', id: 1, method: 'initialize', params: {clientInfo: {name: 'codex-mcp-client', version: '0.171.0'}}})
    expect(client.name).to.equal('codex-mcp-client')
    expect(client.isTextFirst).to.equal(true)
  })

  it('is named by the envelope of each 2026-07-28 request, tools/list included', () => {
    const client = new ConnectionClient()
    client.observe({jsonrpc: '2.0', id: 1, method: 'tools/list', params: {_meta: {[CLIENT_INFO_META_KEY]: {name: 'claude-code', version: '2.1.332'}}}})
    expect(client.isTextFirst).to.equal(true)
  })

  it('stays unnamed, and not text-first, for messages that name no client or name one oddly', () => {
    const client = new ConnectionClient()
    for (const message of [null, 'x', {method: 'tools/list'}, {method: 'initialize', params: {clientInfo: {name: 7}}}, {params: {_meta: {[CLIENT_INFO_META_KEY]: 'claude-code'}}}]) {
      client.observe(message)
    }
    expect(client.name).to.equal(undefined)
    expect(client.isTextFirst).to.equal(false)
  })

  it('knows other clients as such', () => {
    expect(isTextFirstClient({name: 'ak-tests'})).to.equal(false)
    expect(isTextFirstClient({name: 'claude-code'})).to.equal(true)
    expect(isTextFirstClient(Object.create({name: 'claude-code'}))).to.equal(false)
  })
})
