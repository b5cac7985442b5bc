import {Client} from '@modelcontextprotocol/client'
import {StdioClientTransport} from '@modelcontextprotocol/client/stdio'

import {AK_VERSION} from '../version.js'

/** How long a started server has to answer `tools/list`, in ms. */
export const STDIO_PROBE_TIMEOUT_MS = 20_000

/** Most stderr kept from a probed server, in characters (only its last line is reported). */
const PROBE_STDERR_MAX_CHARS = 8192

/**
 * The variables Codex passes to a stdio MCP server (it clears the rest; notes/codex.md §3,
 * `rmcp-client` `DEFAULT_ENV_VARS`). Probes start servers with only these (plus an entry's
 * `env_vars`), so they see what a client will see.
 */
export const CLIENT_ENV_VARS = ['HOME', 'LOGNAME', 'PATH', 'SHELL', 'USER', 'LANG', 'LC_ALL', 'TERM', 'TMPDIR', 'TZ'] as const

/** Keeps only CLIENT_ENV_VARS and `extra` of `env`. */
export function clientEnvironment(env: NodeJS.ProcessEnv, extra: readonly string[] = []): Record<string, string> {
  const reduced: Record<string, string> = {}
  for (const name of [...CLIENT_ENV_VARS, ...extra]) {
    const value = env[name]
    if (value !== undefined) reduced[name] = value
  }
  return reduced
}

/** What a probe found: the tool names listed, or why the server did not answer. */
export type ProbeOutcome = {started: true; tools: string[]} | {started: false; reason: string}

/**
 * Starts `command args` as an MCP client would (stdio, given cwd and environment), connects the
 * official client, lists the tools and stops the server. Never throws: a server that does not
 * start, exits or does not answer within STDIO_PROBE_TIMEOUT_MS gives `started: false` with the
 * last `Error:` line it wrote on stderr, else its last line, else the client's error.
 */
export async function probeStdioServer(options: {
  command: string
  args: string[]
  cwd: string
  env: Record<string, string>
}): Promise<ProbeOutcome> {
  const transport = new StdioClientTransport({...options, stderr: 'pipe'})
  let stderr = ''
  transport.stderr?.on('data', (chunk: Buffer) => {
    stderr = (stderr + chunk.toString()).slice(-PROBE_STDERR_MAX_CHARS)
  })
  const client = new Client({name: 'ak-doctor', version: AK_VERSION})
  let timer: NodeJS.Timeout | undefined
  try {
    const timeout = new Promise<never>((_, reject) => {
      timer = setTimeout(() => reject(new Error(`no answer within ${STDIO_PROBE_TIMEOUT_MS} ms`)), STDIO_PROBE_TIMEOUT_MS)
    })
    const listed = await Promise.race([
      (async () => {
        await client.connect(transport)
        return (await client.listTools()).tools
      })(),
      timeout,
    ])
    return {started: true, tools: listed.map((tool) => tool.name)}
  } catch (error) {
    return {started: false, reason: errorLine(stderr) ?? (error instanceof Error ? error.message : String(error))}
  } finally {
    clearTimeout(timer)
    await client.close().catch(() => undefined)
    await transport.close().catch(() => undefined)
  }
}

/**
 * The last error a server reported on stderr: from its last `Error: …` line (prefix removed) to
 * the end, joined into one line, without oclif's "See more help" hint; else its last line.
 */
function errorLine(text: string): string | undefined {
  const lines = text
    .split('\n')
    .map((line) => line.trim())
    .filter(Boolean)
  const start = lines.findLastIndex((line) => line.startsWith('Error: '))
  if (start < 0) return lines.at(-1)
  return lines
    .slice(start)
    .filter((line) => !line.startsWith('See more help'))
    .join(' ')
    .slice('Error: '.length)
}
