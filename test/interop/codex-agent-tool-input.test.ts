/** The arguments of an `agent_<slug>` tool, checked by the built runtime through a real client. */
import {expect} from 'chai'
import path from 'node:path'

import {type TestClient, connectStdio} from '../helpers/clients.js'
import {standInRuns, tempDir, writeStandInCodex, writeTree} from '../helpers/codex-fixtures.js'

describe('agent_<slug> arguments named like what every object inherits', () => {
  let remove: () => Promise<void>
  let record: string
  let client: TestClient

  before(async () => {
    let dir: string
    ;({dir, remove} = await tempDir('ak-agent-input-'))
    record = path.join(dir, 'runs.jsonl')
    const codexHome = path.join(dir, 'codex-home')
    await writeTree(dir, {
      'codex-home/agents/helper.toml': 'description = "Helps."\n[mcp_servers.docs]\ncommand = "docs-mcp"\n',
      'work/README.md': 'hello\n',
    })
    await writeStandInCodex(path.join(dir, 'bin'), record)
    client = await connectStdio('v1 (2025 era)', ['codex-agent-runtime', 'serve', '--codex-home', codexHome, '--plugin-root', path.join(dir, 'plugins')], {
      cwd: path.join(dir, 'work'),
      env: {PATH: `${path.join(dir, 'bin')}${path.delimiter}${process.env.PATH}`},
    })
  })
  after(async () => {
    await client?.close()
    await remove?.()
  })

  for (const name of ['__proto__', 'constructor.x', 'toString', 'hasOwnProperty.y']) {
    it(`refuses tools: ["${name}"] as a server the agent does not have, without running codex`, async () => {
      const server = name.split('.')[0]
      const answer = await client.call('agent_helper', {prompt: 'help', tools: [name]})
      expect(answer).to.deep.include({
        isError: true,
        text: `The tools argument cannot be honoured: "${name}": no MCP server "${server}" is configured for this agent. Name servers as <server> or <server>.<tool> among: docs; or leave tools out.`,
      })
      expect(await standInRuns(record)).to.deep.equal([])
    })
  }

  it('refuses a "__proto__" argument like any other unknown argument, without running codex', async () => {
    const answer = await client.call('agent_helper', JSON.parse('{"prompt": "help", "__proto__": {"tools": []}}') as Record<string, unknown>)
    expect(answer).to.deep.include({isError: true, text: 'agent_helper has no argument "__proto__", so the call did nothing. Its arguments are: prompt, tools.'})
    expect(await standInRuns(record)).to.deep.equal([])
  })
})
