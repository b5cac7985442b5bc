import {expect} from 'chai'
import path from 'node:path'
import {parse} from 'smol-toml'

import type {TomlFile} from '../../../src/codex/toml-file.js'
import {checkExecStartup, startupFix, startupLine} from '../../../src/doctor/codex-startup-check.js'
import {renderClientConfig} from '../../../src/exec/serving/client-config.js'

const HOME = '/home/me/.codex'
const FILE = path.join(HOME, 'config.toml')

/** A config.toml as doctor reads it. */
function config(text: string): TomlFile {
  return {status: 'ok', data: parse(text) as Record<string, unknown>} as TomlFile
}

const SERVE = `command = "agentexec"\nargs = ["--workspace", "/w", "--level", "terminal"]\n`

describe('doctor: whether Codex waits for ak and fails loudly (required, start-up timeout)', () => {
  it('passes the blocks ak exec config prints for Codex, over stdio and HTTP', () => {
    const stdio = renderClientConfig({client: 'codex', workspace: '/w', level: 'terminal', name: 'ak-exec'}).text
    const http = renderClientConfig({client: 'codex', workspace: '/w', level: 'files', url: 'http://127.0.0.1:8765/mcp', name: 'ak-http'}).text
    const result = checkExecStartup(HOME, config(`${stdio}\n${http}`))
    expect(result.status, result.detail).to.equal('ok')
    expect(result.detail).to.contain('[mcp_servers.ak-exec], [mcp_servers.ak-http]')
  })

  it('warns about an AgentExec entry without required = true and a start-up timeout, with the keys to set', () => {
    const result = checkExecStartup(HOME, config(`[mcp_servers.ak]\n${SERVE}`))
    expect(result.status).to.equal('warn')
    expect(result.detail).to.equal(
      '[mcp_servers.ak] has no required, so Codex runs without it, silently, when it starts late or fails; ' +
        'and no startup_timeout_sec, so Codex waits 30 s for it to start, which a loaded machine can exceed',
    )
    expect(result.fix).to.equal(`set required = true and startup_timeout_sec = 120 in [mcp_servers.ak] of ${FILE} (the block "ak exec config --client codex" prints has them)`)
  })

  it('names each entry with a gap: one without the timeout, one with required = false, an HTTP one', () => {
    const text =
      `[mcp_servers.a]\n${SERVE}required = true\n\n` +
      `[mcp_servers.b]\n${SERVE}required = false\nstartup_timeout_ms = 90000\n\n` +
      `[mcp_servers.c]\nurl = "http://127.0.0.1:8765/mcp"\nbearer_token_env_var = "AGENTEXEC_TOKEN"\nstartup_timeout_sec = 60\n\n` +
      `[mcp_servers.d]\n${SERVE}required = true\nstartup_timeout_sec = 5\n\n` +
      `[mcp_servers.docs]\ncommand = "docs-mcp"\n`
    const result = checkExecStartup(HOME, config(text))
    expect(result.status).to.equal('warn')
    expect(result.detail).to.match(/^\[mcp_servers\.a\] has no startup_timeout_sec/)
    expect(result.fix).to.match(/^set startup_timeout_sec = 120 in \[mcp_servers\.a\]/)
    expect(result.notes).to.deep.equal([
      '[mcp_servers.b] has required = false, so Codex runs without it, silently, when it starts late or fails',
      '[mcp_servers.c] has no required, so Codex runs without it, silently, when it starts late or fails',
    ])
  })

  it('is ok without AgentExec entries or without a readable config', () => {
    expect(checkExecStartup(HOME, config('[mcp_servers.docs]\ncommand = "docs-mcp"\n')).status).to.equal('ok')
    expect(checkExecStartup(HOME, {status: 'missing'} as TomlFile).status).to.equal('ok')
  })

  it('gives register as the fix where it adds the keys, and the edit where a user value of its own stands in the way', () => {
    expect(startupLine('agents', {required: true, startup_timeout_sec: 120})).to.equal(undefined)
    expect(startupFix('agents', {}, FILE, 'ak codex-agent-runtime register --name agents')).to.equal(
      `ak codex-agent-runtime register --name agents (it adds both keys, keeping your other values), or set required = true and startup_timeout_sec = 120 in [mcp_servers.agents] of ${FILE}`,
    )
    expect(startupFix('agents', {required: true}, FILE, 'ak codex-agent-runtime register --name agents')).to.match(/\(it adds the key, keeping your other values\), or set startup_timeout_sec = 120/)
    expect(startupFix('agents', {required: false, startup_timeout_sec: 60}, FILE, 'ak codex-agent-runtime register --name agents')).to.equal(
      `set required = true in [mcp_servers.agents] of ${FILE}`,
    )
  })
})
