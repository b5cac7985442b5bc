import {expect} from 'chai'

import {refusedOrigin} from '../../../../src/exec/http/request-origin.js'

const loopback = {hosts: 'loopback', origins: 'loopback'} as const

describe('exec/http/request-origin', () => {
  describe('with the loopback rule of ak exec serve --http', () => {
    it('lets through a loopback Host on any port, with or without a loopback Origin', () => {
      expect(refusedOrigin({host: '127.0.0.1:4000'}, loopback)).to.equal(undefined)
      expect(refusedOrigin({host: '[::1]:4000', origin: 'http://localhost:3000'}, loopback)).to.equal(undefined)
      expect(refusedOrigin({host: 'localhost'}, loopback)).to.equal(undefined)
    })

    it('refuses a foreign Host, as DNS rebinding would send, saying which names are served and the URL to use', () => {
      expect(refusedOrigin({host: 'evil.example:4000'}, loopback)).to.match(/Host header "evil.example:4000"/)
      const refusal = refusedOrigin({host: 'evil.example', localAddress: '::ffff:127.0.0.1', localPort: 4000}, loopback)
      expect(refusal).to.contain('loopback name (localhost, 127.0.0.1')
      expect(refusal).to.contain('http://127.0.0.1:4000/mcp')
      expect(refusal).to.contain('allowedHosts')
      expect(refusedOrigin({host: 'evil.example', localAddress: '::1', localPort: 4000}, loopback)).to.contain('http://[::1]:4000/mcp')
    })

    it('refuses a missing or malformed Host', () => {
      expect(refusedOrigin({}, loopback)).to.match(/Host/)
      expect(refusedOrigin({host: 'a b'}, loopback)).to.match(/Host/)
      expect(refusedOrigin({host: 'user@127.0.0.1'}, loopback)).to.match(/Host/)
    })

    it('refuses a foreign Origin even when the Host is loopback, saying which origins are served', () => {
      const refusal = refusedOrigin({host: '127.0.0.1:4000', origin: 'https://evil.example'}, loopback)
      expect(refusal).to.match(/^Origin "https:\/\/evil.example" is not allowed here\. .*loopback origin/)
      expect(refusal).to.contain('allowedOrigins')
    })

    it('refuses the opaque "null" Origin and non-http origins', () => {
      expect(refusedOrigin({host: '127.0.0.1', origin: 'null'}, loopback)).to.match(/Origin/)
      expect(refusedOrigin({host: '127.0.0.1', origin: 'file://localhost'}, loopback)).to.match(/Origin/)
    })
  })

  describe('with allow-lists (library mode)', () => {
    const rules = {hosts: ['api.example.com', 'localhost:8443'], origins: ['https://app.example.com', 'tools.example.com']}

    it('matches a bare hostname on any port and a hostname:port on that port only', () => {
      expect(refusedOrigin({host: 'api.example.com:9999'}, rules)).to.equal(undefined)
      expect(refusedOrigin({host: 'localhost:8443'}, rules)).to.equal(undefined)
      expect(refusedOrigin({host: 'localhost:8080'}, rules)).to.match(/Host header "localhost:8080" is not allowed here\. It is not in createAgentExec's allowedHosts: add it/)
    })

    it('matches a full origin exactly and a hostname entry on any scheme and port', () => {
      expect(refusedOrigin({host: 'api.example.com', origin: 'https://app.example.com'}, rules)).to.equal(undefined)
      expect(refusedOrigin({host: 'api.example.com', origin: 'http://app.example.com'}, rules)).to.match(/Origin .* allowedOrigins: add it/)
      expect(refusedOrigin({host: 'api.example.com', origin: 'http://tools.example.com:81'}, rules)).to.equal(undefined)
    })

    it('compares hostnames without regard to case', () => {
      expect(refusedOrigin({host: 'API.Example.COM'}, rules)).to.equal(undefined)
    })

    it('checks nothing for a list that is not given', () => {
      expect(refusedOrigin({host: 'anything.example', origin: 'https://evil.example'}, {hosts: undefined, origins: undefined})).to.equal(undefined)
      expect(refusedOrigin({host: 'anything.example'}, {hosts: undefined, origins: ['https://app.example.com']})).to.equal(undefined)
    })

    it('lets a request without Origin through (clients other than browsers send none)', () => {
      expect(refusedOrigin({host: 'api.example.com'}, rules)).to.equal(undefined)
    })
  })

  describe('with the library default (no allow-lists): loopback names on a loopback socket', () => {
    const rules = {hosts: 'loopback-socket', origins: 'loopback-socket'} as const

    it('refuses a foreign Host on a loopback socket, naming allowedHosts', () => {
      for (const localAddress of ['127.0.0.1', '::1', '::ffff:127.0.0.1']) {
        expect(refusedOrigin({host: 'evil.example.com', localAddress}, rules)).to.match(/allowedHosts/)
      }
    })

    it('refuses a foreign Origin on a loopback socket, naming allowedOrigins', () => {
      expect(refusedOrigin({host: 'localhost:3000', origin: 'http://evil.example.com', localAddress: '127.0.0.1'}, rules)).to.match(/allowedOrigins/)
    })

    it('serves loopback names on a loopback socket, with or without an Origin', () => {
      expect(refusedOrigin({host: 'localhost:3000', localAddress: '127.0.0.1'}, rules)).to.equal(undefined)
      expect(refusedOrigin({host: '[::1]:3000', origin: 'http://127.0.0.1:3000', localAddress: '::1'}, rules)).to.equal(undefined)
    })

    it('checks nothing on a socket that is not loopback (the host decides, e.g. behind its proxy)', () => {
      expect(refusedOrigin({host: 'api.example.com', origin: 'https://app.example.com', localAddress: '10.0.0.5'}, rules)).to.equal(undefined)
      expect(refusedOrigin({host: 'api.example.com', localAddress: '::ffff:10.0.0.5'}, rules)).to.equal(undefined)
    })
  })
})
