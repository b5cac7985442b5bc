import {expect} from 'chai'
import {parse} from 'smol-toml'

import {codexExecArgs} from '../../../src/codex/codex-argv.js'
import {EMPTY_POLICY, agentPolicyOf} from '../../../src/codex/policy.js'
import {BadInputError} from '../../../src/errors.js'

const context = {cwd: '/work/app', isInsideGitRepo: true, configServers: {}}

/** The `-c` overrides of an argument list, as key → parsed TOML value. */
function overrides(args: string[]): Record<string, unknown> {
  const result: Record<string, unknown> = {}
  args.forEach((arg, index) => {
    if (arg !== '-c') return
    const text = args[index + 1]!
    const eq = text.indexOf('=')
    result[text.slice(0, eq)] = (parse(`v = ${text.slice(eq + 1)}`) as {v: unknown}).v
  })
  return JSON.parse(JSON.stringify(result))
}

describe('codex exec arguments', () => {
  it('runs in the server folder with the prompt on stdin and no colour', () => {
    const args = codexExecArgs(EMPTY_POLICY, context)
    expect(args).to.deep.equal(['exec', '--cd', '/work/app', '--color', 'never', '-'])
  })

  it('adds --skip-git-repo-check outside a git repository', () => {
    expect(codexExecArgs(EMPTY_POLICY, {...context, isInsideGitRepo: false})).to.include('--skip-git-repo-check')
  })

  it('maps sandbox, model, reasoning effort and instructions to flags and overrides', () => {
    const policy = agentPolicyOf({
      name: 'reviewer',
      description: 'Reviews',
      sandbox_mode: 'read-only',
      model: 'gpt-5.4',
      model_reasoning_effort: 'high',
      developer_instructions: 'Line one "quoted"\nLine two \\ backslash\u007f',
    })
    const args = codexExecArgs(policy, context)
    expect(args.slice(0, 9)).to.deep.equal(['exec', '--cd', '/work/app', '--color', 'never', '-s', 'read-only', '-m', 'gpt-5.4'])
    expect(overrides(args)).to.deep.equal({
      model_reasoning_effort: 'high',
      developer_instructions: 'Line one "quoted"\nLine two \\ backslash\u007f',
    })
    expect(args[args.length - 1]).to.equal('-')
  })

  it('passes other config keys as leaf overrides and never the descriptive keys', () => {
    const policy = agentPolicyOf({name: 'x', description: 'd', nickname_candidates: ['A'], web_search: 'live', features: {shell_tool: false}})
    expect(overrides(codexExecArgs(policy, context))).to.deep.equal({web_search: 'live', 'features.shell_tool': false})
  })

  it("passes the agent's MCP servers and keeps their tool limits", () => {
    const policy = agentPolicyOf({mcp_servers: {docs: {command: 'docs-mcp', args: ['--ro'], enabled_tools: ['search']}}})
    expect(overrides(codexExecArgs(policy, context))).to.deep.equal({
      'mcp_servers.docs.command': 'docs-mcp',
      'mcp_servers.docs.args': ['--ro'],
      'mcp_servers.docs.enabled_tools': ['search'],
    })
  })

  it('disables every server entry that runs this runtime, in the home config and the agent file', () => {
    const policy = agentPolicyOf({mcp_servers: {nested: {command: 'ak', args: ['codex-agent-runtime', 'serve']}}})
    const configServers = {
      agents: {command: '/usr/bin/node', args: ['/opt/ak/bin/run.js', 'codex-agent-runtime', 'serve']},
      files: {command: 'ak', args: ['exec', 'serve']},
    }
    const result = overrides(codexExecArgs(policy, {...context, configServers}))
    expect(result['mcp_servers.agents.enabled']).to.equal(false)
    expect(result['mcp_servers.nested.enabled']).to.equal(false)
    expect(result).not.to.have.property('mcp_servers.files.enabled')
  })

  describe('a server entry that runs this runtime through a shell script', () => {
    const runs = (command: string, args: string[]) =>
      overrides(codexExecArgs(agentPolicyOf({mcp_servers: {c: {command, args}}}), context))['mcp_servers.c.enabled'] === false

    it('is disabled for sh, bash, zsh and dash with -c, -lc, -ec and separate options', () => {
      expect(runs('sh', ['-c', 'ak codex-agent-runtime serve'])).to.equal(true)
      expect(runs('/bin/bash', ['-lc', 'ak codex-agent-runtime serve --max-dispatches 1'])).to.equal(true)
      expect(runs('zsh', ['-ec', 'cd /x && ak codex-agent-runtime serve'])).to.equal(true)
      expect(runs('dash', ['-e', '-c', 'ak codex-agent-runtime serve', 'name'])).to.equal(true)
      expect(runs('bash', ['--norc', '-o', 'pipefail', '-c', 'ak codex-agent-runtime serve'])).to.equal(true)
    })

    it('is disabled when the script reaches ak through exec, env, node, npx or quotes', () => {
      expect(runs('sh', ['-c', 'exec ak codex-agent-runtime serve'])).to.equal(true)
      expect(runs('sh', ['-c', 'env FOO=1 node /opt/ak/dist/ak.mjs codex-agent-runtime serve'])).to.equal(true)
      expect(runs('sh', ['-c', 'npx -y @agentorg/ak "codex-agent-runtime" serve'])).to.equal(true)
      expect(runs('sh', ['-c', "echo starting; exec 'ak' codex-agent-runtime serve 2>/dev/null"])).to.equal(true)
      expect(runs('sh', ['-c', 'ak --quiet codex-agent-runtime serve'])).to.equal(true)
    })

    it('is disabled when the shell is started through env, or a shell script starts another shell', () => {
      expect(runs('env', ['bash', '-c', 'ak codex-agent-runtime serve'])).to.equal(true)
      expect(runs('/usr/bin/env', ['-i', 'PATH=/bin', 'sh', '-c', 'ak codex-agent-runtime serve'])).to.equal(true)
      expect(runs('sh', ['-c', `exec bash -lc 'ak codex-agent-runtime serve'`])).to.equal(true)
    })

    it('is disabled when one argument holds the whole command line, as env -S splits it', () => {
      expect(runs('/usr/bin/env', ['-S', 'ak codex-agent-runtime serve'])).to.equal(true)
      expect(runs('env', ['--split-string=ak codex-agent-runtime serve --max-dispatches 2'])).to.equal(true)
      expect(runs('env', ['-S', 'sh -c "exec ak codex-agent-runtime serve"'])).to.equal(true)
      expect(runs('env', ['-S', 'ak exec serve --workspace /tmp'])).to.equal(false)
    })

    it("is disabled for oclif's colon form and a name assigned to a shell variable", () => {
      expect(runs('node', ['/opt/ak/bin/run.js', 'codex-agent-runtime:serve'])).to.equal(true)
      expect(runs('bash', ['-c', 'r=codex-agent-runtime; exec ak $r serve'])).to.equal(true)
      expect(runs('node', ['/opt/ak/bin/run.js', 'codex-agent-runtime-docs', 'serve'])).to.equal(false)
    })

    it('is left alone when the script runs something else', () => {
      expect(runs('sh', ['-c', 'ak exec serve'])).to.equal(false)
      expect(runs('bash', ['-lc', 'my-codex-agent-runtime-wrapper serve'])).to.equal(false)
      expect(runs('sh', ['./serve.sh'])).to.equal(false)
      expect(runs('python3', ['-c', 'print("ak codex-agent-runtime serve")'])).to.equal(false)
    })
  })

  describe('the tools argument', () => {
    const policy = agentPolicyOf({
      mcp_servers: {
        docs: {command: 'docs', enabled_tools: ['search', 'read']},
        git: {command: 'git-mcp', disabled_tools: ['push']},
      },
    })
    const configServers = {web: {command: 'web-mcp'}, agents: {command: 'ak', args: ['codex-agent-runtime', 'serve']}}

    it('disables servers not named and limits a server to the tools named', () => {
      const result = overrides(codexExecArgs(policy, {...context, configServers}, ['docs.search', 'git']))
      expect(result['mcp_servers.docs.enabled_tools']).to.deep.equal(['search'])
      expect(result).not.to.have.property('mcp_servers.git.enabled')
      expect(result['mcp_servers.web.enabled']).to.equal(false)
      expect(result['mcp_servers.agents.enabled']).to.equal(false)
    })

    it('disables every server for an empty list', () => {
      const result = overrides(codexExecArgs(policy, {...context, configServers}, []))
      expect(result['mcp_servers.docs.enabled']).to.equal(false)
      expect(result['mcp_servers.git.enabled']).to.equal(false)
      expect(result['mcp_servers.web.enabled']).to.equal(false)
    })

    const refusals: Array<[string, string]> = [
      ['docs.write', 'allows only docs.search, docs.read'],
      ['git.push', 'disables this tool'],
      ['nosuch', 'no MCP server "nosuch"'],
      ['agents', 'disabled for this agent'],
      ['docs.', 'is empty'],
    ]
    for (const [name, reason] of refusals) {
      it(`refuses "${name}" as something the policy does not allow or cannot enforce`, () => {
        expect(() => codexExecArgs(policy, {...context, configServers}, [name]))
          .to.throw(BadInputError, reason)
          .with.property('message')
          .that.contains('docs, git, web')
      })
    }

    it('with an empty policy, narrows among the home config servers', () => {
      const result = overrides(codexExecArgs(EMPTY_POLICY, {...context, configServers}, ['web']))
      expect(result).not.to.have.property('mcp_servers.web.enabled')
      expect(() => codexExecArgs(EMPTY_POLICY, context, ['web'])).to.throw(BadInputError, 'no MCP servers to choose from')
    })
  })
})
