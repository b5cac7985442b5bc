/**
 * The recursion bound of the Codex agent runtime (DESIGN §5.2, §5.4): whatever spelling of a
 * Codex config entry starts the runtime inside a dispatched run, one agent call leads to exactly
 * one `codex exec`. Driven with a stand-in `codex` that does what Codex does with MCP servers
 * (writeRecursiveStandInCodex).
 */
import {expect} from 'chai'
import {chmod} from 'node:fs/promises'
import path from 'node:path'

import {AGENT_DEPTH_ENV} from '../../src/codex/agent-depth.js'
import {RUN_JS, connectStdio} from '../helpers/clients.js'
import {type ServerStart, recursiveRuns, tempDir, writeRecursiveStandInCodex, writeTree} from '../helpers/codex-fixtures.js'

/** Ways a Codex config entry can start this runtime; `recognised` ones are disabled in the dispatched run. */
function spellings(codexHome: string, pluginRoot: string, dir: string) {
  const node = process.execPath
  const roots = ['--codex-home', codexHome, '--plugin-root', pluginRoot]
  const toml = (value: unknown) => JSON.stringify(value)
  return {
    'oclif colon form': {recognised: true, entry: `command = ${toml(node)}\nargs = ${toml([RUN_JS, 'codex-agent-runtime:serve', ...roots])}\n`},
    'a shell variable': {
      recognised: true,
      entry: `command = "bash"\nargs = ${toml(['-c', `r=codex-agent-runtime; exec ${node} ${RUN_JS} $r serve ${roots.join(' ')}`])}\n`,
    },
    'a split shell variable': {
      recognised: false,
      entry: `command = "bash"\nargs = ${toml(['-c', `a=codex-agent; b=-runtime; exec ${node} ${RUN_JS} $a$b serve ${roots.join(' ')}`])}\n`,
    },
    'python os.execv': {
      recognised: false,
      entry: `command = "python3"\nargs = ${toml(['-c', `import os; os.execv(${toml(node)}, [${toml(node)}, ${toml(RUN_JS)}, 'codex-agent' + '-runtime', 'serve', ${roots.map((root) => toml(root)).join(', ')}])`])}\n`,
    },
    'a wrapper script': {recognised: false, entry: `command = ${toml(path.join(dir, 'wrapper.sh'))}\nargs = ["runtime"]\n`},
  }
}

async function makeFixture(start: ServerStart, only?: string) {
  const {dir, remove} = await tempDir('ak-recursion-')
  const codexHome = path.join(dir, 'codex-home')
  const pluginRoot = path.join(dir, 'plugins')
  const work = path.join(dir, 'work')
  const record = path.join(dir, 'runs.jsonl')
  const all = spellings(codexHome, pluginRoot, dir)
  const chosen = Object.entries(all).filter(([name]) => only === undefined || name === only)
  const config = chosen.map(([, {entry}], index) => `[mcp_servers.agents${index}]\n${entry}`).join('\n')
  await writeTree(dir, {
    'codex-home/config.toml': config,
    'codex-home/agents/helper.toml': 'description = "Helps."\n',
    'wrapper.sh': `#!/bin/sh\nexec ${process.execPath} ${RUN_JS} "codex-agent-$1" serve --codex-home ${codexHome} --plugin-root ${pluginRoot}\n`,
    'work/README.md': 'hello\n',
  })
  await chmod(path.join(dir, 'wrapper.sh'), 0o755)
  const binDir = path.join(dir, 'bin')
  await writeRecursiveStandInCodex(binDir, record, start)
  const env = {PATH: `${binDir}${path.delimiter}${process.env.PATH}`}
  const client = await connectStdio('v1 (2025 era)', ['codex-agent-runtime', 'serve', '--codex-home', codexHome, '--plugin-root', pluginRoot], {cwd: work, env})
  return {record, client, chosen, remove}
}

describe('ak codex-agent-runtime: agents do not start agents, whatever starts the runtime', function () {
  this.timeout(120_000)

  for (const name of Object.keys(spellings('/h', '/p', '/d'))) {
    it(`one agent call runs exactly one codex exec when a config entry starts the runtime through ${name}`, async () => {
      const {record, client, chosen, remove} = await makeFixture('as-codex', name)
      try {
        const answer = await client.call('agent_helper', {prompt: 'top-level call'})
        expect(answer, answer.text).to.deep.include({isError: false, text: 'answer: top-level call'})
      } finally {
        await client.close()
      }
      try {
        const {started, results} = await recursiveRuns(record)
        expect(started, JSON.stringify(results)).to.equal(1)
        const [run] = results
        if (chosen[0]![1].recognised) {
          expect(run!.argv).to.include('mcp_servers.agents0.enabled=false')
          expect(run!.started).to.deep.equal([])
        } else {
          // Started in the dispatched run, it lists its agents but refuses to run them, saying why.
          expect(run!.started).to.deep.equal(['agents0'])
          expect(run!.calls).to.have.length(1)
          expect(run!.calls[0]).to.deep.include({tool: 'agent_helper', isError: true})
          expect(run!.calls[0]!.text).to.match(new RegExp(`^agent_helper cannot run here: this agent runtime was started inside an agent run that ak dispatched \\(${AGENT_DEPTH_ENV}=1 in `))
          expect(run!.calls[0]!.text).to.contain('agents may not start agents (at most 1 level')
        }
      } finally {
        await remove()
      }
    })
  }

  const unrecognised = (start: ServerStart) => async () => {
    const {record, client, chosen, remove} = await makeFixture(start)
    try {
      const answer = await client.call('agent_helper', {prompt: 'top-level call'})
      expect(answer.isError, answer.text).to.equal(false)
      const {started, results} = await recursiveRuns(record)
      expect(started, JSON.stringify(results)).to.equal(1)
      const refused = results[0]!.calls
      expect(refused.map((call) => call.server)).to.deep.equal(chosen.flatMap(([, {recognised}], index) => (recognised ? [] : [`agents${index}`])))
      for (const call of refused) expect(call.isError, call.text).to.equal(true)
    } finally {
      await client.close()
      await remove()
    }
  }

  it("bounds the depth through the marker in the entry's env alone, for a server that is no descendant of the dispatched run", unrecognised('detached'))

  it('bounds the depth through the ancestors alone, for a server Codex starts without the marker (Linux /proc)', async function () {
    if (process.platform !== 'linux') {
      console.log('      (skipped: ancestors are read through /proc, on Linux only)')
      this.skip()
    }
    await unrecognised('without-entry-env')()
  })
})
