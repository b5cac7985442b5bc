import {expect} from 'chai'
import {spawnSync} from 'node:child_process'
import {randomBytes} from 'node:crypto'
import {existsSync, readFileSync, readdirSync, readlinkSync, statSync} from 'node:fs'
import {chmod, chown, mkdir, mkdtemp, readFile, realpath, rm, symlink, writeFile} from 'node:fs/promises'
import {type AddressInfo, type Server, createServer} from 'node:net'
import {tmpdir} from 'node:os'
import path from 'node:path'

import {MIN_BWRAP_VERSION, checkSandbox, findBwrap} from '../../src/exec/terminal/sandbox.js'
import {CLIENT_LINES, RUN_JS, type TestClient, connectStdio} from '../helpers/clients.js'
import {type ServerFiles, serverFilesFor} from '../helpers/processes.js'
import {runToExit} from '../helpers/http-server.js'

/** Where bubblewrap can run here; tests that need it are skipped, saying why, where it cannot. */
const SANDBOX = await checkSandbox({mode: 'workspace-write', network: false}, {workspace: tmpdir()})
const SKIP_REASON = SANDBOX.ok ? '' : ` (skipped: ${SANDBOX.reason}; ${SANDBOX.fix})`

/** Folders outside the workspace and outside /tmp (which the sandbox hides), where writes must fail. */
const OUTSIDE_ROOT = '/var/tmp'

/** Host processes whose command line contains `marker`. */
function processesWith(marker: string): number[] {
  const found: number[] = []
  for (const name of readdirSync('/proc')) {
    if (!/^\d+$/.test(name)) continue
    try {
      if (readFileSync(`/proc/${name}/cmdline`, 'latin1').includes(marker)) found.push(Number(name))
    } catch {
      // gone
    }
  }
  return found
}

async function exec(client: TestClient, cmd: string, extra: Record<string, unknown> = {}) {
  const answer = await client.call('exec_command', {cmd, ...extra})
  expect(answer.isError, answer.text).to.equal(false)
  return answer.structured as {exit_code: number | 'running'; session_id: string; text: string}
}

async function stdin(client: TestClient, sessionId: string, chars: string) {
  const answer = await client.call('write_stdin', {session_id: sessionId, chars, yield_time_ms: 5000})
  expect(answer.isError, answer.text).to.equal(false)
  return answer.structured as {exit_code: number | 'running'; session_id: string; text: string}
}

