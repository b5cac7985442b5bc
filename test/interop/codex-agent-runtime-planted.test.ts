/**
 * Special files planted under the names the Codex agent runtime reads (agent files, Codex configs,
 * a worktree's `.git` file): every call still answers, naming the file, and nothing hangs.
 */
import {expect} from 'chai'
import {execFile, execFileSync} from 'node:child_process'
import {rm, symlink, writeFile} from 'node:fs/promises'
import path from 'node:path'
import {promisify} from 'node:util'

import {RUN_JS, connectStdio} from '../helpers/clients.js'
import {standInRuns, tempDir, trustConfig, writeStandInCodex, writeTree} from '../helpers/codex-fixtures.js'

const run = promisify(execFile)

/** A FIFO at `file` (nothing ever writes to it: opening it to read in the blocking way waits forever). */
function mkfifo(file: string): void {
  execFileSync('mkfifo', [file])
}

describe('ak codex-agent-runtime with special files planted under the names it reads', function () {
  let dir: string
  let remove: () => Promise<void>
  let project: string
  let codexHome: string
  let pluginRoot: string
  let record: string
  let env: Record<string, string>

  beforeEach(async () => {
    ;({dir, remove} = await tempDir('ak-planted-'))
    project = path.join(dir, 'project')
    codexHome = path.join(dir, 'codex-home')
    pluginRoot = path.join(dir, 'plugins')
    record = path.join(dir, 'runs.jsonl')
    await writeTree(project, {'.git/HEAD': '', '.codex/agents/fixer.toml': 'description = "Fixes."\nsandbox_mode = "read-only"\n'})
    await writeTree(codexHome, {'config.toml': trustConfig({[project]: 'trusted'}), 'agents/helper.toml': 'description = "Helps."\nsandbox_mode = "read-only"\n'})
    const binDir = path.join(dir, 'bin')
    await writeStandInCodex(binDir, record)
    env = {PATH: `${binDir}${path.delimiter}${process.env.PATH}`}
  })
  afterEach(() => remove?.())

  const serve = () => connectStdio('v1 (2025 era)', ['codex-agent-runtime', 'serve', '--codex-home', codexHome, '--plugin-root', pluginRoot], {cwd: project, env})

  for (const [what, make] of [
    ['a FIFO', (file: string) => mkfifo(file)],
    ['a symlink to /dev/zero', (file: string) => symlink('/dev/zero', file)],
  ] as const) {
    it(`answers a call to an agent whose file became ${what} after the server started with a tool error naming the file, without running codex`, async () => {
      const client = await serve()
      try {
        const file = path.join(codexHome, 'agents', 'helper.toml')
        await rm(file)
        await make(file)
        const answer = await client.call('agent_helper', {prompt: 'help'})
        expect(answer.isError, answer.text).to.equal(true)
        expect(answer.text).to.contain(file)
        expect(answer.text).to.match(/not a regular file/)
        expect(await standInRuns(record)).to.deep.equal([])
        // The other agents still answer.
        expect((await client.call('agent_fixer', {prompt: 'fix'})).isError).to.equal(false)
      } finally {
        await client.close()
      }
    })
  }

  it('refuses a project agent file that became a symlink after the server started, naming the file', async () => {
    const client = await serve()
    try {
      const file = path.join(project, '.codex', 'agents', 'fixer.toml')
      await writeFile(path.join(dir, 'elsewhere.toml'), 'description = "Anything goes."\n')
      await rm(file)
      await symlink(path.join(dir, 'elsewhere.toml'), file)
      const answer = await client.call('agent_fixer', {prompt: 'fix'})
      expect(answer.isError, answer.text).to.equal(true)
      expect(answer.text).to.contain(`${file} is invalid: it is a symlink, not a regular file, and symlinked agent files in the project folder are not served.`)
      expect(await standInRuns(record)).to.deep.equal([])
    } finally {
      await client.close()
    }
  })

  it("answers every call with a tool error naming a trusted project's .codex/config.toml that is a FIFO; inspect answers too", async () => {
    const config = path.join(project, '.codex', 'config.toml')
    mkfifo(config)
    const client = await serve()
    try {
      const answer = await client.call('agent_helper', {prompt: 'help'})
      expect(answer.isError, answer.text).to.equal(true)
      expect(answer.text).to.contain(`Cannot read ${config} (it is a FIFO (named pipe), not a regular file)`)
      expect(await standInRuns(record)).to.deep.equal([])
    } finally {
      await client.close()
    }
    const inspected = await run(process.execPath, [RUN_JS, 'codex-agent-runtime', 'inspect', 'helper', '--json', '--codex-home', codexHome, '--plugin-root', pluginRoot], {
      cwd: project,
      env: {...process.env, ...env},
      timeout: 30_000,
    })
    expect(JSON.parse(inspected.stdout).reason).to.contain(config)
  })

  it("skips the project, with the reason, when the Codex home's config.toml is a FIFO; list, inspect and calls answer", async () => {
    const config = path.join(codexHome, 'config.toml')
    await rm(config)
    mkfifo(config)
    const listed = await run(process.execPath, [RUN_JS, 'codex-agent-runtime', 'serve', '--list-only', '--codex-home', codexHome, '--plugin-root', pluginRoot], {
      cwd: project,
      env: {...process.env, ...env},
      timeout: 30_000,
    })
    expect(listed.stdout).to.contain(`project agents: skipped (cannot check trust: cannot read ${config} (it is a FIFO (named pipe), not a regular file))`)
    const client = await serve()
    try {
      const answer = await client.call('agent_helper', {prompt: 'help'})
      expect(answer.isError, answer.text).to.equal(true)
      expect(answer.text).to.contain(config)
    } finally {
      await client.close()
    }
  })

  it("reads a worktree's .git file that is a FIFO as no repository pointer, without hanging", async () => {
    await rm(path.join(project, '.git'), {recursive: true})
    mkfifo(path.join(project, '.git'))
    const listed = await run(process.execPath, [RUN_JS, 'codex-agent-runtime', 'serve', '--list-only', '--codex-home', codexHome, '--plugin-root', pluginRoot], {
      cwd: project,
      env: {...process.env, ...env},
      timeout: 30_000,
    })
    expect(listed.stdout).to.contain('helper')
  })
})
