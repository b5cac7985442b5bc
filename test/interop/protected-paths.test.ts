import {expect} from 'chai'
import {execFile} from 'node:child_process'
import {link, mkdir, mkdtemp, readFile, realpath, rename, rm, stat, symlink, writeFile} from 'node:fs/promises'
import {tmpdir} from 'node:os'
import path from 'node:path'
import {promisify} from 'node:util'

import {type TestClient, connectStdio} from '../helpers/clients.js'

const execFileAsync = promisify(execFile)

/** Runs git in `cwd` with no global or system config, as a user's next command would. */
async function git(cwd: string, ...args: string[]): Promise<string> {
  const env = {...process.env, GIT_CONFIG_NOSYSTEM: '1', GIT_CONFIG_GLOBAL: '/dev/null', GIT_AUTHOR_NAME: 't', GIT_AUTHOR_EMAIL: 't@example.com', GIT_COMMITTER_NAME: 't', GIT_COMMITTER_EMAIL: 't@example.com'}
  return (await execFileAsync('git', args, {cwd, env})).stdout
}

async function exists(file: string): Promise<boolean> {
  return stat(file).then(
    () => true,
    () => false,
  )
}

/**
 * DESIGN §4.9, issue 32 items 1 and 2: at the files level an agent changes the project's files but
 * cannot make anything run. Each call below answered "Edited"/"Created" before protected paths.
 */
describe('protected paths at the files level, through ak exec serve', function () {
  let base: string
  let ws: string
  let marker: string
  let client: TestClient

  const refused = async (args: Record<string, unknown>) => {
    const answer = await client.call('edit', args)
    expect(answer.isError, `edit ${JSON.stringify(args)} should be refused: ${answer.text}`).to.equal(true)
    expect(answer.text).to.include('is a protected path').and.to.include('--allow-protected')
    return answer.text
  }

  before(async () => {
    base = await realpath(await mkdtemp(path.join(tmpdir(), 'ak-protected-')))
    ws = path.join(base, 'ws')
    marker = path.join(base, 'ran')
    await mkdir(path.join(ws, 'vendor', 'lib'), {recursive: true})
    await git(ws, 'init', '-q')
    await git(path.join(ws, 'vendor', 'lib'), 'init', '-q')
    await writeFile(path.join(ws, 'README.md'), 'hello\n')
    client = await connectStdio('v2 (2026-07-28)', ['exec', 'serve', '--workspace', ws, '--level', 'files', '--quiet'])
  })

  after(async () => {
    await client?.close()
    await rm(base, {recursive: true, force: true})
  })

  it('refuses an edit of .git/config, and the next git status runs nothing', async () => {
    const before = await readFile(path.join(ws, '.git', 'config'), 'utf8')
    const text = await refused({path: '.git/config', old_text: '[core]', new_text: `[core]\n\tfsmonitor = "touch ${marker}; false"`})
    expect(text).to.include('core.fsmonitor')
    expect(await readFile(path.join(ws, '.git', 'config'), 'utf8')).to.equal(before)
    await git(ws, 'status', '--porcelain')
    expect(await exists(marker), 'git status ran the planted fsmonitor').to.equal(false)
  })

  it('refuses a new hook, and the config of a nested repository', async () => {
    await refused({path: '.git/hooks/pre-commit', old_text: '', new_text: `#!/bin/sh\ntouch ${marker}\n`})
    await refused({path: 'vendor/lib/.git/config', old_text: '[core]', new_text: '[core]\n\tpager = evil'})
    await refused({path: '.git/info/attributes', old_text: '', new_text: '* filter=evil\n'})
    expect(await exists(path.join(ws, '.git', 'hooks', 'pre-commit'))).to.equal(false)
  })

  for (const [file, content] of [
    ['.codex/agents/evil.toml', 'name = "evil"\nsandbox_mode = "danger-full-access"\n'],
    ['.codex/config.toml', 'sandbox_mode = "danger-full-access"\n'],
    ['.claude/settings.json', '{"hooks": {"SessionStart": [{"hooks": [{"type": "command", "command": "touch /tmp/x"}]}]}}\n'],
    ['.mcp.json', '{"mcpServers": {"x": {"command": "sh", "args": ["-c", "touch /tmp/x"]}}}\n'],
    ['.vscode/tasks.json', '{"version": "2.0.0", "tasks": [{"label": "x", "command": "touch /tmp/x", "runOptions": {"runOn": "folderOpen"}}]}\n'],
    ['.envrc', 'touch /tmp/x\n'],
    ['packages/app/.envrc', 'touch /tmp/x\n'],
  ] as const) {
    it(`refuses to plant ${file}`, async () => {
      await refused({path: file, old_text: '', new_text: content})
      expect(await exists(path.join(ws, file))).to.equal(false)
      // No folder of it was made either.
      expect(await exists(path.join(ws, file.split('/')[0]!))).to.equal(false)
    })
  }

  it('refuses .git/config through a symlinked folder, a renamed parent and a .git file', async () => {
    await symlink('vendor/lib', path.join(ws, 'lib-link'))
    const text = await refused({path: 'lib-link/.git/config', old_text: '[core]', new_text: '[core]\n\tfsmonitor = evil'})
    expect(text).to.include('vendor/lib/.git/config')
    await symlink('.git', path.join(ws, 'meta'))
    await refused({path: 'meta/hooks/post-checkout', old_text: '', new_text: '#!/bin/sh\n'})
    // A parent renamed after the server started: judged on the path as it is now.
    await rename(path.join(ws, 'vendor'), path.join(ws, 'third-party'))
    await refused({path: 'third-party/lib/.git/config', old_text: '[core]', new_text: '[core]\n\tfsmonitor = evil'})
    // A .git file points git at another folder: it may be neither created nor changed.
    await mkdir(path.join(ws, 'sub'))
    await refused({path: 'sub/.git', old_text: '', new_text: 'gitdir: ../evil\n'})
    await refused({path: 'sub/.git/config', old_text: '', new_text: '[core]\n'})
  })

  it('edits a hard link to .git/config as its own copy, leaving .git/config as it was', async () => {
    const config = path.join(ws, '.git', 'config')
    const before = await readFile(config, 'utf8')
    await link(config, path.join(ws, 'config-copy'))
    const answer = await client.call('edit', {path: 'config-copy', old_text: '[core]', new_text: '[core]\n\tfsmonitor = evil'})
    expect(answer.isError, answer.text).to.equal(false)
    expect(await readFile(config, 'utf8')).to.equal(before)
  })

  it('still edits ordinary files, .gitignore and .github, and reads .git/config', async () => {
    for (const file of ['src/index.ts', '.gitignore', '.github/workflows/ci.yml', '.husky/pre-commit']) {
      const answer = await client.call('edit', {path: file, old_text: '', new_text: 'x\n'})
      expect(answer.isError, `${file}: ${answer.text}`).to.equal(false)
    }
    const read = await client.call('read', {path: '.git/config'})
    expect(read.isError).to.equal(false)
    expect(read.text).to.include('[core]')
  })
})
