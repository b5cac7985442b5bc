import {expect} from 'chai'
import {execFileSync} from 'node:child_process'
import {existsSync} from 'node:fs'
import {mkdtemp, readFile, realpath, rm, writeFile} from 'node:fs/promises'
import {tmpdir} from 'node:os'
import path from 'node:path'

import type {Logger} from '../../../../src/log.js'
import {CommandSessions} from '../../../../src/exec/terminal/command-sessions.js'
import {isProcessAlive} from '../../../../src/exec/terminal/process-tree.js'
import {
  ShellSnapshots,
  SNAPSHOT_SWITCH_ENV,
  SNAPSHOT_TIMEOUT_ENV,
  profileFiles,
  snapshotFromOutput,
} from '../../../../src/exec/terminal/shell-snapshot.js'
import {commandEnvironment, shellInvocation} from '../../../../src/exec/terminal/shell.js'

const ZSH = ['/usr/bin/zsh', '/bin/zsh'].find((file) => existsSync(file))

/** A log that keeps its lines. */
function recordingLog(): Logger & {lines: string[]} {
  const lines: string[] = []
  return {lines, info: (line) => lines.push(`info: ${line}`), warn: (line) => lines.push(`warn: ${line}`)}
}

/**
 * A profile that sets a variable with spaces and a newline, prepends to PATH, defines an alias and
 * a function, prints a line, and counts its runs in $HOME/profile-runs. bash needs expand_aliases
 * for an alias to work in a non-interactive shell, under -lc as well.
 */
function profile(shell: 'bash' | 'zsh', value: string): string {
  return [
    'echo run >> "$HOME/profile-runs"',
    `export PROFILE_VALUE='${value}'`,
    "export MULTI_LINE='one\ntwo'",
    'export PATH="/opt/from-profile/bin:$PATH"',
    ...(shell === 'bash' ? ['shopt -s expand_aliases'] : []),
    "alias greet='echo greeted by alias'",
    'shout() { echo "function says $1"; }',
    'echo "profile says hello"',
    '',
  ].join('\n')
}

/** What a command prints to show what it sees. */
const PROBE = 'echo "$PROFILE_VALUE|$MULTI_LINE|${PATH%%:*}"; greet; shout loudly; echo "$TERM $LANG"; pwd'

