/**
 * The request target of an HTTP/1.1 request line (RFC 9112 §3.2): ak serves the origin form
 * (`/mcp?x`) and the absolute form (`http://127.0.0.1:8080/mcp`, which a server must accept,
 * §3.2.2); the asterisk form (`OPTIONS *`) and anything else it refuses with 400.
 */

/** A target ak serves: its path (with the query), and the authority an absolute-form target names. */
export interface RequestTarget {
  /** The origin form: `/` and what follows. */
  path: string
  /** `host[:port]` of an absolute-form target; it stands for the request's host (RFC 9112 §3.2.2). */
  authority?: string
}

/** The target `url` (Node's `req.url`) as ak serves it; undefined when it is neither origin nor http(s) absolute form. */
export function parseRequestTarget(url: string | undefined): RequestTarget | undefined {
  const target = url ?? '/'
  if (target.startsWith('/')) return {path: target}
  if (!/^https?:\/\//i.test(target)) return undefined
  let parsed: URL
  try {
    parsed = new URL(target)
  } catch {
    return undefined
  }
  if (parsed.username !== '' || parsed.password !== '') return undefined // not allowed in an http target (RFC 9110 §4.2.4)
  return {path: `${parsed.pathname}${parsed.search}`, authority: parsed.host}
}
