import {isLoopbackHost} from './listen-address.js'

/**
 * Which `Host` or `Origin` values a server accepts: `'loopback'` (localhost, 127.0.0.0/8, ::1),
 * `'loopback-socket'` (loopback names for a request that arrived on a loopback address, anything
 * on another address: library mode's default), a list of allowed entries, or undefined for no
 * check.
 *
 * List entries are hostnames (`example.com`, `[::1]`: any port) or `hostname:port` (that port
 * only). An `Origin` list may also hold full origins (`https://app.example.com`), compared exactly.
 */
export type HostRule = 'loopback' | 'loopback-socket' | readonly string[] | undefined

/** The rule that applies to one request, with `'loopback-socket'` decided by its local address. */
type AppliedRule = 'loopback' | readonly string[] | undefined

/** Whether a socket's local address (`127.0.0.1`, `::1`, `::ffff:127.0.0.1`) is loopback. */
export function isLoopbackAddress(address: string | undefined): boolean {
  if (!address) return false
  const mapped = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/i.exec(address)
  return isLoopbackHost(mapped ? mapped[1]! : address)
}

/** The header checks against DNS rebinding and cross-site requests (MCP Streamable HTTP, 2025-11-25). */
export interface RequestOriginRules {
  hosts: HostRule
  origins: HostRule
}

function parseHost(value: string): URL | undefined {
  if (value.length === 0 || /[\s/?#@\\]/.test(value)) return undefined
  try {
    return new URL(`http://${value}`)
  } catch {
    return undefined
  }
}

function hasExplicitPort(entry: string): boolean {
  return /^(?:\[[^\]]*\]|[^:]*):\d+$/.test(entry)
}

function hostMatches(url: URL, rule: Exclude<AppliedRule, undefined>): boolean {
  if (rule === 'loopback') return isLoopbackHost(url.hostname)
  return rule.some((entry) => {
    const allowed = parseHost(entry.toLowerCase())
    if (!allowed) return false
    return hasExplicitPort(entry) ? allowed.host === url.host : allowed.hostname === url.hostname
  })
}

function originMatches(origin: URL, rule: Exclude<AppliedRule, undefined>): boolean {
  if (rule !== 'loopback' && rule.some((entry) => entry.includes('://') && safeOrigin(entry) === origin.origin)) return true
  return hostMatches(origin, rule === 'loopback' ? rule : rule.filter((entry) => !entry.includes('://')))
}

function safeOrigin(value: string): string | undefined {
  try {
    return new URL(value).origin
  } catch {
    return undefined
  }
}

function applied(rule: HostRule, localAddress: string | undefined): AppliedRule {
  if (rule !== 'loopback-socket') return rule
  return isLoopbackAddress(localAddress) ? 'loopback' : undefined
}

/**
 * Checks a request's `Host` and `Origin` headers against the rules (MCP Streamable HTTP,
 * 2025-11-25: servers must validate Origin, and local servers should refuse foreign Hosts, the
 * mark of DNS rebinding). `localAddress` and `localPort` are where the request arrived (the
 * socket's). A missing `Origin` passes (clients other than browsers send none); a missing or
 * malformed `Host` fails any rule, and so does an `Origin` that is not an http(s) origin (e.g. `null`).
 * @returns undefined when the request may proceed, else the reason to answer 403 and how to be served.
 */
export function refusedOrigin(
  request: {host?: string | undefined; origin?: string | undefined; localAddress?: string | undefined; localPort?: number | undefined},
  rules: RequestOriginRules,
): string | undefined {
  const hosts = applied(rules.hosts, request.localAddress)
  if (hosts !== undefined) {
    const host = parseHost(request.host ?? '')
    if (!host || !hostMatches(host, hosts)) {
      return `Host header ${JSON.stringify(request.host ?? '')} is not allowed here.${hostAdvice(rules.hosts, request)}`
    }
  }
  const origins = applied(rules.origins, request.localAddress)
  if (origins !== undefined && request.origin !== undefined) {
    let origin: URL | undefined
    try {
      origin = new URL(request.origin)
    } catch {}
    if (!origin || (origin.protocol !== 'http:' && origin.protocol !== 'https:') || !originMatches(origin, origins)) {
      return `Origin ${JSON.stringify(request.origin)} is not allowed here.${originAdvice(rules.origins)}`
    }
  }
  return undefined
}

/** What a refused `Host` can do instead, under each kind of rule. */
function hostAdvice(rule: HostRule, request: {localAddress?: string | undefined; localPort?: number | undefined}): string {
  if (rule === 'loopback') {
    return (
      ' This server answers only requests addressed to a loopback name (localhost, 127.0.0.1 or another 127.x.x.x ' +
      `address, [::1]), against DNS rebinding: use the URL it printed at start${exampleUrl(request)}. ` +
      'To serve other names, mount createAgentExec (library mode) with allowedHosts listing them.'
    )
  }
  if (rule === 'loopback-socket') {
    return (
      ' The request arrived on a loopback address, where only a loopback Host (localhost, 127.0.0.1, [::1]) is ' +
      "served, against DNS rebinding. To serve other names (e.g. behind your proxy), list them in createAgentExec's allowedHosts."
    )
  }
  return " It is not in createAgentExec's allowedHosts: add it there to serve it."
}

/** What a refused `Origin` can do instead, under each kind of rule. */
function originAdvice(rule: HostRule): string {
  if (rule === 'loopback') {
    return (
      ' This server answers only pages from a loopback origin (http://localhost, http://127.0.0.1, http://[::1], any port), ' +
      'so that no web site can drive it through your browser; clients other than browsers send no Origin header. ' +
      'To serve other origins, mount createAgentExec (library mode) with allowedOrigins listing them.'
    )
  }
  if (rule === 'loopback-socket') {
    return (
      ' The request arrived on a loopback address, where only a loopback Origin (localhost, 127.0.0.1, [::1]) is ' +
      "served, against DNS rebinding. To serve other origins, list them in createAgentExec's allowedOrigins."
    )
  }
  return " It is not in createAgentExec's allowedOrigins: add it there to serve it."
}

/** ` (http://ADDRESS:PORT/mcp)` for the socket the request arrived on, when known. */
function exampleUrl(request: {localAddress?: string | undefined; localPort?: number | undefined}): string {
  if (!request.localAddress || request.localPort === undefined) return ''
  const mapped = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/i.exec(request.localAddress)
  const address = mapped ? mapped[1]! : request.localAddress
  return `, e.g. http://${address.includes(':') ? `[${address}]` : address}:${request.localPort}/mcp`
}
