import {Client} from '@modelcontextprotocol/client'
import {StdioClientTransport} from '@modelcontextprotocol/client/stdio'
import path from 'node:path'

import {akLaunch} from '../ak-entry.js'
import {AK_VERSION} from '../version.js'
import {type CheckResult, type DoctorEnvironment, fail, ok} from './check.js'

/** How long the started `ak exec serve` has to answer `tools/list`, in ms. */
export const EXEC_SERVE_START_TIMEOUT_MS = 20_000

/**
 * The variables Codex passes to a stdio MCP server (it clears the rest; notes/codex.md §3,
 * `rmcp-client` `DEFAULT_ENV_VARS`). The check starts the server with only these, so it sees
 * what a client will see.
 */
export const CLIENT_ENV_VARS = ['HOME', 'LOGNAME', 'PATH', 'SHELL', 'USER', 'LANG', 'LC_ALL', 'TERM', 'TMPDIR', 'TZ'] as const

/** Keeps only CLIENT_ENV_VARS of `env`. */
export function clientEnvironment(env: NodeJS.ProcessEnv): Record<string, string> {
  const reduced: Record<string, string> = {}
  for (const name of CLIENT_ENV_VARS) {
    const value = env[name]
    if (value !== undefined) reduced[name] = value
  }
  return reduced
}

/**
 * Starts `ak exec serve --workspace <cwd>` with the launch line `ak exec config` writes (absolute
 * Node.js and entry file), from the filesystem root, with a client's reduced environment;
 * connects an MCP client over stdio, lists the tools and stops the server.
 */
export async function checkExecServe(environment: DoctorEnvironment): Promise<CheckResult> {
  const launch = akLaunch(['exec', 'serve', '--workspace', environment.cwd])
  const transport = new StdioClientTransport({
    command: launch.command,
    args: launch.args,
    // Clients start servers from a folder of their own: the workspace must come from the flag.
    cwd: path.parse(environment.cwd).root || '/',
    env: clientEnvironment(environment.env),
    stderr: 'pipe',
  })
  let stderr = ''
  transport.stderr?.on('data', (chunk: Buffer) => {
    if (stderr.length < 4096) stderr += chunk.toString()
  })
  const client = new Client({name: 'ak-doctor', version: AK_VERSION})
  let timer: NodeJS.Timeout | undefined
  try {
    const timeout = new Promise<never>((_, reject) => {
      timer = setTimeout(() => reject(new Error(`no answer within ${EXEC_SERVE_START_TIMEOUT_MS} ms`)), EXEC_SERVE_START_TIMEOUT_MS)
    })
    const tools = await Promise.race([
      (async () => {
        await client.connect(transport)
        return (await client.listTools()).tools
      })(),
      timeout,
    ])
    return ok('exec serve', `starts on ${environment.cwd} and lists ${tools.length} ${tools.length === 1 ? 'tool' : 'tools'} (${tools.map((tool) => tool.name).join(', ')})`)
  } catch (error) {
    const reason = lastLine(stderr) ?? (error instanceof Error ? error.message : String(error))
    return fail(
      'exec serve',
      `does not start on ${environment.cwd}: ${reason}`,
      `run "ak exec serve --workspace ${environment.cwd}" to see the whole error`,
    )
  } finally {
    clearTimeout(timer)
    await client.close().catch(() => undefined)
    await transport.close().catch(() => undefined)
  }
}

function lastLine(text: string): string | undefined {
  const lines = text.split('\n').map((line) => line.trim()).filter(Boolean)
  return lines.at(-1)
}
