import {expect} from 'chai'

import {bearerTokenMatches, bearerTokenStatus} from '../../../../src/exec/http/bearer-token.js'

describe('exec/http/bearer-token', () => {
  it('accepts "Bearer <token>" with the exact token, whatever the scheme case', () => {
    expect(bearerTokenMatches('Bearer s3cret-token', 's3cret-token')).to.equal(true)
    expect(bearerTokenMatches('bearer s3cret-token', 's3cret-token')).to.equal(true)
  })

  it('refuses a missing header, another scheme, a prefix or an extension of the token', () => {
    for (const header of [undefined, '', 'Basic czNjcmV0LXRva2Vu', 'Bearer', 'Bearer s3cret', 'Bearer s3cret-token-and-more', 's3cret-token', 'Bearer s3cret token']) {
      expect(bearerTokenMatches(header, 's3cret-token'), String(header)).to.equal(false)
    }
  })

  it('never matches an empty token, even against an empty header', () => {
    expect(bearerTokenMatches('Bearer ', '')).to.equal(false)
    expect(bearerTokenMatches(undefined, '')).to.equal(false)
  })

  it('tells a request without the header (missing) from one with any other header (wrong)', () => {
    expect(bearerTokenStatus('Bearer s3cret-token', 's3cret-token')).to.equal('ok')
    expect(bearerTokenStatus(undefined, 's3cret-token')).to.equal('missing')
    for (const header of ['', 'Bearer', 'Bearer ', 'Basic czNjcmV0LXRva2Vu', 'Bearer s3cret']) {
      expect(bearerTokenStatus(header, 's3cret-token'), header).to.equal('wrong')
    }
  })
})
