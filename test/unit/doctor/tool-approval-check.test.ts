import {expect} from 'chai'
import path from 'node:path'
import {parse} from 'smol-toml'

import type {TomlFile} from '../../../src/codex/toml-file.js'
import {renderClientConfig} from '../../../src/exec/serving/client-config.js'
import {agentExecLevelOf, checkExecApproval} from '../../../src/doctor/tool-approval-check.js'
import {codexApprovalModeOf, toolsCodexExecDeclines} from '../../../src/launch/codex-tool-approval.js'

const HOME = '/home/me/.codex'
const FILE = path.join(HOME, 'config.toml')

/** A config.toml as doctor reads it. */
function config(text: string): TomlFile {
  return {status: 'ok', data: parse(text) as Record<string, unknown>} as TomlFile
}

/** An `[mcp_servers.<name>]` entry running `args`, plus `extra` lines. */
function entry(name: string, command: string, args: string[], extra = ''): string {
  return `[mcp_servers.${name}]\ncommand = ${JSON.stringify(command)}\nargs = ${JSON.stringify(args)}\n${extra}`
}

describe('doctor: whether Codex would decline the tools of AgentExec entries', () => {
  describe('agentExecLevelOf', () => {
    const level = (command: string, args: string[]) => agentExecLevelOf({command, args})

    it('reads the level of ak exec serve from a clone, an installed bin, the one-file CLI and npx', () => {
      expect(level('/usr/bin/node', ['/src/ak/bin/run.js', 'exec', 'serve', '--workspace', '/w', '--level', 'terminal'])).to.equal('terminal')
      expect(level('ak', ['exec', 'serve', '--level=files'])).to.equal('files')
      expect(level('node', ['/opt/ak.mjs', 'exec', 'serve'])).to.equal('read')
      expect(level('npx', ['-y', '@agentorg/ak@0.1.0', 'exec', 'serve', '--level', 'files'])).to.equal('files')
    })

    it('reads the level of the agentexec bin, its one-file build and its package', () => {
      expect(level('agentexec', ['--workspace', '/w', '--level', 'files'])).to.equal('files')
      expect(level('/usr/bin/node', ['/src/ak/dist/agentexec.js', '--level', 'terminal'])).to.equal('terminal')
      expect(level('npx', ['-y', '@agentorg/exec', '--workspace', '/w'])).to.equal('read')
    })

    it('takes the last --level given, and no level the server would refuse', () => {
      expect(level('agentexec', ['--level', 'read', '--level', 'terminal'])).to.equal('terminal')
      expect(level('agentexec', ['--level', 'everything'])).to.equal(undefined)
    })

    it('leaves other servers alone, including ak runtime entries and other exec serve commands', () => {
      expect(level('ak', ['codex-agent-runtime', 'serve'])).to.equal(undefined)
      expect(level('docs-mcp', ['exec', 'serve', '--level', 'terminal'])).to.equal(undefined)
      expect(agentExecLevelOf({url: 'http://127.0.0.1:8080/mcp'})).to.equal(undefined)
    })
  })

  describe('codexApprovalModeOf', () => {
    it("takes the tool's own mode, else the server's, else auto, and a value Codex refuses as auto", () => {
      const server = {default_tools_approval_mode: 'approve', tools: {edit: {approval_mode: 'prompt'}}}
      expect(codexApprovalModeOf(server, 'edit')).to.equal('prompt')
      expect(codexApprovalModeOf(server, 'exec_command')).to.equal('approve')
      expect(codexApprovalModeOf({}, 'edit')).to.equal('auto')
      expect(codexApprovalModeOf({default_tools_approval_mode: 'always'}, 'edit')).to.equal('auto')
      expect(toolsCodexExecDeclines(server, ['edit', 'exec_command'])).to.deep.equal(['edit'])
    })
  })

  describe('checkExecApproval', () => {
    const terminal = (extra = '') => entry('ak-exec', '/usr/bin/node', ['/src/ak/bin/run.js', 'exec', 'serve', '--level', 'terminal'], extra)

    it('warns, instead of saying there is no config, when the config exists but cannot be parsed', () => {
      const result = checkExecApproval(HOME, {status: 'invalid', text: '[a]\n[a]\n', reason: 'line 2: cannot redefine table a'})
      expect(result.status).to.equal('warn')
      expect(result.detail).to.contain('cannot check the AgentExec entries').and.contain('line 2: cannot redefine table a')
      expect(checkExecApproval(HOME, {status: 'missing'}).status).to.equal('ok')
    })

    it('warns about an entry at terminal without the approval mode, naming the tools codex exec declines', () => {
      const result = checkExecApproval(HOME, config(terminal()))
      expect(result.status).to.equal('warn')
      expect(result.detail).to.equal(
        '[mcp_servers.ak-exec] has no default_tools_approval_mode, so codex exec declines edit, exec_command and write_stdin (it cannot ask) and Codex asks before each call',
      )
      expect(result.fix).to.equal(`set default_tools_approval_mode = "approve" in [mcp_servers.ak-exec] of ${FILE}`)
    })

    it('passes the block ak exec config prints, at every level', () => {
      for (const level of ['read', 'files', 'terminal'] as const) {
        const printed = renderClientConfig({client: 'codex', workspace: '/w', level}).text
        const result = checkExecApproval(HOME, config(printed))
        expect(result.status, printed).to.equal('ok')
        expect(result.detail).to.equal(`[mcp_servers.ak-exec] (${level}) in ${FILE}: Codex runs their tools`)
      }
    })

    it('names only the tools the entry offers: edit at files, and none of those its enabled_tools leave out', () => {
      const files = entry('w', 'agentexec', ['--level', 'files'])
      expect(checkExecApproval(HOME, config(files)).detail).to.match(/declines edit \(it cannot ask\)/)
      const limited = terminal('enabled_tools = ["read", "exec_command"]\n')
      expect(checkExecApproval(HOME, config(limited)).detail).to.match(/declines exec_command \(it cannot ask\)/)
      expect(checkExecApproval(HOME, config(terminal('disabled_tools = ["edit", "exec_command", "write_stdin"]\n'))).status).to.equal('ok')
    })

    it("says that keeping the user's own mode means being asked, and that approval_policy never declines too", () => {
      const result = checkExecApproval(HOME, config(`approval_policy = "never"\n${terminal('default_tools_approval_mode = "writes"\n')}`))
      expect(result.detail).to.equal(
        '[mcp_servers.ak-exec] has default_tools_approval_mode = "writes", so Codex and codex exec decline edit, exec_command and write_stdin (approval_policy = "never")',
      )
      expect(result.fix).to.equal(`set default_tools_approval_mode = "approve" in [mcp_servers.ak-exec] of ${FILE}, or keep yours to be asked before each call`)
    })

    it('reports every entry with a problem: the first as the warning, the others as notes', () => {
      const two = `${terminal()}\n${entry('other', 'agentexec', ['--level', 'files'])}`
      const result = checkExecApproval(HOME, config(two))
      expect(result.detail).to.match(/^\[mcp_servers\.ak-exec\]/)
      expect(result.notes).to.deep.equal([
        '[mcp_servers.other] has no default_tools_approval_mode, so codex exec declines edit (it cannot ask) and Codex asks before each call',
      ])
    })

    it('passes a config without AgentExec entries, and a missing config', () => {
      expect(checkExecApproval(HOME, config(entry('docs', 'docs-mcp', [])))).to.include({status: 'ok', detail: `no [mcp_servers.*] entry in ${FILE} starts AgentExec`})
      expect(checkExecApproval(HOME, {status: 'missing'} as TomlFile)).to.include({status: 'ok', detail: `no ${FILE} to read`})
    })
  })
})
