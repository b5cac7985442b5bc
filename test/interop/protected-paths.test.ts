import {expect} from 'chai'
import {execFile} from 'node:child_process'
import {link, mkdir, mkdtemp, readFile, readdir, realpath, rename, rm, stat, symlink, writeFile} from 'node:fs/promises'
import {tmpdir} from 'node:os'
import path from 'node:path'
import {setTimeout as delay} from 'node:timers/promises'
import {promisify} from 'node:util'

import {checkSandbox} from '../../src/exec/terminal/sandbox.js'
import {RUN_JS, type TestClient, connectStdio} from '../helpers/clients.js'
import {type ServerFiles, serverFilesOrSkip, skipBecause, skipUnlessRoot} from '../helpers/processes.js'

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
    ['mise.toml', '[hooks]\nenter = "touch /tmp/x"\n'],
    ['.exrc', '!touch /tmp/x\n'],
    ['.helix/languages.toml', '[language-server.x]\ncommand = "sh"\n'],
    ['opencode.json', '{"mcp": {"x": {"type": "local", "command": ["sh", "-c", "touch /tmp/x"]}}}\n'],
    ['.windsurf/hooks.json', '{}\n'],
    ['.continue/config.yaml', 'mcpServers: []\n'],
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

  it('refuses the config and hooks of the git folder a .git file points at, by a relative or an absolute gitdir', async () => {
    await git(ws, 'init', '-q', `--separate-git-dir=${path.join(ws, 'gitstore')}`, 'linked')
    await mkdir(path.join(ws, 'linked2'))
    await writeFile(path.join(ws, 'linked2', '.git'), 'gitdir: ../gitstore\n')
    expect(await readFile(path.join(ws, 'linked', '.git'), 'utf8')).to.include(path.join(ws, 'gitstore'))
    const before = await readFile(path.join(ws, 'gitstore', 'config'), 'utf8')
    const text = await refused({path: 'gitstore/config', old_text: '[core]', new_text: `[core]\n\tfsmonitor = "touch ${marker}; false"`})
    expect(text).to.include('gitstore/config')
    await refused({path: 'gitstore/hooks/pre-commit', old_text: '', new_text: `#!/bin/sh\ntouch ${marker}\n`})
    await refused({path: 'gitstore/commondir', old_text: '', new_text: '../.git\n'})
    expect(await readFile(path.join(ws, 'gitstore', 'config'), 'utf8')).to.equal(before)
    expect(await exists(path.join(ws, 'gitstore', 'hooks', 'pre-commit'))).to.equal(false)
    await git(path.join(ws, 'linked'), 'status', '--porcelain')
    await git(path.join(ws, 'linked2'), 'status', '--porcelain')
    expect(await exists(marker), 'git status ran the planted fsmonitor').to.equal(false)
  })

  it('refuses to make a folder a git directory (HEAD outside .git), and the control entries of a folder holding HEAD', async () => {
    // The attacker's calls: a bare repository in a subfolder, whose config runs at git status there.
    const created = async (file: string, content: string) => {
      const answer = await client.call('edit', {path: file, old_text: '', new_text: content})
      expect(answer.isError, answer.text).to.equal(false)
    }
    await created('bare/objects/x', 'x\n')
    await created('bare/refs/x', 'x\n')
    await created('bare/config', `[core]\n\tworktree = ${path.join(ws, 'bare')}\n\tfsmonitor = "touch ${marker}; echo"\n`)
    const text = await refused({path: 'bare/HEAD', old_text: '', new_text: 'ref: refs/heads/main\n'})
    expect(text).to.include('HEAD')
    await refused({path: 'HEAD', old_text: '', new_text: 'ref: refs/heads/main\n'})
    await git(path.join(ws, 'bare'), 'status', '--porcelain')
    expect(await exists(marker), 'git status ran the planted fsmonitor').to.equal(false)
    // A bare repository already in the workspace: its config and hooks, like .git's.
    await git(ws, 'init', '-q', '--bare', 'bare.git')
    await refused({path: 'bare.git/config', old_text: '[core]', new_text: '[core]\n\tpager = evil'})
    await refused({path: 'bare.git/hooks/post-update', old_text: '', new_text: '#!/bin/sh\n'})
    await refused({path: 'bare.git/HEAD', old_text: 'ref:', new_text: 'ref: '})
  })

  it('refuses the hooks in the folder core.hooksPath names, existing or not, and nothing else there', async () => {
    await git(ws, 'config', 'core.hooksPath', '.githooks')
    try {
      const text = await refused({path: '.githooks/pre-commit', old_text: '', new_text: `#!/bin/sh\ntouch ${marker}\n`})
      expect(text).to.include('core.hooksPath')
      await mkdir(path.join(ws, '.githooks'))
      await writeFile(path.join(ws, '.githooks', 'post-checkout'), '#!/bin/sh\n')
      await refused({path: '.githooks/post-checkout', old_text: '#!/bin/sh', new_text: `#!/bin/sh\ntouch ${marker}`})
      await refused({path: '.githooks/pre-commit', old_text: '', new_text: `#!/bin/sh\ntouch ${marker}\n`})
      const other = await client.call('edit', {path: 'githooks-notes.md', old_text: '', new_text: 'x\n'})
      expect(other.isError, other.text).to.equal(false)
    } finally {
      await git(ws, 'config', '--unset', 'core.hooksPath')
    }
  })

  it('edits a hard link to .git/config as its own copy, leaving .git/config as it was', async () => {

    const config = path.join(ws, '.git', 'config')
    const before = await readFile(config, 'utf8')
    await link(config, path.join(ws, 'config-copy'))
    const answer = await client.call('edit', {path: 'config-copy', old_text: '[core]', new_text: '[core]\n\tfsmonitor = evil'})
    expect(answer.isError, answer.text).to.equal(false)
    expect(await readFile(config, 'utf8')).to.equal(before)
    // The same for a hook, in both forms of edit: the other name gets its own copy.
    const hook = path.join(ws, '.git', 'hooks', 'post-merge')
    await writeFile(hook, '#!/bin/sh\n', {mode: 0o755})
    await link(hook, path.join(ws, 'hook-copy'))
    const patched = await client.call('edit', {patch: ['*** Begin Patch', '*** Update File: hook-copy', '@@', ' #!/bin/sh', `+touch ${marker}`, '*** End Patch'].join('\n')})
    expect(patched.isError, patched.text).to.equal(false)
    const edited = await client.call('edit', {path: 'hook-copy', old_text: '#!/bin/sh', new_text: '#!/bin/bash'})
    expect(edited.isError, edited.text).to.equal(false)
    expect(await readFile(hook, 'utf8')).to.equal('#!/bin/sh\n')
    expect(await readFile(path.join(ws, 'hook-copy'), 'utf8')).to.equal(`#!/bin/bash\ntouch ${marker}\n`)
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

/** Where bubblewrap can run here; the sandbox tests are skipped, saying why, where it cannot. */
const SANDBOX = await checkSandbox({mode: 'workspace-write', network: false}, {workspace: tmpdir()})
const UNPRIVILEGED_UID = 65534

/**
 * DESIGN §4.9, issue 32 item 3: a sandboxed command writes the project and commits it, but cannot
 * write what git, an editor or an agent runs later outside the sandbox.
 */
for (const user of ['root', 'an unprivileged user'] as const) {
  describe(`protected paths in the workspace-write sandbox, server run as ${user}`, function () {
    this.timeout(180_000)
    let base: string
    let ws: string
    let home: string
    let marker: string
    let client: TestClient
    const runAs = user === 'root' ? undefined : ['setpriv', `--reuid=${UNPRIVILEGED_UID}`, `--regid=${UNPRIVILEGED_UID}`, '--clear-groups']
    let files: ServerFiles | undefined

    /** Runs `cmd` in the sandbox and answers with its exit code and output. */
    const run = async (cmd: string) => {
      const answer = await client.call('exec_command', {cmd, yield_time_ms: 30_000})
      expect(answer.isError, answer.text).to.equal(false)
      const structured = answer.structured as {exit_code: number | 'running'; text: string}
      return {code: structured.exit_code, text: structured.text}
    }
    /** Runs `cmd`, which must fail, and answers with its output. */
    const fails = async (cmd: string) => {
      const {code, text} = await run(cmd)
      expect(code, `${cmd} should fail: ${text}`).to.not.equal(0)
      return text
    }

    before(async function () {
      if (!SANDBOX.ok) skipBecause(this, `${SANDBOX.reason}; ${SANDBOX.fix}`)
      if (user !== 'root') {
        skipUnlessRoot(this, 'serve as another user')
        files = serverFilesOrSkip(this, UNPRIVILEGED_UID)
      } else if (process.getuid?.() !== 0) skipBecause(this, 'the tests run as a user, not root')
      // Outside /tmp, which the sandbox replaces with its own.
      base = await realpath(await mkdtemp(path.join('/var/tmp', 'ak-protected-sandbox-')))
      ws = path.join(base, 'ws')
      home = path.join(base, 'home')
      marker = path.join(base, 'ran')
      await mkdir(path.join(ws, 'vendor', 'lib'), {recursive: true})
      await mkdir(home)
      await git(ws, 'init', '-q')
      await git(path.join(ws, 'vendor', 'lib'), 'init', '-q')
      await writeFile(path.join(ws, 'README.md'), 'hello\n')
      if (runAs) await execFileAsync('chown', ['-R', `${UNPRIVILEGED_UID}:${UNPRIVILEGED_UID}`, base])
      client = await connectStdio(
        'v2 (2026-07-28)',
        ['exec', 'serve', '--workspace', ws, '--level', 'terminal', '--sandbox', 'workspace-write', '--quiet'],
        {env: {HOME: home, SHELL: '/bin/bash', GIT_CONFIG_NOSYSTEM: '1'}, runAs, ...(files ? {node: files.node, entry: files.runJs} : {})},
      )
    })

    after(async () => {
      await client?.close()
      if (base) await rm(base, {recursive: true, force: true})
    })

    it('lets git add and git commit an ordinary file', async () => {
      const {code, text} = await run('echo change >> README.md && git add README.md && git -c user.name=a -c user.email=a@example.com commit -qm change && git log --oneline | wc -l')
      expect(code, text).to.equal(0)
      expect(text.trim()).to.equal('1')
      expect(await git(ws, '-c', 'safe.directory=*', 'log', '--format=%s')).to.equal('change\n')
    })

    it('refuses git config and a hook, and the next git status runs nothing', async () => {
      const config = await readFile(path.join(ws, '.git', 'config'), 'utf8')
      await fails(`git config core.fsmonitor "touch ${marker}; false"`)
      await fails(`printf '#!/bin/sh\\ntouch ${marker}\\n' > .git/hooks/pre-commit && chmod +x .git/hooks/pre-commit`)
      await fails(`echo "[core]" >> .git/config`)
      await fails(`echo /elsewhere > .git/commondir && cat .git/commondir | grep -q elsewhere`)
      await fails('mv .git/hooks .git/old-hooks')
      await fails('mv .git git-moved')
      expect(await readFile(path.join(ws, '.git', 'config'), 'utf8')).to.equal(config)
      expect(await exists(path.join(ws, '.git', 'hooks', 'pre-commit'))).to.equal(false)
      await git(ws, '-c', 'safe.directory=*', 'status', '--porcelain')
      await git(ws, '-c', 'safe.directory=*', '-c', 'user.name=a', '-c', 'user.email=a@example.com', 'commit', '-q', '--allow-empty', '-m', 'host')
      expect(await exists(marker), 'a git command on the host ran what the sandbox planted').to.equal(false)
    })

    for (const file of ['.codex/agents/evil.toml', '.codex/config.toml', '.claude/settings.json', '.mcp.json', '.vscode/tasks.json', '.envrc']) {
      it(`refuses to plant ${file}, and leaves no placeholder behind`, async () => {
        const text = await fails(`mkdir -p "$(dirname ${file})" && echo planted > ${file}`)
        expect(text).to.match(/Read-only file system|Permission denied|Device or resource busy/)
        // The placeholder that held the name is removed once the command's sandbox is gone.
        const top = path.join(ws, file.split('/')[0]!)
        for (let waited = 0; waited < 10_000 && (await exists(top)); waited += 100) await delay(100)
        expect(await exists(top), `${file} on the host`).to.equal(false)
      })
    }

    it('protects a nested repository, also through a symlinked folder and a renamed parent', async () => {
      await fails('git -C vendor/lib config core.pager "touch /x"')
      await fails('echo x > vendor/lib/.git/hooks/post-checkout')
      await symlink('vendor/lib', path.join(ws, 'lib-link'))
      await fails('echo x > lib-link/.git/hooks/post-checkout')
      // The bind holds the object: renaming a parent carries it along, still read-only.
      const {code, text} = await run('mv vendor third-party && echo "[core]" >> third-party/lib/.git/config; echo "exit=$?"')
      expect(code, text).to.equal(0)
      expect(text).to.include('exit=1').and.to.include('Read-only file system')
      expect(await exists(path.join(ws, 'vendor', 'lib', '.git', 'hooks', 'post-checkout'))).to.equal(false)
    })

    /** Every file below `folder`, relative to it (none when it does not exist). */
    const filesBelow = async (folder: string): Promise<string[]> => {
      const entries = await readdir(folder, {recursive: true, withFileTypes: true}).catch(() => [])
      return entries.filter((entry) => !entry.isDirectory()).map((entry) => path.relative(folder, path.join(entry.parentPath, entry.name)))
    }
    const quarantined = () => filesBelow(path.join(home, '.local', 'state', 'ak', 'quarantine'))
    /** The host's git commands a user runs after the session, in `folder`; failures are fine, running a planted program is not. */
    const hostGit = async (folder: string) => {
      for (const args of [['status', '--porcelain'], ['diff'], ['-c', 'user.name=a', '-c', 'user.email=a@example.com', 'commit', '-q', '--allow-empty', '-m', 'host']]) {
        await git(folder, '-c', 'safe.directory=*', ...args).catch(() => undefined)
      }
    }

    it('neutralises a new nested repository the command adds to the index: git status at the root runs nothing', async () => {
      const {code, text} = await run(
        `git init -q n && git -C n config core.fsmonitor "touch ${marker}; false" && git -C n config alias.st "!touch ${marker}" && ` +
          `git -C n config remote.origin.url https://example.com/n.git && git -C n -c user.name=a -c user.email=a@example.com commit -q --allow-empty -m n && ` +
          `printf '#!/bin/sh\ntouch ${marker}\n' > n/.git/hooks/pre-commit && chmod +x n/.git/hooks/pre-commit && git add n && echo done`,
      )
      expect(code, text).to.equal(0)
      expect(text).to.include('n/.git/config').and.to.include('core.fsmonitor').and.to.include('n/.git/hooks/pre-commit')
      const config = await readFile(path.join(ws, 'n', '.git', 'config'), 'utf8')
      expect(config).to.not.include('fsmonitor').and.to.not.include('touch')
      // What git init and clone write is kept, so the repository still works.
      expect(config).to.include('https://example.com/n.git').and.to.include('repositoryformatversion')
      expect(await exists(path.join(ws, 'n', '.git', 'hooks', 'pre-commit'))).to.equal(false)
      expect(await exists(path.join(ws, 'n', '.git', 'hooks', 'pre-commit.sample'))).to.equal(true)
      const kept = await quarantined()
      expect(kept.some((file) => file.endsWith(path.join('n', '.git', 'config'))), kept.join(', ')).to.equal(true)
      expect(kept.some((file) => file.endsWith(path.join('n', '.git', 'hooks', 'pre-commit'))), kept.join(', ')).to.equal(true)
      await hostGit(ws)
      await hostGit(path.join(ws, 'n'))
      await git(path.join(ws, 'n'), '-c', 'safe.directory=*', 'log', '--oneline')
      expect(await exists(marker), 'a git command on the host ran what the sandbox planted').to.equal(false)
    })

    it('finds a new repository the command adds to the index where the walk does not go (node_modules)', async () => {
      const {code, text} = await run(
        `git init -q node_modules/x && git -C node_modules/x config core.fsmonitor "touch ${marker}; false" && ` +
          'git -C node_modules/x -c user.name=a -c user.email=a@example.com commit -q --allow-empty -m x && git add -f node_modules/x && echo done',
      )
      expect(code, text).to.equal(0)
      expect(text).to.include('node_modules/x/.git/config').and.to.include('core.fsmonitor')
      await hostGit(ws)
      expect(await exists(marker), 'a git command on the host ran what the sandbox planted').to.equal(false)
    })

    it('finds a new repository added to a split index, whose gitlink lives in the shared index file only', async () => {
      const {code, text} = await run(
        `git init -q node_modules/y && git -C node_modules/y config core.fsmonitor "touch ${marker}; false" && ` +
          'git -C node_modules/y -c user.name=a -c user.email=a@example.com commit -q --allow-empty -m y && ' +
          'git update-index --split-index --add --cacheinfo 160000,$(git -C node_modules/y rev-parse HEAD),node_modules/y && ls .git | grep -c sharedindex',
      )
      expect(code, text).to.equal(0)
      expect(text).to.include('node_modules/y/.git/config').and.to.include('core.fsmonitor')
      await hostGit(ws)
      expect(await exists(marker), 'a git command on the host ran what the sandbox planted').to.equal(false)
    })

    it('neutralises a new bare repository made to work on the folder around it', async () => {
      const {code, text} = await run(
        `git init -q --bare b && git -C b config core.bare false && git -C b config core.worktree .. && git -C b config core.fsmonitor "touch ${marker}; false" && echo done`,
      )
      expect(code, text).to.equal(0)
      expect(text).to.include('b/config').and.to.include('core.worktree')
      const config = await readFile(path.join(ws, 'b', 'config'), 'utf8')
      expect(config).to.not.include('fsmonitor').and.to.not.include('worktree')
      await hostGit(path.join(ws, 'b'))
      expect(await exists(marker), 'a git command on the host ran what the sandbox planted').to.equal(false)
    })

    it('moves new protected names out of the workspace, and says where', async () => {
      const {code, text} = await run('mkdir -p sub/deep sub2/.vscode && printf "touch /tmp/x" > sub/deep/.envrc && echo {} > sub2/.vscode/tasks.json && echo done')
      expect(code, text).to.equal(0)
      expect(text).to.include('sub/deep/.envrc').and.to.include('sub2/.vscode').and.to.include('direnv')
      expect(await exists(path.join(ws, 'sub', 'deep', '.envrc'))).to.equal(false)
      expect(await exists(path.join(ws, 'sub2', '.vscode'))).to.equal(false)
      expect(await exists(path.join(ws, 'sub', 'deep')), 'the ordinary folders stay').to.equal(true)
      const kept = await quarantined()
      expect(kept.some((file) => file.endsWith(path.join('sub', 'deep', '.envrc'))), kept.join(', ')).to.equal(true)
      expect(kept.some((file) => file.endsWith(path.join('sub2', '.vscode', 'tasks.json'))), kept.join(', ')).to.equal(true)
    })

    it('leaves a plain git init and its commits untouched, and says nothing', async () => {
      const {code, text} = await run('git init -q plain && cd plain && echo x > a && git add a && git -c user.name=a -c user.email=a@example.com commit -qm a && echo done')
      expect(code, text).to.equal(0)
      expect(text.trim()).to.equal('done')
      const config = await readFile(path.join(ws, 'plain', '.git', 'config'), 'utf8')
      expect(config).to.include('[core]').and.to.include('repositoryformatversion')
      expect(await git(path.join(ws, 'plain'), '-c', 'safe.directory=*', 'log', '--format=%s')).to.equal('a\n')
      const again = await run('cd plain && git -c user.name=a -c user.email=a@example.com commit -q --allow-empty -m b && git log --oneline | wc -l')
      expect(again.text.trim()).to.equal('2')
      expect(await readFile(path.join(ws, 'plain', '.git', 'config'), 'utf8')).to.equal(config)
    })

    it('checks while a command runs, at each answer', async () => {
      const started = await client.call('exec_command', {cmd: `git init -q live && git -C live config core.pager "touch ${marker}"; echo planted; sleep 60`, yield_time_ms: 3000})
      const answer = started.structured as {exit_code: number | 'running'; session_id: string; text: string}
      expect(answer.exit_code, started.text).to.equal('running')
      expect(answer.text).to.include('live/.git/config').and.to.include('core.pager')
      expect(await readFile(path.join(ws, 'live', '.git', 'config'), 'utf8')).to.not.include('pager')
      const stopped = await client.call('write_stdin', {session_id: answer.session_id, chars: '\u0003', yield_time_ms: 10_000})
      expect((stopped.structured as {exit_code: number | 'running'}).exit_code, stopped.text).to.not.equal('running')
      await hostGit(path.join(ws, 'live'))
      expect(await exists(marker)).to.equal(false)
    })

    it('refuses to run while a protected file has another name (a hard link), naming it and how to fix it', async () => {
      const hook = path.join(ws, '.git', 'hooks', 'post-merge')
      await writeFile(hook, '#!/bin/sh\n', {mode: 0o755})
      await mkdir(path.join(ws, 'notes'), {recursive: true})
      await link(hook, path.join(ws, 'notes', 'x'))
      if (runAs) await execFileAsync('chown', ['-R', `${UNPRIVILEGED_UID}:${UNPRIVILEGED_UID}`, ws])
      const answer = await client.call('exec_command', {cmd: `echo "touch ${marker}" >> notes/x`, yield_time_ms: 30_000})
      expect(answer.isError, answer.text).to.equal(true)
      expect(answer.text).to.include('.git/hooks/post-merge').and.to.include('hard link').and.to.include('--allow-protected')
      expect(await readFile(hook, 'utf8')).to.equal('#!/bin/sh\n')
      // A protected file itself, not in a protected folder.
      await rm(path.join(ws, 'notes', 'x'))
      await mkdir(path.join(ws, 'tools'), {recursive: true})
      await writeFile(path.join(ws, 'tools', '.envrc'), 'export A=1\n')
      await link(path.join(ws, 'tools', '.envrc'), path.join(ws, 'notes', 'envrc'))
      const again = await client.call('exec_command', {cmd: 'echo "touch /x" >> notes/envrc', yield_time_ms: 30_000})
      expect(again.isError, again.text).to.equal(true)
      expect(again.text).to.include('tools/.envrc')
      expect(await readFile(path.join(ws, 'tools', '.envrc'), 'utf8')).to.equal('export A=1\n')
      // Once the link is broken, commands run again; and they cannot make such a link themselves.
      await rm(path.join(ws, 'notes'), {recursive: true})
      expect((await run('echo ok')).code).to.equal(0)
      const linked = await run('for f in .git/config .git/hooks/post-merge tools/.envrc; do ln "$f" "link-${f##*/}" && echo "linked $f"; done; echo end')
      expect(linked.text).to.include('Invalid cross-device link').and.to.not.include('linked ')
    })

    it('lets a command write the project\'s other files, .gitignore and .github', async () => {
      const {code, text} = await run('mkdir -p src .github/workflows && echo x > src/a.ts && echo x > .gitignore && echo x > .github/workflows/ci.yml && echo ok')
      expect(code, text).to.equal(0)
    })
  })
}

/** Two servers sandboxing commands in one workspace share its placeholders: neither removes one the other's command still needs. */
describe('placeholders shared by two servers on one workspace', function () {
  this.timeout(120_000)
  let base: string
  let ws: string
  const servers: TestClient[] = []

  before(async function () {
    if (!SANDBOX.ok) skipBecause(this, `${SANDBOX.reason}; ${SANDBOX.fix}`)
    base = await realpath(await mkdtemp(path.join('/var/tmp', 'ak-two-servers-')))
    ws = path.join(base, 'ws')
    await mkdir(ws)
    await git(ws, 'init', '-q')
    for (let index = 0; index < 2; index++) {
      servers.push(
        await connectStdio('v2 (2026-07-28)', ['exec', 'serve', '--workspace', ws, '--level', 'terminal', '--sandbox', 'workspace-write', '--quiet'], {
          env: {HOME: base, SHELL: '/bin/bash'},
        }),
      )
    }
  })

  after(async () => {
    for (const server of servers) await server.close()
    if (base) await rm(base, {recursive: true, force: true})
  })

  it('keeps a placeholder while the other server\'s command runs, and removes it after the last', async () => {
    const [first, second] = servers as [TestClient, TestClient]
    // The first server's command holds .envrc and .vscode; it writes them once the second server's command has ended.
    const started = await first.call('exec_command', {
      cmd: 'while [ ! -e second-done ]; do sleep 0.1; done; echo "touch /x" > .envrc; mkdir -p .vscode/x; echo "exit=$?"; ls -A',
      yield_time_ms: 500,
    })
    const running = started.structured as {exit_code: number | 'running'; session_id: string}
    expect(running.exit_code, started.text).to.equal('running')
    const other = await second.call('exec_command', {cmd: 'echo second', yield_time_ms: 30_000})
    expect((other.structured as {exit_code: number}).exit_code, other.text).to.equal(0)
    // The second server let go of its placeholders; give it time to remove what it would remove.
    await delay(1000)
    await writeFile(path.join(ws, 'second-done'), '')
    const ended = await first.call('write_stdin', {session_id: running.session_id, chars: '', yield_time_ms: 30_000})
    const answer = ended.structured as {exit_code: number | 'running'; text: string}
    expect(answer.exit_code, ended.text).to.not.equal('running')
    expect(answer.text).to.include('Read-only file system').and.to.include('exit=1')
    for (let waited = 0; waited < 10_000 && (await exists(path.join(ws, '.envrc'))); waited += 100) await delay(100)
    expect(await exists(path.join(ws, '.envrc')), '.envrc on the host').to.equal(false)
    expect(await exists(path.join(ws, '.vscode')), '.vscode on the host').to.equal(false)
  })
})

/** The operator's way out: named protected paths made writable, and nothing else. */
describe('--allow-protected and createAgentExec({allowProtected})', function () {
  this.timeout(120_000)
  let base: string
  let ws: string

  before(async () => {
    base = await realpath(await mkdtemp(path.join('/var/tmp', 'ak-allow-protected-')))
    ws = path.join(base, 'ws')
    await mkdir(ws)
    await git(ws, 'init', '-q')
  })

  after(async () => {
    if (base) await rm(base, {recursive: true, force: true})
  })

  it('lets edit create and change only the named protected paths', async () => {
    const client = await connectStdio('v1 (2025 era)', ['exec', 'serve', '--workspace', ws, '--level', 'files', '--allow-protected', '.vscode/settings.json,.envrc', '--quiet'])
    try {
      const created = await client.call('edit', {path: '.vscode/settings.json', old_text: '', new_text: '{"editor.tabSize": 2}\n'})
      expect(created.isError, created.text).to.equal(false)
      const changed = await client.call('edit', {path: '.vscode/settings.json', old_text: '2', new_text: '4'})
      expect(changed.isError, changed.text).to.equal(false)
      expect((await client.call('edit', {path: '.envrc', old_text: '', new_text: 'export A=1\n'})).isError).to.equal(false)
      const tasks = await client.call('edit', {path: '.vscode/tasks.json', old_text: '', new_text: '{}\n'})
      expect(tasks.isError).to.equal(true)
      expect(tasks.text).to.include('--allow-protected .vscode')
      expect((await client.call('edit', {path: '.git/config', old_text: '[core]', new_text: '[core]\n\tpager = x'})).isError).to.equal(true)
    } finally {
      await client.close()
    }
    expect(await readFile(path.join(ws, '.vscode', 'settings.json'), 'utf8')).to.equal('{"editor.tabSize": 4}\n')
  })

  it('lets a sandboxed command write only the named protected paths', async function () {
    if (!SANDBOX.ok) skipBecause(this, `${SANDBOX.reason}; ${SANDBOX.fix}`)
    // An allowed file may have another name: commands may change it anyway.
    await link(path.join(ws, '.envrc'), path.join(ws, 'envrc-link'))
    const client = await connectStdio(
      'v2 (2026-07-28)',
      ['exec', 'serve', '--workspace', ws, '--level', 'terminal', '--sandbox', 'workspace-write', '--allow-protected', '.envrc,.vscode/settings.json', '--quiet'],
      {env: {HOME: base, SHELL: '/bin/bash'}},
    )
    try {
      const allowed = await client.call('exec_command', {cmd: 'echo "export B=2" >> .envrc && echo 8 > .vscode/settings.json && echo ok'})
      expect((allowed.structured as {exit_code: number}).exit_code, allowed.text).to.equal(0)
      const refused = await client.call('exec_command', {cmd: 'echo x > .vscode/tasks.json'})
      expect((refused.structured as {exit_code: number}).exit_code, refused.text).to.not.equal(0)
    } finally {
      await client.close()
    }
    expect(await readFile(path.join(ws, '.envrc'), 'utf8')).to.equal('export A=1\nexport B=2\n')
  })

  it('accepts a path protected only by what is on disk (the folder core.hooksPath names), and allows only it', async function () {
    await git(ws, 'config', 'core.hooksPath', '.githooks')
    try {
      const client = await connectStdio('v2 (2026-07-28)', ['exec', 'serve', '--workspace', ws, '--level', 'files', '--allow-protected', '.githooks/pre-commit', '--quiet'])
      try {
        const allowed = await client.call('edit', {path: '.githooks/pre-commit', old_text: '', new_text: '#!/bin/sh\nnpm test\n'})
        expect(allowed.isError, allowed.text).to.equal(false)
        const other = await client.call('edit', {path: '.githooks/post-checkout', old_text: '', new_text: '#!/bin/sh\n'})
        expect(other.isError, other.text).to.equal(true)
        expect(other.text).to.include('core.hooksPath')
      } finally {
        await client.close()
      }
      const {createAgentExec} = await import('../../src/exec/serving/create-agent-exec.js')
      const exec = createAgentExec({workspace: ws, allowProtected: ['.githooks']})
      await exec.ready
      await exec.close()
      // Not protected once core.hooksPath names another folder: refused as before.
      await git(ws, 'config', 'core.hooksPath', 'hooks-elsewhere')
      expect(() => createAgentExec({workspace: ws, allowProtected: ['.githooks/pre-commit']})).to.throw('is not a protected path')
    } finally {
      await git(ws, 'config', '--unset', 'core.hooksPath')
    }
  })

  it('exits 2 for a path that is not protected, in ak exec serve and createAgentExec', async () => {
    const result = await execFileAsync(process.execPath, [RUN_JS, 'exec', 'serve', '--workspace', ws, '--allow-protected', 'src/main.ts'], {encoding: 'utf8'}).then(
      () => ({code: 0, stderr: ''}),
      (error: {code: number; stderr: string}) => error,
    )
    expect(result.code).to.equal(2)
    expect(result.stderr).to.include('"src/main.ts" is not a protected path')
    const {createAgentExec} = await import('../../src/exec/serving/create-agent-exec.js')
    expect(() => createAgentExec({workspace: ws, allowProtected: ['../outside/.git/config']})).to.throw('is not a path inside the workspace')
  })

  it('passes through ak exec config into the block the client starts the server with', async () => {
    const {stdout} = await execFileAsync(process.execPath, [RUN_JS, 'exec', 'config', '--client', 'claude', '--workspace', ws, '--level', 'files', '--allow-protected', '.vscode/settings.json', '-q'])
    const server = (JSON.parse(stdout) as {mcpServers: Record<string, {args: string[]}>}).mcpServers['ak-exec']!
    expect(server.args.slice(-2)).to.deep.equal(['--allow-protected', '.vscode/settings.json'])
  })
})