for (const mode of ['workspace-write', 'read-only'] as const) {
  describe(`exec_command with --sandbox ${mode}${SKIP_REASON}`, function () {
    this.timeout(120_000)
    let workspace: string
    let outside: string
    let home: string
    let hostTmpFile: string
    let client: TestClient

    const serve = (extra: string[] = []) =>
      connectStdio(
        CLIENT_LINES[1],
        ['exec', 'serve', '--workspace', workspace, '--level', 'terminal', '--sandbox', mode, ...extra],
        {env: {HOME: home, SHELL: '/bin/bash'}},
      )

    before(async function () {
      if (!SANDBOX.ok) this.skip()
      workspace = await realpath(await mkdtemp(path.join(tmpdir(), 'ak-sandbox-ws-')))
      outside = await realpath(await mkdtemp(path.join(OUTSIDE_ROOT, 'ak-sandbox-outside-')))
      home = await realpath(await mkdtemp(path.join(OUTSIDE_ROOT, 'ak-sandbox-home-')))
      await writeFile(path.join(home, '.profile'), 'export FROM_PROFILE=profiled\nshopt -s expand_aliases\nalias hello="echo hello from alias"\n')
      await writeFile(path.join(outside, 'target.txt'), 'untouched\n')
      await symlink(path.join(outside, 'target.txt'), path.join(workspace, 'link-out.txt'))
      await mkdir(path.join(workspace, 'sub'))
      hostTmpFile = path.join(tmpdir(), `ak-sandbox-host-${randomBytes(4).toString('hex')}`)
      await writeFile(hostTmpFile, 'host secret\n')
      client = await serve()
    })

    after(async () => {
      await client?.close()
      for (const folder of [workspace, outside, home, hostTmpFile]) if (folder) await rm(folder, {recursive: true, force: true})
    })

    it('says which sandbox is in force in exec_command\'s description', async () => {
      const tool = (await client.listTools()).find((each) => each.name === 'exec_command')
      expect(tool?.description).to.contain(`sandbox (${mode})`).and.contain('There is no network access')
    })

    if (mode === 'workspace-write') {
      it('lets a command write inside the workspace', async () => {
        const answer = await exec(client, 'echo written > sub/inside.txt && cat sub/inside.txt')
        expect(answer).to.include({exit_code: 0, text: 'written\n'})
        expect(await readFile(path.join(workspace, 'sub', 'inside.txt'), 'utf8')).to.equal('written\n')
      })
    } else {
      it('refuses a write inside the workspace with the OS error', async () => {
        const answer = await exec(client, 'echo written > inside.txt')
        expect(answer.exit_code).to.not.equal(0)
        expect(answer.text).to.contain('Read-only file system')
      })
    }

    it('runs the command in workdir, inside the workspace', async () => {
      expect(await exec(client, 'pwd', {workdir: 'sub'})).to.include({exit_code: 0, text: `${workspace}/sub\n`})
      expect(await exec(client, 'pwd')).to.include({exit_code: 0, text: `${workspace}\n`})
    })

    it('refuses writes outside the workspace (another folder, $HOME, a symlink pointing out) with the OS error', async () => {
      for (const target of [`${outside}/new.txt`, `${outside}/target.txt`, '"$HOME/new.txt"', 'link-out.txt']) {
        const answer = await exec(client, `echo changed > ${target}`)
        expect(answer.exit_code, target).to.not.equal(0)
        expect(answer.text, target).to.contain('Read-only file system')
      }
      expect(await readFile(path.join(outside, 'target.txt'), 'utf8')).to.equal('untouched\n')
      expect(readdirSync(outside)).to.deep.equal(['target.txt'])
      // .cache is the server's own (its compiled code, see bin/cache-dir.js), not the command's.
      expect(readdirSync(home).filter((name) => name !== '.cache')).to.deep.equal(['.profile'])
    })

    it('gives the command a private /tmp', async () => {
      const hidden = await exec(client, `cat ${hostTmpFile}`)
      expect(hidden.exit_code).to.not.equal(0)
      expect(hidden.text).to.contain('No such file or directory')
      const write = await exec(client, 'echo scratch > /tmp/scratch.txt && cat /tmp/scratch.txt; echo "TMPDIR=$TMPDIR"')
      if (mode === 'workspace-write') {
        expect(write.text).to.equal('scratch\nTMPDIR=/tmp\n')
      } else {
        expect(write.text).to.contain('Read-only file system')
      }
      expect(readdirSync(tmpdir())).to.not.include('scratch.txt')
    })

    it('cannot reach a loopback listener outside the sandbox; can with --sandbox-network', async () => {
      const listener = createServer((socket) => socket.end('hello from the host\n'))
      await new Promise<void>((resolve) => listener.listen(0, '127.0.0.1', resolve))
      const {port} = listener.address() as AddressInfo
      const connect = `exec 3<>/dev/tcp/127.0.0.1/${port} && cat <&3`
      let networked: TestClient | undefined
      try {
        const refused = await exec(client, connect)
        expect(refused.exit_code).to.not.equal(0)
        expect(refused.text).to.match(/Operation not permitted|Connection refused|Network is unreachable/)
        networked = await serve(['--sandbox-network'])
        expect(await exec(networked, connect)).to.include({exit_code: 0, text: 'hello from the host\n'})
      } finally {
        await networked?.close()
        listener.close()
      }
    })

    it('leaves no process behind, even one that clears its environment and leaves the session', async () => {
      const marker = `4${randomBytes(3).readUIntBE(0, 3)}.5`
      const own = await serve()
      const answer = await exec(own, `env -i setsid sleep ${marker} > /dev/null 2>&1 < /dev/null & echo started`)
      expect(answer).to.include({exit_code: 0, text: 'started\n'})
      await own.close()
      expect(processesWith(`sleep\0${marker}`)).to.deep.equal([])
    })

    it('loads the login profile through the shell snapshot, taken inside the sandbox', async () => {
      for (let index = 0; index < 3; index++) {
        expect(await exec(client, 'echo "$FROM_PROFILE"; hello')).to.include({exit_code: 0, text: 'profiled\nhello from alias\n'})
        await new Promise((resolve) => setTimeout(resolve, 200))
      }
      // A capture that failed (e.g. the snapshot file not readable inside the sandbox) says so on stderr.
      expect(client.stderr()).to.not.contain('shell snapshot')
    })

    it('interrupts a command with \\u0003 (the command\'s own handler runs) and reports 128+signal for one without', async () => {
      const trapped = await exec(client, 'trap "echo caught INT; exit 5" INT; echo ready; while :; do sleep 0.1; done', {yield_time_ms: 1000})
      expect(trapped).to.include({exit_code: 'running', text: 'ready\n'})
      expect(await stdin(client, trapped.session_id, '\u0003')).to.include({exit_code: 5, text: 'caught INT\n'})
      const plain = await exec(client, 'echo ready; sleep 100', {yield_time_ms: 1000})
      expect(await stdin(client, plain.session_id, '\u0003')).to.include({exit_code: 130})
    })

    it('passes input through write_stdin and ends it with \\u0004', async () => {
      const cat = await exec(client, 'cat', {yield_time_ms: 250})
      expect(cat.exit_code).to.equal('running')
      expect(await stdin(client, cat.session_id, 'typed line\n')).to.include({exit_code: 'running', text: 'typed line\n'})
      expect(await stdin(client, cat.session_id, '\u0004')).to.include({exit_code: 0, session_id: 'none'})
    })

    it('reports exit codes and a signal death as without the sandbox', async () => {
      expect(await exec(client, 'exit 3')).to.include({exit_code: 3})
      expect(await exec(client, 'kill -TERM $$')).to.include({exit_code: 143})
    })

    it('cuts long output in the middle as without the sandbox', async () => {
      const answer = await exec(client, 'seq 1 100000', {max_output_tokens: 100})
      expect(answer.exit_code).to.equal(0)
      expect(answer.text).to.match(/^1\n2\n/).and.match(/\n100000\n$/).and.contain('cut from the middle')
    })
  })
}

