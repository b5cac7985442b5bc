import {expect} from 'chai'
import {execFile} from 'node:child_process'
import path from 'node:path'
import {promisify} from 'node:util'

import {discoverAgents} from '../../../src/codex/discovery.js'
import {
  DEFAULT_PROJECT_ROOT_MARKERS,
  projectRootMarkersOf,
  projectRootOf,
  projectTrustOf,
  repositoryRootForTrust,
} from '../../../src/codex/project-trust.js'
import {tempDir, trustConfig, writeTree} from '../../helpers/codex-fixtures.js'
import {parseToml} from '../../../src/codex/toml-file.js'

const run = promisify(execFile)

/** Project trust decided as Codex decides it (codex-rs/core/src/config_loader/mod.rs, decision_for_dir). */
describe('project trust as Codex decides it', () => {
  let root: string
  let remove: () => Promise<void>
  let codexHome: string

  beforeEach(async () => {
    ;({dir: root, remove} = await tempDir('ak-trust-'))
    codexHome = path.join(root, 'codex-home')
    await writeTree(root, {'home/.keep': ''})
  })
  afterEach(() => remove())

  const config = (text: string) => {
    const parsed = parseToml(text)
    if ('reason' in parsed) throw new Error(parsed.reason)
    return parsed.data
  }
  const discover = (cwd: string) => discoverAgents({codexHome, pluginRoot: path.join(root, 'plugins')}, {cwd, homeDir: path.join(root, 'home')})

  it('lets an untrusted project folder inside a trusted repository stay untrusted (the most specific entry wins)', async () => {
    const repo = path.join(root, 'repo')
    const app = path.join(repo, 'packages', 'app')
    await writeTree(repo, {'.git/HEAD': '', 'packages/app/.codex/agents/fixer.toml': ''})
    await writeTree(codexHome, {'config.toml': trustConfig({[repo]: 'trusted', [app]: 'untrusted'})})
    expect((await projectTrustOf(config(trustConfig({[repo]: 'trusted', [app]: 'untrusted'})), app)).level).to.equal('untrusted')
    const found = await discover(app)
    expect(found.project.status).to.equal('skipped')
    expect(found.project.status === 'skipped' && found.project.reason).to.contain(`${app} is marked untrusted`)
    expect(found.agents).to.deep.equal([])
  })

  it('lets a trusted project folder inside an untrusted repository be trusted', async () => {
    const repo = path.join(root, 'repo')
    const app = path.join(repo, 'app')
    await writeTree(repo, {'.git/HEAD': '', 'app/.codex/agents/fixer.toml': ''})
    await writeTree(codexHome, {'config.toml': trustConfig({[repo]: 'untrusted', [app]: 'trusted'})})
    expect((await discover(app)).project.status).to.equal('served')
  })

  it('judges a git worktree through its main repository', async () => {
    const repo = path.join(root, 'repo')
    const worktree = path.join(root, 'feature')
    await writeTree(repo, {'.codex/agents/fixer.toml': 'description = "Fixes"\n'})
    const git = (...args: string[]) => run('git', ['-c', 'user.name=t', '-c', 'user.email=t@example.com', ...args], {cwd: repo})
    await git('init', '-q')
    await git('add', '.')
    await git('commit', '-qm', 'agents')
    await git('worktree', 'add', '-q', worktree)
    await writeTree(codexHome, {'config.toml': trustConfig({[repo]: 'trusted'})})
    const trust = await projectTrustOf(config(trustConfig({[repo]: 'trusted'})), worktree)
    expect(trust).to.include({level: 'trusted', repoRoot: repo})
    const found = await discover(worktree)
    expect(found.project).to.deep.equal({status: 'served', dir: path.join(worktree, '.codex', 'agents')})
    expect(found.agents.map((agent) => agent.slug)).to.deep.equal(['fixer'])
  })

  it('says an entry without trust_level is there but sets no trust, instead of calling it untrusted', async () => {
    const repo = path.join(root, 'repo')
    const text = `[projects.${JSON.stringify(repo)}]\n# trust_level left out\n`
    await writeTree(repo, {'.git/HEAD': '', '.codex/agents/a.toml': ''})
    await writeTree(codexHome, {'config.toml': text})
    expect((await projectTrustOf(config(text), repo)).level).to.equal('not-recorded')
    const found = await discover(repo)
    const reason = found.project.status === 'skipped' ? found.project.reason : ''
    expect(reason).not.to.contain('marked untrusted')
    expect(reason).to.contain(`[projects."${repo}"] has no trust_level`)
  })

  it('reports a trust_level Codex does not accept as invalid, naming it and the accepted values, and does not serve the folder', async () => {
    const repo = path.join(root, 'repo')
    const text = `[projects.${JSON.stringify(repo)}]\ntrust_level = "Trusted"\n`
    await writeTree(repo, {'.git/HEAD': '', '.codex/agents/a.toml': ''})
    await writeTree(codexHome, {'config.toml': text})
    const trust = await projectTrustOf(config(text), repo)
    expect(trust).to.deep.include({level: 'invalid', decidedBy: repo, invalidValue: 'Trusted'})
    const found = await discover(repo)
    expect(found.project.status).to.equal('skipped')
    const reason = found.project.status === 'skipped' ? found.project.reason : ''
    expect(reason).not.to.contain('marked untrusted')
    expect(reason).to.contain(`[projects."${repo}"] has trust_level = "Trusted", which Codex does not accept (only "trusted" or "untrusted")`)
  })

  it('lets an invalid trust_level of the folder decide before a trusted repository, as the most specific entry', async () => {
    const repo = path.join(root, 'repo')
    const app = path.join(repo, 'app')
    const text = `${trustConfig({[repo]: 'trusted'})}\n[projects.${JSON.stringify(app)}]\ntrust_level = 1\n`
    await writeTree(app, {'x.txt': ''})
    await writeTree(repo, {'.git/HEAD': ''})
    expect(await projectTrustOf(config(text), app)).to.deep.include({level: 'invalid', decidedBy: app, invalidValue: 1})
  })

  it('decides outside any repository by the project root, and names it as the key to trust', async () => {
    const app = path.join(root, 'plain', 'app')
    await writeTree(app, {'x.txt': ''})
    const other = path.join(root, 'elsewhere')
    const trust = await projectTrustOf(config(trustConfig({[other]: 'trusted'})), app)
    expect(trust).to.deep.equal({projectDir: app, projectRoot: app, repoRoot: undefined, level: 'not-recorded', trustKey: app, withoutTrustLevel: []})
  })

  it('names an entry without trust_level once, though the folder is also the project and repository root', async () => {
    const repo = path.join(root, 'repo')
    await writeTree(repo, {'.git/HEAD': ''})
    const trust = await projectTrustOf(config(`[projects.${JSON.stringify(repo)}]
model = "x"
`), repo)
    expect(trust).to.deep.equal({projectDir: repo, projectRoot: repo, repoRoot: repo, level: 'not-recorded', trustKey: repo, withoutTrustLevel: [repo]})
  })

  it('takes project_root_markers when it is a list of names, else the default', () => {
    expect(projectRootMarkersOf({project_root_markers: ['.hg', 'package.json']})).to.deep.equal(['.hg', 'package.json'])
    expect(projectRootMarkersOf({project_root_markers: []})).to.deep.equal([])
    for (const markers of [undefined, '.hg', ['.hg', 1]]) {
      expect(projectRootMarkersOf({project_root_markers: markers}), JSON.stringify(markers)).to.equal(DEFAULT_PROJECT_ROOT_MARKERS)
    }
  })

  it('finds the project root at the nearest folder above holding a marker, file or folder, else the run folder', async () => {
    const top = path.join(root, 'top')
    const deep = path.join(top, 'a', 'b')
    await writeTree(top, {'package.json': '{}', 'a/b/x.txt': '', 'a/.hg/keep': ''})
    expect(await projectRootOf(deep, ['package.json'])).to.equal(top)
    expect(await projectRootOf(deep, ['.hg', 'package.json'])).to.equal(path.join(top, 'a'))
    expect(await projectRootOf(deep, ['no-such-marker'])).to.equal(deep)
    expect(await projectRootOf(deep, [])).to.equal(deep)
  })

  describe('the repository root used for trust', () => {
    it('is the nearest folder above holding a .git folder, and none outside a repository', async () => {
      const repo = path.join(root, 'repo')
      await writeTree(repo, {'.git/HEAD': '', 'src/deep/x.txt': ''})
      expect(await repositoryRootForTrust(path.join(repo, 'src', 'deep'))).to.equal(repo)
      expect(await repositoryRootForTrust(path.join(root, 'home'))).to.equal(undefined)
    })

    it("is a linked worktree's main repository, found through its .git file from a folder inside it", async () => {
      const main = path.join(root, 'main')
      const worktree = path.join(root, 'linked')
      await writeTree(main, {'.git/worktrees/linked/HEAD': ''})
      await writeTree(worktree, {'.git': `gitdir: ${path.join(main, '.git', 'worktrees', 'linked')}\n`, 'src/x.txt': ''})
      expect(await repositoryRootForTrust(path.join(worktree, 'src'))).to.equal(main)
    })

    it('is none for a .git file that points nowhere into a worktrees folder or is not a gitdir pointer', async () => {
      const elsewhere = path.join(root, 'elsewhere', 'git')
      const linked = path.join(root, 'main', '.git', 'worktrees', 'linked')
      await writeTree(elsewhere, {HEAD: ''})
      await writeTree(linked, {HEAD: ''})
      const cases = ['', 'gitdir:', 'not a pointer\n', `x gitdir: ${linked}`, `gitdir: ${elsewhere}\n`, `gitdir: ${linked}\nsecond line`]
      for (const [index, text] of cases.entries()) {
        const worktree = path.join(root, `w${index}`)
        await writeTree(worktree, {'.git': text})
        expect(await repositoryRootForTrust(worktree), JSON.stringify(text)).to.equal(undefined)
      }
    })
  })
})