for (const shell of ['bash', 'zsh'] as const) {
  const shellPath = shell === 'bash' ? '/bin/bash' : ZSH
  const title = shellPath ? `shell snapshot of ${shell}` : `shell snapshot of ${shell} (skipped: zsh is not installed; apt-get install zsh)`
  const profileName = shell === 'bash' ? '.profile' : '.zprofile'

  describe(title, function () {
    let home: string
    let folder: string
    let sessions: CommandSessions
    let log: ReturnType<typeof recordingLog>

    const create = (env: NodeJS.ProcessEnv = {}) =>
      new CommandSessions({env: {...process.env, HOME: home, SHELL: shellPath, ...env}, workspace: folder, log, killGraceMs: 500})

    async function run(command: string): Promise<string> {
      const session = await sessions.start(command, folder, 'owner')
      const answer = await sessions.wait(session, {yieldTimeMs: 10_000, maxOutputTokens: 7000, callStartedAt: performance.now(), signal: new AbortController().signal})
      expect(answer.exit_code, answer.text).to.equal(0)
      return answer.text
    }

    const profileRuns = async () => (await readFile(path.join(home, 'profile-runs'), 'utf8').catch(() => '')).split('\n').filter(Boolean).length

    before(function () {
      if (!shellPath) this.skip()
    })

    beforeEach(async () => {
      home = await realpath(await mkdtemp(path.join(tmpdir(), 'ak-snapshot-home-')))
      folder = await realpath(await mkdtemp(path.join(tmpdir(), 'ak-snapshot-ws-')))
      await writeFile(path.join(home, profileName), profile(shell, 'first value'))
      log = recordingLog()
      sessions = create()
    })

    afterEach(async () => {
      await sessions.close()
      await rm(home, {recursive: true, force: true})
      await rm(folder, {recursive: true, force: true})
    })

    it('gives commands the variables, PATH, alias and function a login shell gets, without reading the profile again', async () => {
      const first = await run(PROBE)
      await sessions.shellSnapshot!.settled()
      expect(sessions.shellSnapshot!.isReady, log.lines.join('\n')).to.equal(true)
      const runsBefore = await profileRuns()
      const withSnapshot = [await run(PROBE), await run(PROBE)]
      expect(await profileRuns()).to.equal(runsBefore)
      const expected = `first value|one\ntwo|/opt/from-profile/bin\ngreeted by alias\nfunction says loudly\ndumb C.UTF-8\n${folder}\n`
      // The login shell also shows what the profile prints; the snapshot leaves that out.
      expect(first).to.equal(`profile says hello\n${expected}`)
      expect(withSnapshot).to.deep.equal([expected, expected])
      expect(log.lines).to.deep.equal([])
    })

    it('runs in the given folder, keeps exit codes and stdin, and sees its own tag', async () => {
      await run('true')
      await sessions.shellSnapshot!.settled()
      const sub = await mkdtemp(path.join(folder, 'sub-'))
      const session = await sessions.start('pwd; echo "${AK_EXEC_TAG##*,}"; read line; echo "got $line"; exit 7', sub, 'owner')
      await session.write('typed\n', session.ended)
      const answer = await sessions.wait(session, {yieldTimeMs: 10_000, maxOutputTokens: 7000, callStartedAt: performance.now(), signal: new AbortController().signal})
      expect(answer).to.include({exit_code: 7, text: `${sub}\n${session.tag}\ngot typed\n`})
    })

    it('takes a new snapshot when a profile file changes, and the next command already sees the change', async () => {
      await run('true')
      await sessions.shellSnapshot!.settled()
      expect(sessions.shellSnapshot!.isReady).to.equal(true)
      await writeFile(path.join(home, profileName), profile(shell, 'second, longer value'))
      expect(sessions.shellSnapshot!.isReady).to.equal(false)
      expect(await run('echo "$PROFILE_VALUE"')).to.equal('profile says hello\nsecond, longer value\n')
      await sessions.shellSnapshot!.settled()
      const runsBefore = await profileRuns()
      expect(await run('echo "$PROFILE_VALUE"')).to.equal('second, longer value\n')
      expect(await profileRuns()).to.equal(runsBefore)
    })

    it('falls back to a login shell per command when the profile takes longer than the time limit, and says so once', async () => {
      await sessions.close()
      sessions = create({[SNAPSHOT_TIMEOUT_ENV]: '300'})
      await writeFile(path.join(home, profileName), `sleep 1\n${profile(shell, 'slow')}`)
      await run('true')
      await sessions.shellSnapshot!.settled()
      for (let index = 0; index < 2; index++) expect(await run('echo "$PROFILE_VALUE"')).to.equal('profile says hello\nslow\n')
      expect(log.lines).to.have.length(1)
      expect(log.lines[0]).to.match(/^warn: the shell snapshot of .* failed \(the login shell did not finish reading its profile within 0\.3 s\)/)
      expect(log.lines[0]).to.contain(`${SNAPSHOT_SWITCH_ENV}=off`)
    })

    it(`runs every command in a login shell when ${SNAPSHOT_SWITCH_ENV}=off`, async () => {
      await sessions.close()
      sessions = create({[SNAPSHOT_SWITCH_ENV]: 'off'})
      for (let index = 0; index < 3; index++) await run('true')
      expect(await profileRuns()).to.equal(3)
      expect(sessions.shellSnapshot!.isReady).to.equal(false)
      expect(log.lines).to.deep.equal([])
    })
  })
}

