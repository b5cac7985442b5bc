import {expect} from 'chai'

import {bearerTokenMatches} from '../../../../src/exec/http/bearer-token.js'

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
})
