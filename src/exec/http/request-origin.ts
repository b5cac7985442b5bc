import {isLoopbackHost} from './listen-address.js'

/**
 * Which `Host` or `Origin` values a server accepts: `'loopback'` (localhost, 127.0.0.0/8, ::1),
 * a list of allowed entries, or undefined for no check.
 *
 * List entries are hostnames (`example.com`, `[::1]`: any port) or `hostname:port` (that port
 * only). An `Origin` list may also hold full origins (`https://app.example.com`), compared exactly.
 */
export type HostRule = 'loopback' | readonly string[] | undefined

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

function hostMatches(url: URL, rule: Exclude<HostRule, undefined>): boolean {
  if (rule === 'loopback') return isLoopbackHost(url.hostname)
  return rule.some((entry) => {
    const allowed = parseHost(entry.toLowerCase())
    if (!allowed) return false
    return hasExplicitPort(entry) ? allowed.host === url.host : allowed.hostname === url.hostname
  })
}

function originMatches(origin: URL, rule: Exclude<HostRule, undefined>): boolean {
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

/**
 * Checks a request's `Host` and `Origin` headers against the rules.
 * A missing `Origin` passes (clients other than browsers send none); a missing or malformed
 * `Host` fails any rule, and so does an `Origin` that is not an http(s) origin (e.g. `null`).
 * @returns undefined when the request may proceed, else the reason to answer 403.
 */
export function refusedOrigin(
  headers: {host?: string | undefined; origin?: string | undefined},
  rules: RequestOriginRules,
): string | undefined {
  if (rules.hosts !== undefined) {
    const host = parseHost(headers.host ?? '')
    if (!host || !hostMatches(host, rules.hosts)) {
      return `Host header ${JSON.stringify(headers.host ?? '')} is not allowed here.`
    }
  }
  if (rules.origins !== undefined && headers.origin !== undefined) {
    let origin: URL | undefined
    try {
      origin = new URL(headers.origin)
    } catch {}
    if (!origin || (origin.protocol !== 'http:' && origin.protocol !== 'https:') || !originMatches(origin, rules.origins)) {
      return `Origin ${JSON.stringify(headers.origin)} is not allowed here.`
    }
  }
  return undefined
}