/**
 * Who the server runs as in the escape tests: root (how containers and CI run it) and, where this
 * process is root and `setpriv` exists, an unprivileged user that owns the test's folders.
 */
const UNPRIVILEGED = {uid: 65534, gid: 65534}
/**
 * The files uid UNPRIVILEGED.uid runs this checkout's server with (the checkout's own, or a copy it
 * can reach: see serverFilesFor), or why it cannot; only asked for where this process is root.
 */
const UNPRIVILEGED_FILES: ServerFiles | string =
  process.getuid?.() !== 0
    ? 'only root can start a server as another user'
    : spawnSync('setpriv', ['--version']).status !== 0
      ? 'setpriv is not installed'
      : serverFilesFor(UNPRIVILEGED.uid)
const SERVER_USERS = [
  {
    name: 'root',
    runAs: undefined as string[] | undefined,
    files: undefined as ServerFiles | undefined,
    skip: process.getuid?.() === 0 ? '' : ' (skipped: the tests run as a user, not root)',
  },
  {
    name: `an unprivileged user (uid ${UNPRIVILEGED.uid})`,
    runAs: ['setpriv', `--reuid=${UNPRIVILEGED.uid}`, `--regid=${UNPRIVILEGED.gid}`, '--clear-groups'],
    files: typeof UNPRIVILEGED_FILES === 'string' ? undefined : UNPRIVILEGED_FILES,
    skip: typeof UNPRIVILEGED_FILES === 'string' ? ` (skipped: ${UNPRIVILEGED_FILES})` : '',
  },
]

/** The Python the sandboxed probes run: the system's, which every user can run (a pyenv under /root is not). */
const SYSTEM_PYTHON = '/usr/bin/python3'

/**
 * What a command tries beyond bubblewrap's own confinement, through Python's ctypes (no compiler
 * needed): each line is `<what> allowed` or `<what> <errno name>`. `sys.argv[1]` is the path of a
 * Unix socket listening on the host.
 */
const SYSCALL_PROBE = `import ctypes, errno, platform, socket, sys
libc = ctypes.CDLL(None, use_errno=True)
L = ctypes.c_long
arm = platform.machine() in ('aarch64', 'arm64')
def report(name, attempt):
    try:
        result = attempt()
        if isinstance(result, int) and result < 0:
            print(name, errno.errorcode[ctypes.get_errno()])
        else:
            print(name, 'allowed')
    except OSError as error:
        print(name, errno.errorcode.get(error.errno, error.errno))
report('ptrace', lambda: libc.ptrace(L(0), L(0), L(0), L(0)))
report('keyctl', lambda: libc.syscall(L(219 if arm else 250), L(0), L(-3), L(0)))
params = ctypes.create_string_buffer(120)
report('io_uring', lambda: libc.syscall(L(425), L(1), params))
report('unshare', lambda: libc.syscall(L(97 if arm else 272), L(0x10000000)))
report('vsock', lambda: socket.socket(40, socket.SOCK_STREAM))
report('unix-connect', lambda: socket.socket(socket.AF_UNIX).connect(sys.argv[1]))
`

