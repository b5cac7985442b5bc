import {expect} from 'chai'

import {BadInputError} from '../../../../src/errors.js'
import {isLoopbackHost, parseListenAddress} from '../../../../src/exec/http/listen-address.js'

describe('exec/http/listen-address', () => {
  describe('parseListenAddress', () => {
    it('reads an IPv4 host and a port', () => {
      expect(parseListenAddress('127.0.0.1:8080')).to.deep.equal({host: '127.0.0.1', port: 8080})
    })

    it('reads a bracketed IPv6 host and port 0 (a free port)', () => {
      expect(parseListenAddress('[::1]:0')).to.deep.equal({host: '::1', port: 0})
    })

    it('accepts localhost and any address in 127.0.0.0/8', () => {
      expect(parseListenAddress('localhost:3000').host).to.equal('localhost')
      expect(parseListenAddress('127.45.6.7:3000').host).to.equal('127.45.6.7')
    })

    for (const value of ['0.0.0.0:8080', '[::]:8080', '192.168.1.10:80', 'example.com:80', 'localhost.example.com:80', '[::ffff:127.0.0.1]:80']) {
      it(`refuses ${value}, saying there is no TLS and pointing to library mode`, () => {
        expect(() => parseListenAddress(value))
          .to.throw(BadInputError)
          .with.property('message')
          .that.matches(/no TLS/)
          .and.matches(/createAgentExec/)
      })
    }

    for (const value of ['127.0.0.1', ':8080', '::1:8080', '127.0.0.1:70000', '127.0.0.1:-1', 'localhost:http']) {
      it(`refuses the malformed value ${JSON.stringify(value)} with an example of the form`, () => {
        expect(() => parseListenAddress(value)).to.throw(BadInputError, /HOST:PORT|port must be/)
      })
    }
  })

  describe('isLoopbackHost', () => {
    it('knows the loopback names and addresses, with or without IPv6 brackets', () => {
      for (const host of ['localhost', 'LOCALHOST', '127.0.0.1', '127.255.0.9', '::1', '[::1]', '0:0:0:0:0:0:0:1']) {
        expect(isLoopbackHost(host), host).to.equal(true)
      }
    })

    it('treats every other address and name as remote', () => {
      for (const host of ['0.0.0.0', '::', '10.0.0.1', '128.0.0.1', 'evil.example', '127.0.0.1.nip.io', '']) {
        expect(isLoopbackHost(host), host).to.equal(false)
      }
    })
  })
})
