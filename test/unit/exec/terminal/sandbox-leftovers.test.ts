import {expect} from 'chai'
import {execFileSync, spawn} from 'node:child_process'
import {lstat, mkdir, mkdtemp, readFile, readdir, realpath, rm, stat, symlink, writeFile} from 'node:fs/promises'
import {tmpdir} from 'node:os'
import path from 'node:path'

import {AllowedProtectedPaths} from '../../../../src/exec/protected-paths.js'
import {Quarantine} from '../../../../src/exec/terminal/quarantine.js'
import {CHANGE_CLOCK_SLACK_MS, type LeftoverBaseline, describeLeftovers, neutraliseLeftovers} from '../../../../src/exec/terminal/sandbox-leftovers.js'
import {prepareProtectedMounts} from '../../../../src/exec/terminal/sandbox-protected.js'
import {compileSwapperOrSkip} from '../../../helpers/swapper.js'

const GIT_ENV = {...process.env, GIT_CONFIG_NOSYSTEM: '1', GIT_CONFIG_GLOBAL: '/dev/null'}
const exists = (file: string) => lstat(file).then(() => true, () => false)
/** How long the swapper runs, in seconds. */
const RACE_SECONDS = 4

describe('what a sandboxed command leaves behind (neutraliseLeftovers)', () => {
  let base: string
  let ws: string
  let state: string
  const at = (...parts: string[]) => path.join(ws, ...parts)
  /** The sandbox's baseline of `ws` now, as before a command (its placeholders let go of at once). */
  const baselineNow = async (): Promise<LeftoverBaseline> => {
    const mounts = await prepareProtectedMounts([ws], ws, AllowedProtectedPaths.NONE)
    await mounts.release()
    return mounts.baseline
  }

  beforeEach(async () => {
    base = await realpath(await mkdtemp(path.join(tmpdir(), 'ak-leftovers-')))
    ws = path.join(base, 'ws')
    state = path.join(base, 'state')
    await mkdir(ws)
    execFileSync('git', ['init', '-q'], {cwd: ws, env: GIT_ENV})
  })

  afterEach(async () => {
    await rm(base, {recursive: true, force: true})
  })

  it('filters a new repository\'s config, moves its hooks and new protected names, and leaves the rest', async () => {
    const baseline = await baselineNow()
    execFileSync('git', ['init', '-q', 'n'], {cwd: ws, env: GIT_ENV})
    execFileSync('git', ['-C', 'n', 'config', 'core.fsmonitor', 'touch /tmp/x'], {cwd: ws, env: GIT_ENV})
    await writeFile(at('n', '.git', 'hooks', 'post-checkout'), '#!/bin/sh\n', {mode: 0o755})
    await mkdir(at('a', 'b'), {recursive: true})
    await writeFile(at('a', 'b', '.mcp.json'), '{}\n')
    await writeFile(at('a', '.envrc'), '')
    const quarantine = new Quarantine(state, ws)
    const report = await neutraliseLeftovers(baseline, quarantine)
    expect(report.actions.map((action) => `${action.path} ${action.action}`).sort()).to.deep.equal([
      'a/b/.mcp.json moved',
      'n/.git/config filtered',
      'n/.git/hooks/post-checkout moved',
    ])
    expect(report.actions.find((action) => action.action === 'filtered')?.dropped).to.deep.equal(['core.fsmonitor'])
    expect(await readFile(at('n', '.git', 'config'), 'utf8')).to.not.include('fsmonitor')
    expect(await exists(at('n', '.git', 'hooks', 'pre-commit.sample'))).to.equal(true)
    // Empty, so nothing runs: left where it is.
    expect(await exists(at('a', '.envrc'))).to.equal(true)
    const folder = (await quarantine.shownFolder())!
    expect(describeLeftovers(report, folder)).to.include('a/b/.mcp.json: moved to the quarantine').and.to.include('dropped core.fsmonitor')
    const kept = path.join(state, 'quarantine')
    const files = (await readdir(kept, {recursive: true})).map(String)
    expect(files.some((file) => file.endsWith(path.join('n', '.git', 'config')))).to.equal(true)
    // A second check finds nothing more.
    expect((await neutraliseLeftovers(baseline, new Quarantine(state, ws))).actions).to.deep.equal([])
  })

  it('finds what a command made in folders an earlier walk read and kept', async () => {
    await mkdir(at('a', 'b'), {recursive: true})
    await mkdir(at('c'))
    // Past the clock slack, the walks keep what they read of a, a/b and c.
    await new Promise((resolve) => setTimeout(resolve, CHANGE_CLOCK_SLACK_MS + 100))
    expect((await neutraliseLeftovers(await baselineNow(), new Quarantine(state, ws))).actions).to.deep.equal([])
    const baseline = await baselineNow()
    await writeFile(at('a', 'b', '.mcp.json'), '{}\n')
    execFileSync('git', ['init', '-q', 'n'], {cwd: at('c'), env: GIT_ENV})
    execFileSync('git', ['-C', 'n', 'config', 'core.fsmonitor', 'touch /tmp/x'], {cwd: at('c'), env: GIT_ENV})
    const report = await neutraliseLeftovers(baseline, new Quarantine(state, ws))
    expect(report.actions.map((action) => `${action.path} ${action.action}`).sort()).to.deep.equal(['a/b/.mcp.json moved', 'c/n/.git/config filtered'])
  })

  it('leaves what did not change during the command: a repository the walk before it did not reach is the user\'s', async () => {
    execFileSync('git', ['init', '-q', 'old'], {cwd: ws, env: GIT_ENV})
    execFileSync('git', ['-C', 'old', 'config', 'core.pager', 'less'], {cwd: ws, env: GIT_ENV})
    await mkdir(at('deep', '.vscode'), {recursive: true})
    await writeFile(at('deep', '.vscode', 'settings.json'), '{}\n')
    const config = await readFile(at('old', '.git', 'config'), 'utf8')
    // As if the walk before the command had stopped short of them, and the command began later.
    const baseline: LeftoverBaseline = {...(await baselineNow()), known: new Set(), gitFolders: new Set(), since: Date.now() + CHANGE_CLOCK_SLACK_MS + 50}
    await new Promise((resolve) => setTimeout(resolve, CHANGE_CLOCK_SLACK_MS + 100))
    expect((await neutraliseLeftovers(baseline, new Quarantine(state, ws))).actions).to.deep.equal([])
    expect(await readFile(at('old', '.git', 'config'), 'utf8')).to.equal(config)
    // A change inside the old folder during the command makes it the command's.
    await writeFile(at('deep', '.vscode', 'settings.json'), '{"x": 1}\n')
    const report = await neutraliseLeftovers(baseline, new Quarantine(state, ws))
    expect(report.actions.map((action) => action.path)).to.deep.equal(['deep/.vscode'])
  })

  it('keeps a linked work tree and a commondir that names a git folder the sandbox bound', async () => {
    execFileSync('git', ['-c', 'user.name=a', '-c', 'user.email=a@example.com', 'commit', '-q', '--allow-empty', '-m', 'a'], {cwd: ws, env: GIT_ENV})
    const baseline = await baselineNow()
    execFileSync('git', ['worktree', 'add', '-q', 'wt'], {cwd: ws, env: GIT_ENV})
    await mkdir(at('fake', 'objects'), {recursive: true})
    await mkdir(at('fake', 'refs'))
    await writeFile(at('fake', 'HEAD'), 'ref: refs/heads/main\n')
    await writeFile(at('fake', 'commondir'), '../elsewhere\n')
    const report = await neutraliseLeftovers(baseline, new Quarantine(state, ws))
    expect(report.actions.map((action) => action.path)).to.deep.equal(['fake/commondir'])
    expect(await exists(at('.git', 'worktrees', 'wt', 'commondir'))).to.equal(true)
  })

  it('sets an entry aside in its own folder when the state folder is on another file system', async function () {
    const shm = '/dev/shm'
    if (!(await exists(shm)) || (await stat(shm)).dev === (await stat(ws)).dev) this.skip()
    const baseline = await baselineNow()
    await mkdir(at('sub'))
    await writeFile(at('sub', '.envrc'), 'touch /tmp/x\n')
    const other = await mkdtemp(path.join(shm, 'ak-leftovers-state-'))
    try {
      const report = await neutraliseLeftovers(baseline, new Quarantine(other, ws))
      expect(report.actions).to.have.length(1)
      expect(report.actions[0]!.isInQuarantine).to.equal(false)
      expect(report.actions[0]!.to).to.match(/^sub\/\.envrc\.ak-quarantined-/)
      expect(await exists(at('sub', '.envrc'))).to.equal(false)
      expect(await exists(at(report.actions[0]!.to))).to.equal(true)
    } finally {
      await rm(other, {recursive: true, force: true})
    }
  })

  it('never reads, moves or writes outside when a folder is swapped for a link to the outside meanwhile', async function () {
    this.timeout(120_000)
    if (process.platform !== 'linux') this.skip()
    const swapper = path.join(base, 'swapper')
    await compileSwapperOrSkip(this, swapper)
    const outside = path.join(base, 'outside')
    const baseline = await baselineNow()
    // Outside: what the check would act on if it followed the link (all changed "during the command").
    const inner = path.join(outside, 'inner')
    await mkdir(path.join(inner, 'n', '.git', 'hooks'), {recursive: true})
    await writeFile(path.join(inner, 'n', '.git', 'HEAD'), 'ref: refs/heads/main\n')
    await writeFile(path.join(inner, 'n', '.git', 'config'), '[core]\n\tfsmonitor = evil\n')
    await writeFile(path.join(inner, 'n', '.git', 'hooks', 'pre-commit'), '#!/bin/sh\n')
    await writeFile(path.join(inner, '.envrc'), 'evil\n')
    // Inside: m/inner/n, an empty folder the walk reaches by its path m/inner/n while m is swapped for the link.
    await mkdir(at('m', 'inner', 'n'), {recursive: true})
    await symlink(outside, at('s'))
    const racer = spawn(swapper, [at('m'), at('s'), String(RACE_SECONDS)], {stdio: 'ignore'})
    const raced = new Promise((resolve) => racer.once('exit', resolve))
    let running = true
    void raced.then(() => (running = false))
    let checks = 0
    while (running) {
      const report = await neutraliseLeftovers(baseline, new Quarantine(state, ws))
      checks++
      expect(report.actions, JSON.stringify(report.actions)).to.deep.equal([])
    }
    await raced
    expect(checks).to.be.above(0)
    expect(await readFile(path.join(inner, 'n', '.git', 'config'), 'utf8')).to.equal('[core]\n\tfsmonitor = evil\n')
    expect(await readdir(path.join(inner, 'n', '.git', 'hooks'))).to.deep.equal(['pre-commit'])
    expect(await readFile(path.join(inner, '.envrc'), 'utf8')).to.equal('evil\n')
  })
})