for (const user of SERVER_USERS) {
  for (const mode of ['workspace-write', 'read-only'] as const) {
    describe(`the ${mode} sandbox holds against its own commands when the server runs as ${user.name}${SKIP_REASON || user.skip}`, function () {
      this.timeout(120_000)
      const token = `token-${randomBytes(8).toString('hex')}`
      let workspace: string
      let outside: string
      let home: string
      let hostSocket: Server
      let client: TestClient

      const owned = async (folder: string) => {
        if (user.runAs) await chown(folder, UNPRIVILEGED.uid, UNPRIVILEGED.gid)
        return folder
      }

      const serve = (extra: string[] = []) =>
        connectStdio(
          CLIENT_LINES[1],
          ['exec', 'serve', '--workspace', workspace, '--level', 'terminal', '--sandbox', mode, ...extra],
          {env: {HOME: home, SHELL: '/bin/bash', AGENTEXEC_TOKEN: token}, runAs: user.runAs, ...(user.files ? {node: user.files.node, entry: user.files.runJs} : {})},
        )

      before(async function () {
        if (!SANDBOX.ok || user.skip) this.skip()
        workspace = await owned(await realpath(await mkdtemp(path.join(tmpdir(), 'ak-sandbox-escape-ws-'))))
        outside = await owned(await realpath(await mkdtemp(path.join(OUTSIDE_ROOT, 'ak-sandbox-escape-outside-'))))
        home = await owned(await realpath(await mkdtemp(path.join(OUTSIDE_ROOT, 'ak-sandbox-escape-home-'))))
        await writeFile(path.join(workspace, 'probe.py'), SYSCALL_PROBE, {mode: 0o644})
        hostSocket = createServer((socket) => socket.on('error', () => {}).end('hello from a host socket\n'))
        await new Promise<void>((resolve) => hostSocket.listen(path.join(outside, 'host.sock'), resolve))
        await chmod(path.join(outside, 'host.sock'), 0o777)
        client = await serve()
      })

      after(async () => {
        await client?.close()
        hostSocket?.close()
        for (const folder of [workspace, outside, home]) if (folder) await rm(folder, {recursive: true, force: true})
      })

      it('gives commands no capabilities, so a mount namespace of their own cannot make the host writable', async () => {
        const escaped = path.join(outside, 'escaped')
        const answer = await exec(client, `unshare -m sh -c "mount -o remount,bind,rw / && echo x > ${escaped}"; unshare -Ur sh -c "mount -o remount,bind,rw / && echo x > ${escaped}"; echo ran`)
        expect(answer.text).to.match(/ran\n$/)
        expect(readdirSync(outside)).to.not.include('escaped')
        expect((await exec(client, 'grep CapEff /proc/self/status')).text).to.equal('CapEff:\t0000000000000000\n')
      })

      it('shows no host process, nor the server\'s environment, even after unmounting its /proc', async () => {
        const serverPid = client.pid
        const answer = await exec(
          client,
          `unshare -m sh -c 'umount -l /proc; cat /proc/${serverPid}/environ; tr "\\0" " " < /proc/${serverPid}/cmdline; ls /proc'; ` +
            `cat /proc/${serverPid}/environ; for f in /proc/[0-9]*/cmdline; do tr "\\0" " " < "$f"; echo; done`,
        )
        expect(answer.text).to.not.contain(token).and.not.contain('exec serve')
      })

      it('cannot change the kernel\'s settings in /proc/sys (core_pattern would run a program as the host\'s root)', async () => {
        // Writes back the value already there, so that a sandbox that fails this test changes nothing.
        const answer = await exec(
          client,
          'v=$(cat /proc/sys/kernel/printk_ratelimit) && echo "$v" > /proc/sys/kernel/printk_ratelimit && echo changed; ' +
            '[ -w /proc/sys/kernel/core_pattern ] && echo writable; echo ran',
        )
        expect(answer.text).to.match(/ran\n$/).and.not.contain('changed').and.not.contain('writable')
      })

      it('cannot leave a set-user-ID or set-group-ID program in the workspace for the host\'s users to run', async () => {
        await exec(
          client,
          'cp /bin/true suid-chmod && chmod u+s,g+s suid-chmod; ' +
            `${SYSTEM_PYTHON} -c "import os; os.close(os.open('suid-open', os.O_CREAT | os.O_WRONLY, 0o6755))"; ` +
            'mkdir setgid-dir && chmod g+s setgid-dir; echo ran',
        )
        for (const name of readdirSync(workspace)) {
          // The sandbox's placeholders (.git, .codex…) are removed just after the answer: one may be gone by now.
          const info = statSync(path.join(workspace, name), {throwIfNoEntry: false})
          if (info) expect(info.mode & 0o6000, `${name} is ${info.mode.toString(8)}`).to.equal(0)
        }
      })

      it('cannot enter the server\'s network namespace to reach a listener on the host\'s loopback', async () => {
        const listener = createServer((socket) => socket.end('hello from the host\n'))
        await new Promise<void>((resolve) => listener.listen(0, '127.0.0.1', resolve))
        const {port} = listener.address() as AddressInfo
        try {
          const connect = `bash -c "exec 3<>/dev/tcp/127.0.0.1/${port} && cat <&3"`
          const answer = await exec(
            client,
            `unshare -m sh -c 'umount -l /proc; nsenter -t ${client.pid} -n ${connect}'; nsenter -t ${client.pid} -n ${connect}; echo ran`,
          )
          expect(answer.text).to.match(/ran\n$/).and.not.contain('hello from the host')
        } finally {
          listener.close()
        }
      })

      it('refuses ptrace, keyctl, io_uring, new namespaces, vsock and the host\'s Unix sockets (network off)', async function () {
        if (!existsSync(SYSTEM_PYTHON)) {
          console.log(`      skipped: the system calls are tried from Python, and ${SYSTEM_PYTHON} is not installed`)
          this.skip()
        }
        const answer = await exec(client, `${SYSTEM_PYTHON} probe.py ${path.join(outside, 'host.sock')}`)
        expect(answer.text).to.equal(
          ['ptrace', 'keyctl', 'io_uring', 'unshare', 'vsock', 'unix-connect'].map((name) => `${name} EPERM\n`).join(''),
        )
      })

      it('shares no System V shared memory, message queue or semaphore with the host (its own IPC namespace)', async function () {
        const made = spawnSync('ipcmk', ['-M', '4096'], {encoding: 'utf8'})
        if (made.status !== 0) {
          console.log(`      (skipped: ipcmk could not make a host segment: ${made.stderr || made.error})`)
          this.skip()
        }
        const shmid = /(\d+)\s*$/.exec(made.stdout)![1]!
        try {
          const answer = await exec(client, `readlink /proc/self/ns/ipc; ipcs -m | awk '{print $2}'`)
          const [namespace, ...ids] = answer.text.trim().split('\n')
          expect(namespace).to.match(/^ipc:/).and.not.equal(readlinkSync('/proc/self/ns/ipc'))
          expect(ids).to.not.include(shmid)
        } finally {
          spawnSync('ipcrm', ['-m', shmid])
        }
      })

      it('hands a command none of the descriptors the server inherited (they would reach the host past the read-only view)', async () => {
        const leak = path.join(outside, 'leak.txt')
        await writeFile(leak, '')
        await chown(leak, UNPRIVILEGED.uid, UNPRIVILEGED.gid)
        // The server's parent leaves a file and a folder of the host open without close-on-exec.
        const leaky = await connectStdio(
          CLIENT_LINES[1],
          ['exec', 'serve', '--workspace', workspace, '--level', 'terminal', '--sandbox', mode],
          {
            env: {HOME: home, SHELL: '/bin/bash', AGENTEXEC_TOKEN: token},
            runAs: ['bash', '-c', 'exec 200>>"$1" 201<"$2"; shift 2; exec "$@"', 'bash', leak, outside, ...(user.runAs ?? [])],
            ...(user.files ? {node: user.files.node, entry: user.files.runJs} : {}),
          },
        )
        try {
          const answer = await exec(
            leaky,
            `echo pwned >&200; echo pwned > /proc/self/fd/201/escaped; ls -l /proc/self/fd/ | grep -c ${path.basename(outside)}; echo ran`,
          )
          expect(answer.text).to.match(/^0\nran\n$/m)
          expect(readFileSync(leak, 'utf8')).to.equal('')
          expect(readdirSync(outside)).to.not.include('escaped')
        } finally {
          await leaky.close()
        }
      })

      it('still lets commands write where the mode allows, and reach a loopback listener with --sandbox-network', async () => {
        const write = await exec(client, 'echo scratch > /tmp/scratch && cat /tmp/scratch; echo inside > inside.txt && cat inside.txt')
        if (mode === 'workspace-write') {
          expect(write).to.include({exit_code: 0, text: 'scratch\ninside\n'})
          expect(await readFile(path.join(workspace, 'inside.txt'), 'utf8')).to.equal('inside\n')
        } else {
          expect(write.text).to.contain('Read-only file system')
        }
        const listener = createServer((socket) => socket.end('hello from the host\n'))
        await new Promise<void>((resolve) => listener.listen(0, '127.0.0.1', resolve))
        const {port} = listener.address() as AddressInfo
        const networked = await serve(['--sandbox-network'])
        try {
          expect(await exec(networked, `exec 3<>/dev/tcp/127.0.0.1/${port} && cat <&3`)).to.include({exit_code: 0, text: 'hello from the host\n'})
          expect((await exec(networked, 'grep CapEff /proc/self/status')).text).to.equal('CapEff:\t0000000000000000\n')
        } finally {
          await networked.close()
          listener.close()
        }
      })

      it('leaves no process behind once the session ends', async () => {
        const marker = `4${randomBytes(3).readUIntBE(0, 3)}.5`
        const own = await serve()
        const answer = await exec(own, `env -i setsid sleep ${marker} > /dev/null 2>&1 < /dev/null & echo started`)
        expect(answer).to.include({exit_code: 0, text: 'started\n'})
        await own.close()
        expect(processesWith(`sleep\0${marker}`)).to.deep.equal([])
      })
    })
  }
}

