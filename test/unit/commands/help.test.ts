import {runCommand} from '@oclif/test'
import {expect} from 'chai'
import {execFileSync} from 'node:child_process'
import {readFileSync} from 'node:fs'
import path from 'node:path'

import {REPO_ROOT, RUN_JS} from '../../helpers/clients.js'

interface ManifestCommand {
  id: string
  summary?: string
  description?: string
  examples?: unknown[]
  flags: Record<string, {description?: string; hidden?: boolean}>
  args: Record<string, {description?: string}>
}

const manifest = JSON.parse(readFileSync(path.join(REPO_ROOT, 'oclif.manifest.json'), 'utf8')) as {
  commands: Record<string, ManifestCommand>
}
const pkg = JSON.parse(readFileSync(path.join(REPO_ROOT, 'package.json'), 'utf8')) as {
  oclif: {topics: Record<string, {description?: string}>}
}
const commands = Object.values(manifest.commands)
const spaced = (id: string) => id.split(':').join(' ')

function ak(args: string[]): string {
  return execFileSync(process.execPath, [RUN_JS, ...args], {encoding: 'utf8'})
}

describe('help', () => {
  it('has commands to check', () => {
    expect(commands.map((command) => command.id)).to.include.members([
      'doctor',
      'exec:serve',
      'exec:tools',
      'exec:call',
      'exec:config',
      'codex-agent-runtime:serve',
      'codex-agent-runtime:inspect',
      'codex-agent-runtime:register',
      'codex-agent-runtime:unregister',
    ])
  })

  for (const command of commands) {
    it(`documents "ak ${spaced(command.id)}": summary, description, examples, every flag and argument`, () => {
      expect(command.summary, 'summary').to.be.a('string').and.not.equal('')
      expect(command.description, 'description').to.be.a('string').and.not.equal('')
      expect(command.examples, 'examples').to.be.an('array').that.is.not.empty
      for (const [name, flag] of Object.entries(command.flags)) {
        if (!flag.hidden) expect(flag.description, `--${name}`).to.be.a('string').and.not.equal('')
      }
      for (const [name, arg] of Object.entries(command.args)) expect(arg.description, name).to.be.a('string').and.not.equal('')
    })
  }

  it('writes each description paragraph as one line, so help wraps it to the terminal (lists excepted)', () => {
    for (const command of commands) {
      for (const paragraph of (command.description ?? '').split('\n\n')) {
        const lines = paragraph.split('\n')
        lines.slice(1).forEach((line, index) => {
          const previous = lines[index]!
          const isListItem = /^\s*(\d+\.|-|\*) /.test(line)
          expect(isListItem || /[.;]$/.test(previous), `"ak ${spaced(command.id)}": "${previous}⏎${line}"`).to.equal(true)
        })
      }
    }
  })

  it('describes every topic a command lives in', () => {
    const topics = new Set(commands.filter((command) => command.id.includes(':')).map((command) => command.id.split(':')[0]!))
    for (const topic of topics) expect(pkg.oclif.topics[topic]?.description, topic).to.be.a('string').and.not.equal('')
  })

  it('shows the topics and the top-level commands in ak --help', async () => {
    const {stdout} = await runCommand(['--help'], {root: REPO_ROOT})
    expect(stdout).to.match(/\nTOPICS\n[^]*? {2}exec {2,}AgentExec/)
    expect(stdout).to.match(/\nTOPICS\n {2}codex-agent-runtime {2,}Serve Codex agent files/)
    expect(stdout).to.match(/\nCOMMANDS\n[^]* {2}doctor {2,}Check/)
  })

  it('prints the same help for "ak help exec serve" and "ak exec serve --help"', () => {
    const viaHelp = ak(['help', 'exec', 'serve'])
    expect(viaHelp).to.contain('EXAMPLES')
    expect(ak(['exec', 'serve', '--help'])).to.equal(viaHelp)
  })

  it('shows an HTTP example that exports the token, so the client can be given the same one', () => {
    const help = ak(['exec', 'serve', '--help']).replaceAll(/\s+/g, ' ')
    expect(help).to.contain('"export AGENTEXEC_TOKEN=$(openssl rand -hex 32)"')
    expect(help).to.contain('$ ak exec serve --http 127.0.0.1:0')
    expect(help.replaceAll('export AGENTEXEC_TOKEN=', '')).not.to.contain('AGENTEXEC_TOKEN=$(')
  })

  const runtimeCommands = ['serve', 'inspect', 'register', 'unregister']
  for (const name of runtimeCommands) {
    it(`names the other agent runtime commands under "Related commands" in "ak codex-agent-runtime ${name} --help"`, () => {
      const help = ak(['codex-agent-runtime', name, '--help'])
      const related = help.slice(help.indexOf('Related commands:')).split('\n\n', 1)[0]!
      expect(help).to.contain('Related commands:')
      for (const other of runtimeCommands.filter((candidate) => candidate !== name)) expect(related).to.contain(`ak codex-agent-runtime ${other}`)
      expect(related).not.to.contain(`ak codex-agent-runtime ${name}:`)
    })
  }
})
