import {expect} from 'chai'

import {PolicyError, agentPolicyOf} from '../../../src/codex/policy.js'

describe('agent policy', () => {
  it('reads sandbox, model, effort, instructions, servers and other keys', () => {
    const policy = agentPolicyOf({
      name: 'n',
      description: 'd',
      sandbox_mode: 'workspace-write',
      model: 'm',
      model_reasoning_effort: 'low',
      developer_instructions: 'i',
      mcp_servers: {docs: {command: 'docs', disabled_tools: ['x']}},
      tools: {web_search: true},
    })
    expect(policy).to.deep.include({sandboxMode: 'workspace-write', model: 'm', reasoningEffort: 'low', developerInstructions: 'i'})
    expect(Object.keys(policy.mcpServers)).to.deep.equal(['docs'])
    expect(policy.otherConfig).to.deep.equal([{key: 'tools.web_search', value: true}])
  })

  const refused: Array<[string, Record<string, unknown>, string]> = [
    ['an unknown sandbox mode', {sandbox_mode: 'readonly'}, 'sandbox_mode = "readonly" is not one of'],
    ['a model that is not a string', {model: 5}, 'model must be a string'],
    ['instructions given as a list', {developer_instructions: ['a']}, 'developer_instructions must be a string, not a list'],
    ['mcp_servers that is not a table', {mcp_servers: 'docs'}, 'mcp_servers must be a table'],
    ['a server name with a dot', {mcp_servers: {'a.b': {command: 'x'}}}, 'cannot be passed to codex exec'],
    ['enabled_tools that is not a list of names', {mcp_servers: {docs: {enabled_tools: 'search'}}}, 'enabled_tools must be a list'],
    ['a config key Codex overrides cannot express', {features: {'odd key': true}}, 'features.odd key'],
  ]
  for (const [what, config, message] of refused) {
    it(`refuses ${what}, so a typo never widens what the agent may do`, () => {
      expect(() => agentPolicyOf(config)).to.throw(PolicyError, message)
    })
  }

  it('refuses a model that codex exec would read as a flag or that no argument can carry, and keeps one with inner dashes', () => {
    expect(() => agentPolicyOf({model: '--dangerously-bypass-approvals-and-sandbox'})).to.throw(PolicyError, 'starts with "-"')
    expect(() => agentPolicyOf({model: '-x'})).to.throw(PolicyError, 'starts with "-"')
    expect(() => agentPolicyOf({model: 'gpt\0x'})).to.throw(PolicyError, 'model = "gpt\\u0000x" holds a NUL character')
    expect(agentPolicyOf({model: 'gpt-5-codex'}).model).to.equal('gpt-5-codex')
  })
})
