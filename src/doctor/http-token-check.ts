import {codexConfigPath} from '../codex/codex-config.js'
import {mcpServersOf} from '../codex/mcp-servers.js'
import type {TomlFile} from '../codex/toml-file.js'
import {isLoopbackHost} from '../exec/http/listen-address.js'
import {type CheckResult, ok, warn} from './check.js'

/** The name of the check in the report. */
const CHECK = 'codex http tokens'

/** How long doctor waits for a loopback server to answer its probe, in milliseconds. */
export const HTTP_TOKEN_PROBE_TIMEOUT_MS = 3000

/** A Codex HTTP entry that sends a bearer token from an environment variable. */
export interface TokenEntry {
  name: string
  url: URL
  variable: string
}

/** The `[mcp_servers.*]` entries with a loopback `url` and a `bearer_token_env_var`: how `ak exec serve --http` is wired into Codex. */
export function tokenEntries(data: Record<string, unknown>): TokenEntry[] {
  return Object.entries(mcpServersOf(data)).flatMap(([name, entry]) => {
    const variable = entry.bearer_token_env_var
    if (typeof entry.url !== 'string' || typeof variable !== 'string') return []
    const url = URL.canParse(entry.url) ? new URL(entry.url) : undefined
    return url && url.protocol === 'http:' && isLoopbackHost(url.hostname.replace(/^\[|\]$/g, '')) ? [{name, url, variable}] : []
  })
}

/**
 * What the server at `url` says to `token`: `accepted`, `refused` (401 or 403, with the status),
 * or `unreachable` (nothing listens, or no answer within HTTP_TOKEN_PROBE_TIMEOUT_MS). The probe
 * is a 2025-era `initialize` POST; a session it opens is ended with DELETE.
 */
export async function probeToken(url: URL, token: string): Promise<{outcome: 'accepted' | 'unreachable'} | {outcome: 'refused'; status: number}> {
  const headers = {authorization: `Bearer ${token}`, 'content-type': 'application/json', accept: 'application/json, text/event-stream'}
  const body = JSON.stringify({jsonrpc: '2.0', id: 1, method: 'initialize', params: {protocolVersion: '2025-11-25', capabilities: {}, clientInfo: {name: 'ak-doctor', version: '1'}}})
  let answer: Response
  try {
    answer = await fetch(url, {method: 'POST', headers, body, signal: AbortSignal.timeout(HTTP_TOKEN_PROBE_TIMEOUT_MS)})
  } catch {
    return {outcome: 'unreachable'}
  }
  await answer.body?.cancel()
  if (answer.status === 401 || answer.status === 403) return {outcome: 'refused', status: answer.status}
  const session = answer.headers.get('mcp-session-id')
  if (session) await fetch(url, {method: 'DELETE', headers: {authorization: headers.authorization, 'mcp-session-id': session}, signal: AbortSignal.timeout(HTTP_TOKEN_PROBE_TIMEOUT_MS)}).catch(() => undefined)
  return {outcome: 'accepted'}
}

/**
 * Checks the token of every Codex HTTP entry on loopback that names a `bearer_token_env_var` (how
 * `ak exec config --http` wires `ak exec serve --http` into Codex): the variable must be set in the
 * environment Codex starts from (Codex does not start the entry otherwise), and when a server
 * answers at the entry's URL, it must accept the token (else the server was started with another
 * one). A warning per problem; ok when there is no such entry or config.
 */
export async function checkHttpTokens(codexHome: string, config: TomlFile, env: NodeJS.ProcessEnv): Promise<CheckResult> {
  const file = codexConfigPath(codexHome)
  if (config.status !== 'ok') return ok(CHECK, `no readable ${file} to check`)
  const entries = tokenEntries(config.data)
  if (entries.length === 0) return ok(CHECK, `no [mcp_servers.*] entry in ${file} sends a token to a loopback URL`)
  const found: Array<{line: string; fix?: string}> = []
  for (const {name, url, variable} of entries) {
    const token = env[variable] ?? ''
    if (token.trim() === '') {
      found.push({
        line: `[mcp_servers.${name}] sends the token in ${variable}, which is not set here: Codex does not start it`,
        fix: `export ${variable}=<the token "ak exec serve --http" runs with> in the shell Codex starts from`,
      })
      continue
    }
    const probe = await probeToken(url, token)
    if (probe.outcome === 'refused') {
      found.push({
        line: `[mcp_servers.${name}]: the server at ${url.href} refuses the token in ${variable} (HTTP ${probe.status})`,
        fix: `start the server with the same ${variable} as Codex's, or set ${variable} to the token it runs with`,
      })
    } else found.push({line: `[mcp_servers.${name}]: ${variable} is set; ${probe.outcome === 'accepted' ? `the server at ${url.href} accepts it` : `no server answers at ${url.href} now`}`})
  }
  const problems = found.filter((item) => item.fix !== undefined)
  const lines = found.map((item) => item.line)
  if (problems.length === 0) return {...ok(CHECK, lines[0]!), ...(lines.length > 1 ? {notes: lines.slice(1)} : {})}
  const others = lines.filter((line) => line !== problems[0]!.line)
  return {...warn(CHECK, problems[0]!.line, problems[0]!.fix!), ...(others.length > 0 ? {notes: others} : {})}
}
