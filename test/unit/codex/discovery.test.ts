import {expect} from 'chai'
import {mkdir, symlink, writeFile} from 'node:fs/promises'
import path from 'node:path'

import {RootUnreadableError, discoverAgents} from '../../../src/codex/discovery.js'
import {tempDir, trustConfig, writeTree} from '../../helpers/codex-fixtures.js'

describe('codex agent discovery', () => {
  let root: string
  let remove: () => Promise<void>
  let codexHome: string
  let pluginRoot: string
  let homeDir: string

  beforeEach(async () => {
    ;({dir: root, remove} = await tempDir('ak-discovery-'))
    homeDir = path.join(root, 'home')
    codexHome = path.join(root, 'codex-home')
    pluginRoot = path.join(root, 'plugins')
    await mkdir(homeDir)
  })
  afterEach(() => remove())

  const discover = (cwd: string) => discoverAgents({codexHome, pluginRoot}, {cwd, homeDir})
  const slugs = async (cwd: string) => (await discover(cwd)).agents.map((agent) => agent.slug)

  describe('project agents', () => {
    it('serves the nearest .codex/agents of a project whose folder is trusted', async () => {
      const repo = path.join(root, 'repo')
      await writeTree(repo, {'.git/HEAD': '', '.codex/agents/reviewer.toml': 'description = "Reviews"\n', 'src/deep/x': ''})
      await writeTree(codexHome, {'config.toml': trustConfig({[repo]: 'trusted'})})
      const found = await discover(path.join(repo, 'src', 'deep'))
      expect(found.project).to.deep.equal({status: 'served', dir: path.join(repo, '.codex', 'agents')})
      expect(found.agents.map((agent) => [agent.slug, agent.origin.kind])).to.deep.equal([['reviewer', 'project']])
    })

    it('serves a nested project trusted only through its repository root', async () => {
      const repo = path.join(root, 'repo')
      await writeTree(repo, {'.git/HEAD': '', 'packages/app/.codex/agents/fixer.toml': '', 'packages/app/src/x': ''})
      await writeTree(codexHome, {'config.toml': trustConfig({[repo]: 'trusted'})})
      const found = await discover(path.join(repo, 'packages', 'app', 'src'))
      expect(found.project).to.deep.equal({status: 'served', dir: path.join(repo, 'packages', 'app', '.codex', 'agents')})
      expect(await slugs(path.join(repo, 'packages', 'app'))).to.deep.equal(['fixer'])
    })

    it('takes the nearest of two nested project folders', async () => {
      const repo = path.join(root, 'repo')
      await writeTree(repo, {'.git/HEAD': '', '.codex/agents/outer.toml': '', 'inner/.codex/agents/inner.toml': ''})
      await writeTree(codexHome, {'config.toml': trustConfig({[repo]: 'trusted'})})
      expect(await slugs(path.join(repo, 'inner'))).to.deep.equal(['inner'])
    })

    it('matches trust entries after resolving symlinks on both sides', async () => {
      const repo = path.join(root, 'repo')
      await writeTree(repo, {'.git/HEAD': '', '.codex/agents/a.toml': ''})
      await symlink(repo, path.join(root, 'link-to-repo'))
      await writeTree(codexHome, {'config.toml': trustConfig({[path.join(root, 'link-to-repo')]: 'trusted'})})
      expect((await discover(repo)).project.status).to.equal('served')
    })

    it('skips an untrusted project with a reason, and one that is not recorded with another', async () => {
      const repo = path.join(root, 'repo')
      await writeTree(repo, {'.git/HEAD': '', '.codex/agents/a.toml': ''})
      await writeTree(codexHome, {'config.toml': trustConfig({[repo]: 'untrusted'})})
      let found = await discover(repo)
      expect(found.project.status).to.equal('skipped')
      expect(found.project.status === 'skipped' && found.project.reason).to.contain('marked untrusted')
      expect(found.agents).to.deep.equal([])
      expect(found.notes.join('\n')).to.contain('are not served')

      await writeTree(codexHome, {'config.toml': trustConfig({[path.join(root, 'elsewhere')]: 'trusted'})})
      found = await discover(repo)
      expect(found.project.status === 'skipped' && found.project.reason).to.contain('not recorded as trusted')
    })

    it('does not trust a project through a parent folder that is neither it nor its repository root', async () => {
      const repo = path.join(root, 'work', 'repo')
      await writeTree(repo, {'.git/HEAD': '', '.codex/agents/a.toml': ''})
      await writeTree(codexHome, {'config.toml': trustConfig({[path.join(root, 'work')]: 'trusted'})})
      expect((await discover(repo)).project.status).to.equal('skipped')
    })

    it('skips the project when config.toml does not parse, quoting the line', async () => {
      const repo = path.join(root, 'repo')
      await writeTree(repo, {'.git/HEAD': '', '.codex/agents/a.toml': ''})
      await writeTree(codexHome, {'config.toml': 'model = "x"\n[projects\n'})
      const found = await discover(repo)
      expect(found.project.status === 'skipped' && found.project.reason).to.match(/does not parse \(line 2, column \d+/)
    })

    it('stops the walk at the repository root', async () => {
      await writeTree(root, {'outer/.codex/agents/outer.toml': '', 'outer/repo/.git/HEAD': '', 'outer/repo/src/x': ''})
      await writeTree(codexHome, {'config.toml': trustConfig({[path.join(root, 'outer')]: 'trusted'})})
      const found = await discover(path.join(root, 'outer', 'repo', 'src'))
      expect(found.project).to.deep.equal({status: 'none'})
    })

    it('stops the walk before the home folder', async () => {
      await writeTree(homeDir, {'.codex/agents/homey.toml': '', 'notes/x': ''})
      await writeTree(codexHome, {'config.toml': trustConfig({[homeDir]: 'trusted'})})
      const found = await discover(path.join(homeDir, 'notes'))
      expect(found.project).to.deep.equal({status: 'none'})
    })

    it('skips a symlinked .codex folder', async () => {
      const repo = path.join(root, 'repo')
      await writeTree(root, {'shared/.codex/agents/a.toml': ''})
      await writeTree(repo, {'.git/HEAD': ''})
      await symlink(path.join(root, 'shared', '.codex'), path.join(repo, '.codex'))
      await writeTree(codexHome, {'config.toml': trustConfig({[repo]: 'trusted'})})
      const found = await discover(repo)
      expect(found.project).to.deep.equal({status: 'skipped', dir: path.join(repo, '.codex', 'agents'), reason: '.codex is a symlink'})
      expect(found.agents).to.deep.equal([])
    })

    it('skips a symlinked agents folder', async () => {
      const repo = path.join(root, 'repo')
      await writeTree(root, {'shared/a.toml': ''})
      await writeTree(repo, {'.git/HEAD': '', '.codex/config.toml': ''})
      await symlink(path.join(root, 'shared'), path.join(repo, '.codex', 'agents'))
      await writeTree(codexHome, {'config.toml': trustConfig({[repo]: 'trusted'})})
      expect(await discover(repo)).to.have.deep.property('project', {status: 'skipped', dir: path.join(repo, '.codex', 'agents'), reason: 'agents is a symlink'})
    })

    it('skips an agents folder that cannot be read (a file where the folder should be)', async () => {
      const repo = path.join(root, 'repo')
      await writeTree(repo, {'.git/HEAD': '', '.codex/agents': 'not a folder'})
      await writeTree(codexHome, {'config.toml': trustConfig({[repo]: 'trusted'})})
      const found = await discover(repo)
      expect(found.project.status === 'skipped' && found.project.reason).to.contain('cannot be read')
    })

    it('ignores symlinked agent files in the project folder, and says so', async () => {
      const repo = path.join(root, 'repo')
      await writeTree(root, {'outside.toml': 'description = "outside"\n'})
      await writeTree(repo, {'.git/HEAD': '', '.codex/agents/real.toml': ''})
      await symlink(path.join(root, 'outside.toml'), path.join(repo, '.codex', 'agents', 'linked.toml'))
      await writeTree(codexHome, {'config.toml': trustConfig({[repo]: 'trusted'})})
      const found = await discover(repo)
      expect(found.agents.map((agent) => agent.slug)).to.deep.equal(['real'])
      expect(found.notes.join('\n')).to.contain('linked.toml: symlinked agent files in the project folder are not served')
    })
  })

  describe('user and kit agents', () => {
    it('follows symlinked agent files in the user folder', async () => {
      await writeTree(root, {'elsewhere/linked.toml': 'description = "linked"\n'})
      await mkdir(path.join(codexHome, 'agents'), {recursive: true})
      await symlink(path.join(root, 'elsewhere', 'linked.toml'), path.join(codexHome, 'agents', 'linked.toml'))
      const found = await discover(root)
      expect(found.agents.map((agent) => [agent.slug, agent.state.status])).to.deep.equal([['linked', 'ok']])
    })

    it('applies precedence project > user > kits in name order, and reports replacements', async () => {
      const repo = path.join(root, 'repo')
      await writeTree(repo, {'.git/HEAD': '', '.codex/agents/shared.toml': 'description = "project"\n'})
      await writeTree(codexHome, {
        'config.toml': trustConfig({[repo]: 'trusted'}),
        'agents/shared.toml': 'description = "user"\n',
        'agents/mine.toml': 'description = "user"\n',
      })
      await writeTree(pluginRoot, {
        'zeta/.codex/agents/mine.toml': 'description = "zeta"\n',
        'zeta/.codex/agents/clash.toml': 'description = "zeta"\n',
        'alpha/.codex/agents/clash.toml': 'description = "alpha"\n',
      })
      const found = await discover(repo)
      const described = found.agents.map((agent) => [agent.slug, agent.origin, agent.state.status === 'ok' && agent.state.description])
      expect(described).to.deep.equal([
        ['clash', {kind: 'kit', kit: 'alpha'}, 'alpha'],
        ['mine', {kind: 'user'}, 'user'],
        ['shared', {kind: 'project'}, 'project'],
      ])
      const notes = found.notes.join('\n')
      expect(notes).to.contain('project agent shared')
      expect(notes).to.contain('replaces the user agent')
    })

    it('ignores files whose name is not a valid slug, with a warning', async () => {
      const long = 'a'.repeat(41)
      await writeTree(codexHome, {
        'agents/Upper.toml': '',
        'agents/-dash.toml': '',
        [`agents/${long}.toml`]: '',
        [`agents/${'b'.repeat(40)}.toml`]: '',
        'agents/notes.txt': '',
      })
      const found = await discover(root)
      expect(found.agents.map((agent) => agent.slug)).to.deep.equal(['b'.repeat(40)])
      expect(found.notes.filter((note) => note.includes('must be a slug'))).to.have.length(3)
    })

    it('warns when the file names the agent differently from its slug', async () => {
      await writeTree(codexHome, {'agents/reviewer.toml': 'name = "critic"\n'})
      const found = await discover(root)
      expect(found.notes.join('\n')).to.contain('names the agent "critic", but it is served as agent_reviewer')
    })

    it('lists a file that does not parse as invalid, quoting the line of the error', async () => {
      await writeTree(codexHome, {'agents/broken.toml': 'description = "ok"\nmodel = [\n'})
      const [agent] = (await discover(root)).agents
      expect(agent?.state.status).to.equal('invalid')
      expect(agent?.state.status === 'invalid' && agent.state.reason).to.match(/line 3, column \d+/)
    })

    it('lists a file with a policy value it cannot enforce as invalid', async () => {
      await writeTree(codexHome, {'agents/typo.toml': 'sandbox_mode = "read_only"\n'})
      const [agent] = (await discover(root)).agents
      expect(agent?.state.status === 'invalid' && agent.state.reason).to.contain('sandbox_mode = "read_only"')
    })

    it('warns about an invalid file in whole sentences', async () => {
      await writeTree(codexHome, {'agents/typo.toml': 'sandbox_mode = "read_only"\n'})
      const [warning] = (await discover(root)).notes
      expect(warning).to.match(/danger-full-access\. Every call to agent_typo fails until it is fixed\.$/)
      expect(warning).not.to.contain('.;')
    })

    it('lists a file that cannot be read with the empty policy and a warning', async () => {
      await mkdir(path.join(codexHome, 'agents'), {recursive: true})
      await symlink('loop.toml', path.join(codexHome, 'agents', 'loop.toml')) // reading it fails with ELOOP
      const found = await discover(root)
      expect(found.agents.map((agent) => [agent.slug, agent.state.status])).to.deep.equal([['loop', 'unreadable']])
      expect(found.agents[0]?.state).to.have.deep.property('policy', {mcpServers: {}, otherConfig: []})
      expect(found.notes.join('\n')).to.contain('empty policy, which allows everything')
    })

    it('treats missing roots as empty', async () => {
      const found = await discover(root)
      expect(found.agents).to.deep.equal([])
      expect(found.project).to.deep.equal({status: 'none'})
    })

    it('fails when the user agents folder exists but cannot be read', async () => {
      await writeTree(codexHome, {agents: 'a file, not a folder'})
      const error = await discover(root).catch((caught: unknown) => caught)
      expect(error).to.be.instanceOf(RootUnreadableError)
      expect((error as Error).message).to.contain(path.join(codexHome, 'agents'))
    })

    it('fails when the plugin root exists but cannot be read', async () => {
      await writeFile(pluginRoot, 'a file')
      expect(await discover(root).catch((caught: unknown) => caught)).to.be.instanceOf(RootUnreadableError)
    })

    it('skips a kit whose agents folder cannot be read, with a warning, and keeps the others', async () => {
      await writeTree(pluginRoot, {'bad/.codex': 'a file', 'good/.codex/agents/ok.toml': ''})
      const found = await discover(root)
      expect(found.agents.map((agent) => agent.slug)).to.deep.equal(['ok'])
      expect(found.notes.join('\n')).to.contain('kit bad skipped')
    })
  })
})
