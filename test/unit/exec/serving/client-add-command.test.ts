import {expect} from 'chai'
import {execFileSync} from 'node:child_process'

import {BadInputError} from '../../../../src/errors.js'
import {ALLOW_PROTECTED_SEPARATOR, AllowedProtectedPaths} from '../../../../src/exec/protected-paths.js'
import {clientAddCommand} from '../../../../src/exec/serving/client-add-command.js'
import {type ConfigClient, renderClientConfig} from '../../../../src/exec/serving/client-config.js'
import {RUN_JS} from '../../../helpers/clients.js'

/** A workspace whose path needs every kind of quoting: a space, both quotes, a dollar sign, a backslash. */
const workspace = `/home/dev/it's "my" $app\\x`
const allowed = AllowedProtectedPaths.parse(['.vscode', '.git/hooks'])
const allow = allowed.paths.join(ALLOW_PROTECTED_SEPARATOR)

/** The words a POSIX shell makes of `line` (after a leading `cd <dir> &&`, which it checks). */
function wordsOf(line: string): {cwd?: string; argv: string[]} {
  const cd = /^cd (.+?) && (.*)$/s.exec(line)
  const printed = execFileSync('/bin/sh', ['-c', `set -- ${cd ? cd[2] : line}; printf '%s\\0' "$@"`], {encoding: 'utf8'})
  const argv = printed.split('\0').slice(0, -1)
  if (!cd) return {argv}
  return {cwd: execFileSync('/bin/sh', ['-c', `printf '%s' ${cd[1]}`], {encoding: 'utf8'}), argv}
}

describe('clientAddCommand (ak exec config --as-command)', () => {
  const config = (client: ConfigClient, url?: string) =>
    renderClientConfig({client, workspace, level: 'terminal', sandbox: {mode: 'workspace-write', network: true}, allowedProtected: allowed, ...(url ? {url} : {})})
  const launch = [process.execPath, RUN_JS, 'exec', 'serve', '--workspace', workspace, '--level', 'terminal', '--sandbox', 'workspace-write', '--sandbox-network', '--allow-protected', allow]

  it('quotes every word so that a shell gives the client the very launch line of the block', () => {
    expect(wordsOf(clientAddCommand(config('codex'), workspace).line)).to.deep.equal({argv: ['codex', 'mcp', 'add', 'ak-exec', '--', ...launch]})
    expect(wordsOf(clientAddCommand(config('gemini'), workspace).line)).to.deep.equal({
      cwd: workspace,
      argv: ['gemini', 'mcp', 'add', '--scope', 'project', '--trust', 'ak-exec', ...launch],
    })
    expect(wordsOf(clientAddCommand(config('opencode'), workspace).line)).to.deep.equal({argv: ['opencode', 'mcp', 'add', 'ak-exec', '--', ...launch]})
  })

  it('hands Claude Code and VS Code the block\'s entry as one JSON word', () => {
    const claude = wordsOf(clientAddCommand(config('claude'), workspace).line)
    expect(claude.cwd).to.equal(workspace)
    expect(claude.argv.slice(0, 4)).to.deep.equal(['claude', 'mcp', 'add-json', 'ak-exec'])
    expect(JSON.parse(claude.argv[4]!)).to.deep.equal({command: process.execPath, args: launch.slice(1)})
    const vscode = wordsOf(clientAddCommand(config('vscode'), workspace).line).argv
    expect(JSON.parse(vscode[2]!)).to.deep.equal({name: 'ak-exec', type: 'stdio', command: process.execPath, args: launch.slice(1)})
  })

  it('leaves the token variable for the client to read, in its own syntax, over HTTP', () => {
    const url = 'http://127.0.0.1:8765/mcp'
    expect(wordsOf(clientAddCommand(config('codex', url), workspace).line).argv).to.deep.equal(['codex', 'mcp', 'add', 'ak-exec', '--url', url, '--bearer-token-env-var', 'AGENTEXEC_TOKEN'])
    expect(wordsOf(clientAddCommand(config('gemini', url), workspace).line).argv.slice(6)).to.deep.equal(['--transport', 'http', '--header', 'Authorization: Bearer ${AGENTEXEC_TOKEN}', 'ak-exec', url])
    expect(wordsOf(clientAddCommand(config('opencode', url), workspace).line).argv).to.deep.equal(['opencode', 'mcp', 'add', 'ak-exec', '--url', url, '--header', 'Authorization=Bearer {env:AGENTEXEC_TOKEN}'])
  })

  it('says what codex mcp add and opencode mcp add leave out of the block', () => {
    expect(clientAddCommand(config('codex'), workspace).notes.join('\n')).to.contain('required = true').and.contain('default_tools_approval_mode = "approve"')
    expect(clientAddCommand(config('opencode'), workspace).notes.join('\n')).to.contain('"timeout": 120000')
    expect(clientAddCommand(config('gemini'), workspace).notes).to.deep.equal([])
  })

  for (const client of ['cursor', 'windsurf', 'zed'] as const) {
    it(`refuses ${client}, which has no such command, saying where the block goes`, () => {
      expect(() => clientAddCommand(config(client), workspace)).to.throw(BadInputError, /has no command that adds an MCP server: leave out --as-command and paste the block into/)
    })
  }
})
