/**
 * Runs the real Codex CLI (`@openai/codex`, pinned in package.json) once with `codex exec`, in a
 * temporary CODEX_HOME whose config.toml points Codex at a scripted mock model on loopback and
 * then holds an MCP server block exactly as given (as `ak exec config` printed it).
 */
import {execa} from 'execa'
import {mkdtemp, realpath, rm, writeFile} from 'node:fs/promises'
import {createRequire} from 'node:module'
import {tmpdir} from 'node:os'
import path from 'node:path'

import {type MockResponsesProvider, type MockScript, startMockResponsesProvider} from './mock-responses-provider.js'

/** The Codex CLI's entry (its npm launcher, which runs the native binary). */
export const CODEX_BIN = path.join(path.dirname(createRequire(import.meta.url).resolve('@openai/codex/package.json')), 'bin', 'codex.js')

/** A whole `codex exec` run with a few tool calls, on a loaded machine. */
export const CODEX_RUN_TIMEOUT_MS = 180_000

/** What one run left behind. */
export interface CodexExecRun {
  exitCode: number | undefined
  stdout: string
  stderr: string
  /** Every model request Codex made, in order. */
  requests: MockResponsesProvider['requests']
  /** Errors of the script (each answered with HTTP 500). */
  mockErrors: Error[]
}

/**
 * `codex exec --skip-git-repo-check -C <cwd> [extraArgs] <prompt>` with `block` appended to a
 * config that names the mock model, and `env` (with CODEX_HOME) added to this process's environment.
 */
export async function runCodexExec(options: {
  block: string
  script: MockScript
  cwd: string
  prompt?: string
  extraArgs?: string[]
  env?: Record<string, string>
  /** Lines for the top of config.toml (before any table). */
  topLevel?: string[]
}): Promise<CodexExecRun> {
  const codexHome = await realpath(await mkdtemp(path.join(tmpdir(), 'ak-codex-home-')))
  const mock = await startMockResponsesProvider(options.script)
  try {
    await writeFile(
      path.join(codexHome, 'config.toml'),
      [
        'model = "mock-model"',
        'model_provider = "mock"',
        ...(options.topLevel ?? []),
        '',
        '[model_providers.mock]',
        'name = "mock"',
        `base_url = ${JSON.stringify(mock.baseUrl)}`,
        'wire_api = "responses"',
        'request_max_retries = 0',
        'stream_max_retries = 0',
        '',
        options.block,
      ].join('\n'),
    )
    const run = await execa(process.execPath, [CODEX_BIN, 'exec', '--skip-git-repo-check', '-C', options.cwd, ...(options.extraArgs ?? []), options.prompt ?? 'Do the task.'], {
      env: {CODEX_HOME: codexHome, ...options.env},
      stdin: 'ignore',
      reject: false,
      timeout: CODEX_RUN_TIMEOUT_MS,
    })
    return {exitCode: run.exitCode, stdout: String(run.stdout), stderr: String(run.stderr), requests: mock.requests, mockErrors: mock.errors}
  } finally {
    await mock.close()
    await rm(codexHome, {recursive: true, force: true})
  }
}
