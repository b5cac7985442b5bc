import {createHash, timingSafeEqual} from 'node:crypto'

/** The environment variable holding the token `ak exec serve --http` requires. */
export {TOKEN_ENV} from '../../token-env.js'

/**
 * How a request's `Authorization` header stands against the server's token: `missing` when the
 * request has no such header, `wrong` when it has one that is not exactly `Bearer <token>`
 * (another scheme, an empty or other token), `ok` otherwise. Compared as bearerTokenMatches does.
 */
export function bearerTokenStatus(authorization: string | undefined, token: string): 'ok' | 'missing' | 'wrong' {
  if (bearerTokenMatches(authorization, token)) return 'ok'
  return authorization === undefined ? 'missing' : 'wrong'
}

/**
 * Whether an `Authorization` header carries `Bearer <token>`. The comparison takes the same time
 * whatever the header holds: both sides are hashed to equal-length digests and compared with
 * `crypto.timingSafeEqual`, so neither the token's length nor a matching prefix leaks.
 */
export function bearerTokenMatches(authorization: string | undefined, token: string): boolean {
  const given = /^Bearer +(\S+) *$/i.exec(authorization ?? '')?.[1] ?? ''
  const expected = createHash('sha256').update(token).digest()
  const actual = createHash('sha256').update(given).digest()
  return timingSafeEqual(expected, actual) && token.length > 0
}