describe('shell snapshot failures', () => {
  let home: string
  before(async () => {
    home = await mkdtemp(path.join(tmpdir(), 'ak-snapshot-fail-'))
  })
  after(async () => {
    await rm(home, {recursive: true, force: true})
  })

  it('falls back to a login shell when the capture fails, saying why once', async () => {
    // A profile that exits only when it sees the capture script (bash shows it in $BASH_EXECUTION_STRING).
    await writeFile(
      path.join(home, '.profile'),
      'case "$BASH_EXECUTION_STRING" in *"ak shell snapshot"*) echo "refusing" >&2; exit 3 ;; esac\nexport FROM_PROFILE=yes\n',
    )
    const log = recordingLog()
    const sessions = new CommandSessions({env: {...process.env, HOME: home, SHELL: '/bin/bash'}, log})
    try {
      for (let index = 0; index < 3; index++) {
        const session = await sessions.start('echo "$FROM_PROFILE"', home, 'owner')
        const answer = await sessions.wait(session, {yieldTimeMs: 10_000, maxOutputTokens: 7000, callStartedAt: performance.now(), signal: new AbortController().signal})
        expect(answer.text).to.equal('yes\n')
        await sessions.shellSnapshot!.settled()
      }
      expect(log.lines).to.deep.equal([
        `warn: the shell snapshot of /bin/bash failed (the login shell exited with 3: refusing), so commands run in a login shell each, which is slower. Fix the profile, or set ${SNAPSHOT_SWITCH_ENV}=off to skip the snapshot.`,
      ])
    } finally {
      await sessions.close()
    }
  })

  it('tries a capture that passed its time limit again later, and says when it succeeded', async () => {
    const slowMarker = path.join(home, 'slow')
    await writeFile(slowMarker, '')
    await writeFile(path.join(home, '.profile'), `[ -e '${slowMarker}' ] && sleep 2\nexport FROM_PROFILE=yes\n`)
    const log = recordingLog()
    const env = commandEnvironment({...process.env, HOME: home}, ['test'])
    const snapshots = new ShellSnapshots({shell: '/bin/bash', env, cwd: home, log, timeoutMs: 300, retryAfterTimeoutMs: 200})
    try {
      expect(snapshots.current()).to.equal(undefined)
      await snapshots.settled()
      expect(snapshots.current()).to.equal(undefined)
      await rm(slowMarker)
      await new Promise((resolve) => setTimeout(resolve, 250))
      expect(snapshots.current()).to.equal(undefined)
      await snapshots.settled()
      expect(snapshots.current()).to.be.a('string')
      expect(log.lines).to.have.length(2)
      expect(log.lines[0]).to.contain('did not finish reading its profile within 0.3 s').and.contain('It is tried again in 0.2 s.')
      expect(log.lines[1]).to.equal('info: the shell snapshot of /bin/bash is taken; commands no longer run in a login shell each')
    } finally {
      await snapshots.close()
    }
  })

  it('stops a capture under way when the sessions close, without waiting for its time limit', async function () {
    this.timeout(20_000)
    const pidFile = path.join(home, 'capture-sleep.pid')
    await writeFile(
      path.join(home, '.profile'),
      `case "$BASH_EXECUTION_STRING" in *"ak shell snapshot"*) sleep 300 & echo $! > '${pidFile}'; wait ;; esac\n`,
    )
    const log = recordingLog()
    const sessions = new CommandSessions({env: {...process.env, HOME: home, SHELL: '/bin/bash', [SNAPSHOT_TIMEOUT_ENV]: '60000'}, log})
    const session = await sessions.start('true', home, 'owner')
    await sessions.wait(session, {yieldTimeMs: 10_000, maxOutputTokens: 7000, callStartedAt: performance.now(), signal: new AbortController().signal})
    while (!existsSync(pidFile) || (await readFile(pidFile, 'utf8')).trim() === '') await new Promise((resolve) => setTimeout(resolve, 50))
    const pid = Number((await readFile(pidFile, 'utf8')).trim())
    await sessions.close()
    expect(isProcessAlive(pid)).to.equal(false)
    expect(log.lines).to.deep.equal([])
    await rm(pidFile)
  })

  it('stops a capture past its time limit with SIGTERM first, so the profile\'s EXIT trap removes its lock', async () => {
    const lock = path.join(home, 'profile.lock')
    await writeFile(path.join(home, '.profile'), `trap "rm -f '${lock}'" EXIT\n: > '${lock}'\nsleep 30\n`)
    const env = commandEnvironment({...process.env, HOME: home}, ['test'])
    const snapshots = new ShellSnapshots({shell: '/bin/bash', env, cwd: home, log: recordingLog(), timeoutMs: 500})
    try {
      expect(snapshots.current()).to.equal(undefined)
      await snapshots.settled()
      expect(snapshots.isReady).to.equal(false)
      expect(existsSync(lock)).to.equal(false)
    } finally {
      await snapshots.close()
      await writeFile(path.join(home, '.profile'), '')
    }
  })

  it('SIGKILLs a capture whose profile ignores SIGTERM, after the grace', async function () {
    this.timeout(20_000)
    const pidFile = path.join(home, 'stubborn.pid')
    const signals = path.join(home, 'signals')
    await writeFile(path.join(home, '.profile'), `trap 'echo TERM >> "${signals}"' TERM\necho $$ > '${pidFile}'\nwhile :; do sleep 0.1; done\n`)
    const env = commandEnvironment({...process.env, HOME: home}, ['test'])
    const snapshots = new ShellSnapshots({shell: '/bin/bash', env, cwd: home, log: recordingLog(), timeoutMs: 60_000})
    expect(snapshots.current()).to.equal(undefined)
    while (!existsSync(pidFile) || (await readFile(pidFile, 'utf8')).trim() === '') await new Promise((resolve) => setTimeout(resolve, 50))
    const pid = Number((await readFile(pidFile, 'utf8')).trim())
    await snapshots.close()
    expect(isProcessAlive(pid)).to.equal(false)
    expect(await readFile(signals, 'utf8')).to.contain('TERM')
    await rm(pidFile)
    await writeFile(path.join(home, '.profile'), '')
  })

  it('says once that a shell other than bash and zsh runs in a login shell each', async () => {
    const log = recordingLog()
    const sessions = new CommandSessions({env: {...process.env, HOME: home, SHELL: '/bin/sh'}, log})
    try {
      const session = await sessions.start('echo ran', home, 'owner')
      expect((await sessions.wait(session, {yieldTimeMs: 10_000, maxOutputTokens: 7000, callStartedAt: performance.now(), signal: new AbortController().signal})).text).to.equal('ran\n')
      expect(log.lines).to.deep.equal(['info: commands run in a login shell each: the shell snapshot supports bash and zsh, not sh'])
    } finally {
      await sessions.close()
    }
  })
})

