import {runCommand} from '@oclif/test'
import {expect} from 'chai'

import {EXEC_TOOLS} from '../../../../src/exec/tools/index.js'
import {LEVELS} from '../../../../src/exec/level.js'
import {toolsForLevel} from '../../../../src/exec/serving/server.js'
import {REPO_ROOT} from '../../../helpers/clients.js'

describe('ak exec tools', () => {
  for (const level of LEVELS) {
    it(`lists in JSON exactly the tools of the registry that level ${level} offers`, async () => {
      const {stdout, error} = await runCommand(['exec', 'tools', '--level', level, '--json'], {root: REPO_ROOT})
      expect(error).to.equal(undefined)
      const document = JSON.parse(stdout) as {level: string; tools: Array<{name: string; inputSchema: {type: string}}>}
      expect(document.level).to.equal(level)
      expect(document.tools.map((tool) => tool.name)).to.deep.equal(toolsForLevel(level).map((tool) => tool.name))
      for (const tool of document.tools) expect(tool.inputSchema.type).to.equal('object')
    })
  }

  it('prints each tool with its description and arguments as text', async () => {
    const {stdout} = await runCommand(['exec', 'tools'], {root: REPO_ROOT})
    expect(stdout).to.match(/^AgentExec tools at level read \(\d+\):/)
    for (const tool of toolsForLevel('read')) expect(stdout).to.contain(`\n${tool.name} — ${tool.title}`)
    expect(stdout).to.match(/path: string, optional, default "\."/)
  })

  it('covers every registered tool at the highest level', async () => {
    const {stdout} = await runCommand(['exec', 'tools', '--level', 'terminal', '--json'], {root: REPO_ROOT})
    expect(JSON.parse(stdout).tools).to.have.length(EXEC_TOOLS.length)
  })

  it('exits 2 for an unknown level', async () => {
    const {error} = await runCommand(['exec', 'tools', '--level', 'admin'], {root: REPO_ROOT})
    expect(error?.oclif?.exit).to.equal(2)
  })
})