describe('ak exec serve --sandbox when it cannot run', () => {
  let workspace: string
  before(async () => {
    workspace = await realpath(await mkdtemp(path.join(tmpdir(), 'ak-sandbox-flags-')))
  })
  after(async () => {
    await rm(workspace, {recursive: true, force: true})
  })

  const serve = (args: string[], env: NodeJS.ProcessEnv = process.env) =>
    spawnSync(process.execPath, [RUN_JS, 'exec', 'serve', '--workspace', workspace, '--level', 'terminal', ...args], {
      input: '',
      encoding: 'utf8',
      env,
    })

  it('exits 2 saying how to install bubblewrap when bwrap is not on PATH', () => {
    const run = serve(['--sandbox', 'workspace-write'], {...process.env, PATH: '/nonexistent'})
    expect(run.status, run.stderr).to.equal(2)
    expect(run.stderr).to.contain('bubblewrap (bwrap) is not on PATH').and.contain('apt-get install bubblewrap')
  })

  it('exits 2 saying why when bubblewrap cannot create namespaces here', async () => {
    const fakeBin = await mkdtemp(path.join(tmpdir(), 'ak-fake-bwrap-'))
    try {
      const message = 'bwrap: No permissions to create new namespace, likely because the kernel does not allow non-privileged user namespaces.'
      await writeFile(path.join(fakeBin, 'bwrap'), `#!/bin/sh\n[ "$1" = --version ] && echo "bubblewrap 0.0" && exit 0\necho '${message}' >&2\nexit 1\n`, {mode: 0o755})
      const run = serve(['--sandbox', 'read-only'], {...process.env, PATH: `${fakeBin}:/usr/bin:/bin`})
      expect(run.status, run.stderr).to.equal(2)
      expect(run.stderr).to.contain('cannot create the sandbox here').and.contain(message).and.contain('user namespaces')
    } finally {
      await rm(fakeBin, {recursive: true, force: true})
    }
  })

  it('exits 2 naming the version needed when bubblewrap is too old, never running a weaker sandbox', async function () {
    const realBwrap = findBwrap(process.env.PATH)
    if (!realBwrap) {
      console.log('      skipped: bubblewrap is not installed, so an old one cannot be imitated with it')
      this.skip()
    }
    const fakeBin = await mkdtemp(path.join(tmpdir(), 'ak-old-bwrap-'))
    try {
      // An old bubblewrap: it says its version, and would run a sandbox without the options it lacks.
      await writeFile(
        path.join(fakeBin, 'bwrap'),
        `#!/bin/sh\n[ "$1" = --version ] && echo "bubblewrap 0.6.1" && exit 0\nexec ${realBwrap} "$@"\n`,
        {mode: 0o755},
      )
      const old = serve(['--sandbox', 'workspace-write'], {...process.env, PATH: `${fakeBin}:/usr/bin:/bin`})
      expect(old.status, old.stderr).to.equal(2)
      expect(old.stderr).to.contain('bubblewrap 0.6.1, too old').and.contain(`needs bubblewrap ${MIN_BWRAP_VERSION} or later`)
      // One whose version cannot be read, and which does not know --disable-userns.
      await writeFile(
        path.join(fakeBin, 'bwrap'),
        '#!/bin/sh\n[ "$1" = --version ] && echo "bubblewrap" && exit 0\necho "bwrap: Unknown option --disable-userns" >&2\nexit 1\n',
        {mode: 0o755},
      )
      const unknown = serve(['--sandbox', 'read-only'], {...process.env, PATH: `${fakeBin}:/usr/bin:/bin`})
      expect(unknown.status, unknown.stderr).to.equal(2)
      expect(unknown.stderr).to.contain(`needs bubblewrap ${MIN_BWRAP_VERSION} or later`)
    } finally {
      await rm(fakeBin, {recursive: true, force: true})
    }
  })

  it('exits 2 for an unknown mode and for --sandbox-network without a sandbox', () => {
    const unknown = serve(['--sandbox', 'danger-full-access'])
    expect(unknown.status).to.equal(2)
    expect(unknown.stderr).to.contain('workspace-write')
    const network = serve(['--sandbox-network'])
    expect(network.status).to.equal(2)
    expect(network.stderr).to.contain('--sandbox-network').and.contain('--sandbox workspace-write')
  })
})

