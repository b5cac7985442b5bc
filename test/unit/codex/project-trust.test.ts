import {expect} from 'chai'
import {mkdir, symlink} from 'node:fs/promises'
import path from 'node:path'

import {projectTrustOf} from '../../../src/codex/project-trust.js'
import {tempDir} from '../../helpers/codex-fixtures.js'

/** A parsed config.toml with a `[projects."<folder>"]` entry per folder. */
const config = (entries: Record<string, string>) => ({
  projects: Object.fromEntries(Object.entries(entries).map(([folder, level]) => [folder, {trust_level: level}])),
})

describe('projectTrustOf', () => {
  let root: string
  let remove: () => Promise<void>
  let repo: string
  let project: string

  beforeEach(async () => {
    ;({dir: root, remove} = await tempDir('ak-trust-'))
    repo = path.join(root, 'repo')
    project = path.join(repo, 'packages', 'app')
    await mkdir(path.join(repo, '.git'), {recursive: true})
    await mkdir(project, {recursive: true})
  })
  afterEach(() => remove())

  it('trusts a project whose own folder is trusted, naming its repository root', async () => {
    expect(await projectTrustOf(config({[project]: 'trusted'}), project)).to.deep.equal({projectDir: project, repoRoot: repo, level: 'trusted'})
  })

  it('trusts a project through its repository root', async () => {
    expect((await projectTrustOf(config({[repo]: 'trusted'}), project)).level).to.equal('trusted')
  })

  it('trusts a project when either its folder or its repository root is trusted and the other is marked untrusted', async () => {
    expect((await projectTrustOf(config({[project]: 'untrusted', [repo]: 'trusted'}), project)).level).to.equal('trusted')
    expect((await projectTrustOf(config({[project]: 'trusted', [repo]: 'untrusted'}), project)).level).to.equal('trusted')
  })

  it('calls a project untrusted when its folder or its repository root is marked so and neither is trusted', async () => {
    expect((await projectTrustOf(config({[project]: 'untrusted'}), project)).level).to.equal('untrusted')
    expect((await projectTrustOf(config({[repo]: 'untrusted'}), project)).level).to.equal('untrusted')
  })

  it('says not-recorded when neither has an entry', async () => {
    expect((await projectTrustOf(config({[root]: 'trusted'}), project)).level).to.equal('not-recorded')
    expect((await projectTrustOf({}, project)).level).to.equal('not-recorded')
  })

  it('looks at the folder alone outside a repository', async () => {
    const loose = path.join(root, 'loose')
    await mkdir(loose)
    expect(await projectTrustOf(config({[loose]: 'untrusted'}), loose)).to.deep.equal({projectDir: loose, repoRoot: undefined, level: 'untrusted'})
    expect(await projectTrustOf({}, loose)).to.deep.equal({projectDir: loose, repoRoot: undefined, level: 'not-recorded'})
  })

  it('resolves symlinks in the project folder before looking it up', async () => {
    const link = path.join(root, 'link')
    await symlink(project, link)
    expect(await projectTrustOf(config({[project]: 'trusted'}), link)).to.deep.equal({projectDir: project, repoRoot: repo, level: 'trusted'})
  })
})
