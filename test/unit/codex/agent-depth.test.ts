import {expect} from 'chai'
import path from 'node:path'

import {AGENT_DEPTH_ENV, detectAgentDepth, isTooDeep} from '../../../src/codex/agent-depth.js'
import {codexExecArgs} from '../../../src/codex/codex-argv.js'
import {EMPTY_POLICY} from '../../../src/codex/policy.js'
import {tempDir, writeTree} from '../../helpers/codex-fixtures.js'

describe('agent depth', () => {
  let dir: string
  let remove: () => Promise<void>
  beforeEach(async () => ({dir, remove} = await tempDir('ak-depth-')))
  afterEach(() => remove())

  /** A fake /proc: process `pid` with parent `ppid`, command name and environment. */
  const proc = (pid: number, ppid: number, comm: string, environ: string[]) =>
    writeTree(dir, {
      [`${pid}/stat`]: `${pid} (${comm}) S ${ppid} ${pid} ${pid} 0 -1 4194560\n`,
      [`${pid}/comm`]: `${comm}\n`,
      [`${pid}/environ`]: environ.map((entry) => `${entry}\0`).join(''),
    })

  it('is 0 for a runtime with no marker in its environment or its ancestors', async () => {
    await proc(30, 20, 'node', ['HOME=/root'])
    await proc(20, 1, 'bash', ['PATH=/bin'])
    expect(await detectAgentDepth({}, 30, dir)).to.deep.equal({depth: 0})
  })

  it('reads the marker from its own environment', async () => {
    await proc(30, 1, 'node', [])
    const depth = await detectAgentDepth({[AGENT_DEPTH_ENV]: '1'}, 30, dir)
    expect(depth).to.deep.equal({depth: 1, source: 'its environment'})
    expect(isTooDeep(depth)).to.equal(true)
  })

  it('finds the marker in an ancestor, naming it, past ancestors that hold none and ones that cannot be read', async () => {
    await proc(40, 30, 'node', ['HOME=/root'])
    await proc(30, 25, 'python3 (x) y', ['A=1'])
    await writeTree(dir, {'25/stat': '25 (sh) S 20 1 1 0\n'}) // no environ: cannot be read
    await proc(20, 10, 'codex', [`${AGENT_DEPTH_ENV}=1`, 'B=2'])
    await proc(10, 1, 'node', [])
    expect(await detectAgentDepth({}, 40, dir)).to.deep.equal({depth: 1, source: `the environment of its ancestor process 20 (codex)`})
  })

  it('counts a marker that is not a positive number as depth 1, so a mangled one still bounds the depth', async () => {
    await proc(30, 1, 'node', [])
    expect((await detectAgentDepth({[AGENT_DEPTH_ENV]: 'yes'}, 30, dir)).depth).to.equal(1)
    expect((await detectAgentDepth({[AGENT_DEPTH_ENV]: ''}, 30, dir)).depth).to.equal(0)
  })

  it('works without /proc (macOS): the environment alone', async () => {
    expect(await detectAgentDepth({[AGENT_DEPTH_ENV]: '2'}, 30, path.join(dir, 'nothing'))).to.deep.equal({depth: 2, source: 'its environment'})
  })

  it('passes the marker to every stdio MCP server of a dispatched run, and to no HTTP one', () => {
    const args = codexExecArgs(EMPTY_POLICY, {
      cwd: '/w',
      isInsideGitRepo: true,
      depthMarker: {name: AGENT_DEPTH_ENV, value: '1'},
      configServers: {docs: {command: 'docs-mcp'}, web: {url: 'http://127.0.0.1:9/mcp'}, off: {command: 'x', enabled: false}},
    })
    expect(args).to.include.members([`mcp_servers.docs.env.${AGENT_DEPTH_ENV}="1"`, `mcp_servers.off.env.${AGENT_DEPTH_ENV}="1"`])
    expect(args.join(' ')).not.to.contain('mcp_servers.web.env')
  })
})