describe(`ak exec call --sandbox${SKIP_REASON}`, function () {
  this.timeout(120_000)
  let workspace: string
  let outside: string
  before(async function () {
    if (!SANDBOX.ok) this.skip()
    workspace = await realpath(await mkdtemp(path.join(tmpdir(), 'ak-call-sandbox-')))
    outside = await mkdtemp(path.join(OUTSIDE_ROOT, 'ak-call-sandbox-outside-'))
  })
  after(async () => {
    if (workspace) await rm(workspace, {recursive: true, force: true})
    if (outside) await rm(outside, {recursive: true, force: true})
  })

  // Asynchronous, so that the test's own loopback listener can answer meanwhile.
  const call = (cmd: string, extra: string[]) =>
    runToExit(RUN_JS, ['exec', 'call', 'exec_command', '--workspace', workspace, '--level', 'terminal', '--json', '--arg', `cmd=${JSON.stringify(cmd)}`, ...extra], {
      env: {SHELL: '/bin/bash'},
    })
  const answer = (run: {stdout: string}) => (JSON.parse(run.stdout) as {structuredContent: {exit_code: number; text: string}}).structuredContent

  it('confines the command as ak exec serve --sandbox does: writes inside the workspace only', async () => {
    const inside = await call('echo in > inside.txt', ['--sandbox', 'workspace-write'])
    expect(inside.code, inside.stderr).to.equal(0)
    expect(answer(inside).exit_code).to.equal(0)
    expect(await readFile(path.join(workspace, 'inside.txt'), 'utf8')).to.equal('in\n')
    const out = await call(`echo out > ${outside}/x.txt`, ['--sandbox', 'workspace-write'])
    expect(answer(out).exit_code).not.to.equal(0)
    expect(answer(out).text).to.match(/Read-only file system|Permission denied/)
    // Without the flag the same command writes there: the flag is what confined it.
    const unconfined = await call(`echo out > ${outside}/x.txt`, [])
    expect(answer(unconfined).exit_code).to.equal(0)
  })

  it('has no network inside the sandbox unless --sandbox-network', async () => {
    const listener = createServer((socket) => socket.end('reached\n'))
    await new Promise<void>((resolve) => listener.listen(0, '127.0.0.1', resolve))
    const {port} = listener.address() as AddressInfo
    try {
      const probe = `exec 3<>/dev/tcp/127.0.0.1/${port} && cat <&3`
      const offline = await call(probe, ['--sandbox', 'workspace-write'])
      expect(answer(offline).text).not.to.contain('reached')
      const online = await call(probe, ['--sandbox', 'workspace-write', '--sandbox-network'])
      expect(answer(online).text).to.contain('reached')
    } finally {
      listener.close()
    }
  })
})