describe('shell snapshot parts', () => {
  it('keeps the snapshot from its marker line on, dropping what the profile printed before', () => {
    expect(snapshotFromOutput('# ak shell snapshot\nx=1\n')).to.equal('# ak shell snapshot\nx=1\n')
    expect(snapshotFromOutput('welcome!\n# ak shell snapshot\nx=1\n')).to.equal('# ak shell snapshot\nx=1\n')
    expect(snapshotFromOutput('welcome!\n')).to.equal(undefined)
  })

  it('watches the profile files of bash, zsh (under $ZDOTDIR when set) and sh', () => {
    const files = profileFiles({HOME: '/home/u', ZDOTDIR: '/home/u/.config/zsh', ENV: '/home/u/.shinit'})
    expect(files).to.include.members([
      '/etc/profile',
      '/home/u/.bash_profile',
      '/home/u/.profile',
      '/home/u/.bashrc',
      '/etc/zsh/zprofile',
      '/home/u/.config/zsh/.zshenv',
      '/home/u/.config/zsh/.zprofile',
      '/home/u/.shinit',
    ])
  })

  it('runs a command through the snapshot in a non-login shell, under the sandbox wrapper when given', () => {
    expect(shellInvocation('/bin/bash', "echo 'hi'", {snapshotFile: '/tmp/s/snap.sh', wrapper: ['/usr/bin/bwrap', '--']})).to.deep.equal({
      file: '/bin/sh',
      args: ['-c', 'read -r _ <&3; exec "$0" "$@" 2>&1 3<&-', '/usr/bin/bwrap', '--', '/bin/bash', '-c', `. '/tmp/s/snap.sh' >/dev/null 2>&1\neval 'echo '\\''hi'\\'''`],
    })
    const {file, args} = shellInvocation('/bin/bash', "echo 'it''s' \"$0\"", {snapshotFile: '/dev/null'})
    expect(execFileSync(file, args, {encoding: 'utf8'})).to.equal('its /bin/bash\n')
  })
})
