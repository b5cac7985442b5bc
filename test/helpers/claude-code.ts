import {existsSync} from 'node:fs'
import {createRequire} from 'node:module'
import path from 'node:path'

/** The Claude Code npm package (pinned in package.json). */
export const CLAUDE_PACKAGE = '@anthropic-ai/claude-code'

/**
 * The native `claude` binary: the npm package ships it in a package per platform (an optional
 * dependency), which its postinstall script copies over `bin/claude.exe`; taken from the platform
 * package directly, it runs whether or not install scripts ran. Undefined where none is installed.
 */
export function claudeBinary(): string | undefined {
  let packageDir: string
  try {
    packageDir = path.dirname(createRequire(import.meta.url).resolve(`${CLAUDE_PACKAGE}/package.json`))
  } catch {
    return undefined
  }
  const fromPackage = createRequire(path.join(packageDir, 'package.json'))
  for (const suffix of ['', '-musl']) {
    try {
      const platformDir = path.dirname(fromPackage.resolve(`${CLAUDE_PACKAGE}-${process.platform}-${process.arch}${suffix}/package.json`))
      const binary = path.join(platformDir, 'claude')
      if (existsSync(binary)) return binary
    } catch {
      // not this platform package
    }
  }
  return undefined
}

/** The environment that points `claude -p` at a mock Messages API at `baseUrl`, and nowhere else. */
export function mockClaudeEnvironment(baseUrl: string): Record<string, string> {
  return {
    ANTHROPIC_BASE_URL: baseUrl,
    ANTHROPIC_API_KEY: 'sk-ant-test',
    // Nothing but the mock model: no update check, telemetry or error reporting.
    CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC: '1',
    DISABLE_AUTOUPDATER: '1',
  }
}
