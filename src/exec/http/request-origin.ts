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
 * mark of DNS rebinding). `localAddress` is the address the request arrived on (the socket's).
 * A missing `Origin` passes (clients other than browsers send none); a missing or malformed
 * `Host` fails any rule, and so does an `Origin` that is not an http(s) origin (e.g. `null`).
 * @returns undefined when the request may proceed, else the reason to answer 403.
 */
export function refusedOrigin(
  request: {host?: string | undefined; origin?: string | undefined; localAddress?: string | undefined},
  rules: RequestOriginRules,
): string | undefined {
  const hosts = applied(rules.hosts, request.localAddress)
  if (hosts !== undefined) {
    const host = parseHost(request.host ?? '')
    if (!host || !hostMatches(host, hosts)) {
      return `Host header ${JSON.stringify(request.host ?? '')} is not allowed here.${defaultNote(rules.hosts, 'Host', 'allowedHosts')}`
    }
  }
  const origins = applied(rules.origins, request.localAddress)
  if (origins !== undefined && request.origin !== undefined) {
    let origin: URL | undefined
    try {
      origin = new URL(request.origin)
    } catch {}
    if (!origin || (origin.protocol !== 'http:' && origin.protocol !== 'https:') || !originMatches(origin, origins)) {
      return `Origin ${JSON.stringify(request.origin)} is not allowed here.${defaultNote(rules.origins, 'Origin', 'allowedOrigins')}`
    }
  }
  return undefined
}

/** What a refusal under library mode's default adds: why, and the option that changes it. */
function defaultNote(rule: HostRule, header: string, option: string): string {
  if (rule !== 'loopback-socket') return ''
  return (
    ` The request arrived on a loopback address, where only a loopback ${header} (localhost, 127.0.0.1, [::1]) is ` +
    `served, against DNS rebinding. To serve other names (e.g. behind your proxy), list them in createAgentExec's ${option}.`
  )
}
