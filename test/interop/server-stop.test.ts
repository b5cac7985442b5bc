import {expect} from 'chai'
import {randomInt} from 'node:crypto'
import {mkdtemp, readFile, readdir, rm, writeFile} from 'node:fs/promises'
import {tmpdir} from 'node:os'
import path from 'node:path'

import {connectHttp} from '../helpers/clients.js'
import {eventually} from '../helpers/codex-fixtures.js'
import {waitUntilGone} from '../helpers/processes.js'
import {
  type ServerProcess,
  initializeRaw,
  killPids,
  pidsRunning,
  processGroupMembers,
  startServerProcess,
} from '../helpers/server-process.js'

/**
 * A command whose background child leaves everything ak can trace it by: `env -i` drops the
 * environment tag, `setsid` the session and process group, and its parent shell exits at once.
 * It still holds the command's output pipe. `marker` is the unique sleep time that finds it.
 */
function escapingCommand(marker: string): string {
  return `env -i setsid sleep ${marker} & echo started`
}

/** A unique `sleep` argument (seconds, far longer than any test). */
function newMarker(): string {
  return String(3_000_000 + randomInt(1_000_000))
}

const endings = [
  {name: 'stdin closes', end: (server: ServerProcess) => server.child.stdin.end()},
  {name: 'SIGTERM arrives', end: (server: ServerProcess) => server.child.kill('SIGTERM')},
  {name: 'SIGINT arrives', end: (server: ServerProcess) => server.child.kill('SIGINT')},
  // A closed terminal sends SIGHUP to its foreground process group.
  {name: 'SIGHUP reaches its process group', end: (server: ServerProcess) => process.kill(-server.child.pid!, 'SIGHUP')},
]

describe('ak exec serve stops whatever its commands did', () => {
  let workspace: string
  const leftovers: string[] = []

  before(async () => {
    workspace = await mkdtemp(path.join(tmpdir(), 'ak-stop-'))
  })
  after(async () => {
    for (const marker of leftovers) killPids(pidsRunning(marker))
    await rm(workspace, {recursive: true, force: true})
  })

  for (const {name, end} of endings) {
    it(`over stdio exits 0 when ${name}, with an escaped process holding a command's output`, async () => {
      const marker = newMarker()
      leftovers.push(marker)
      const server = startServerProcess(['exec', 'serve', '--level', 'terminal', '--workspace', workspace], {cwd: workspace})
      await initializeRaw(server)
      server.send({jsonrpc: '2.0', id: 2, method: 'tools/call', params: {name: 'exec_command', arguments: {cmd: escapingCommand(marker), yield_time_ms: 5000}}})
      expect(JSON.stringify(await server.response(2))).to.contain('started')
      const pidFile = path.join(workspace, `running-${marker}.pid`)
      server.send({jsonrpc: '2.0', id: 3, method: 'tools/call', params: {name: 'exec_command', arguments: {cmd: `echo $$ > ${pidFile}; exec sleep 300`, yield_time_ms: 250}}})
      await server.response(3)
      let running = 0
      await eventually(async () => (running = Number(await readFile(pidFile, 'utf8').catch(() => ''))) > 0)
      expect(pidsRunning(marker), 'the escaped sleep').to.have.length(1)
      end(server)
      const exit = await server.exited()
      expect(exit, `still running; stderr:\n${server.stderr()}`).to.deep.equal({code: 0, signal: null})
      expect(await waitUntilGone(running)).to.equal(true)
      await eventually(() => pidsRunning(marker).length === 0).catch(() =>
        expect.fail(`the escaped processes ${pidsRunning(marker).join(', ')} still run; stderr:\n${server.stderr()}`),
      )
      expect(processGroupMembers(server.child.pid!)).to.deep.equal([])
    })
  }

  for (const {name, end} of endings.filter((ending) => ending.name !== 'stdin closes')) {
    it(`over --http exits 0 when ${name}, with an escaped process holding a command's output`, async () => {
      const marker = newMarker()
      leftovers.push(marker)
      const token = 'stop-test-token'
      const server = startServerProcess(['exec', 'serve', '--level', 'terminal', '--workspace', workspace, '--http', '127.0.0.1:0'], {
        cwd: workspace,
        env: {AGENTEXEC_TOKEN: token},
      })
      await eventually(() => /listening on http:\S+/.test(server.stderr()))
      const url = /listening on (http:\S+)/.exec(server.stderr())![1]!
      for (const line of ['v1 (2025 era)', 'v2 (2026-07-28)'] as const) {
        const client = await connectHttp(line, url, {token})
        const answer = await client.call('exec_command', {cmd: escapingCommand(marker), yield_time_ms: 5000})
        expect(answer.text).to.contain('started')
        await client.close()
      }
      expect(pidsRunning(marker), 'the escaped sleeps').to.have.length(2)
      end(server)
      const exit = await server.exited()
      expect(exit, `still running; stderr:\n${server.stderr()}`).to.deep.equal({code: 0, signal: null})
      await eventually(() => pidsRunning(marker).length === 0).catch(() =>
        expect.fail(`the escaped processes ${pidsRunning(marker).join(', ')} still run; stderr:\n${server.stderr()}`),
      )
      expect(processGroupMembers(server.child.pid!)).to.deep.equal([])
    })
  }
})

/**
 * A command that ignores SIGTERM (the disposition passes to what it execs), so stopping it takes
 * the whole kill grace and then SIGKILL. `marker` is the unique sleep time that finds it.
 */
function stubbornCommand(marker: string): string {
  return `trap '' TERM; exec sleep ${marker}`
}

describe('ak exec serve finishes a stop it has begun, whatever signal comes meanwhile', () => {
  let workspace: string
  const leftovers: string[] = []

  before(async () => {
    workspace = await mkdtemp(path.join(tmpdir(), 'ak-stop-again-'))
  })
  after(async () => {
    for (const marker of leftovers) killPids(pidsRunning(marker))
    await rm(workspace, {recursive: true, force: true})
  })

  const stopsAgain = [
    // The official TypeScript client's close(): stdin ends, SIGTERM follows if the server is still there.
    {name: 'stdin closes, then SIGTERM arrives 300 ms later', first: (server: ServerProcess) => server.child.stdin.end()},
    {name: 'SIGTERM arrives, then another 300 ms later', first: (server: ServerProcess) => server.child.kill('SIGTERM')},
  ]
  for (const {name, first} of stopsAgain) {
    it(`over stdio leaves no command running when ${name}`, async () => {
      const marker = newMarker()
      leftovers.push(marker)
      const server = startServerProcess(['exec', 'serve', '--level', 'terminal', '--workspace', workspace], {cwd: workspace})
      await initializeRaw(server)
      server.send({jsonrpc: '2.0', id: 2, method: 'tools/call', params: {name: 'exec_command', arguments: {cmd: stubbornCommand(marker), yield_time_ms: 250}}})
      await server.response(2)
      await eventually(() => pidsRunning(marker).length === 1)
      first(server)
      await new Promise((resolve) => setTimeout(resolve, 300))
      server.child.kill('SIGTERM')
      const exit = await server.exited()
      expect(exit, `still running; stderr:\n${server.stderr()}`).to.deep.equal({code: 0, signal: null})
      expect(pidsRunning(marker), `commands left running; stderr:\n${server.stderr()}`).to.deep.equal([])
    })
  }

  it('over --http leaves no command running when SIGTERM arrives, then another 300 ms later', async () => {
    const marker = newMarker()
    leftovers.push(marker)
    const token = 'stop-again-token'
    const server = startServerProcess(['exec', 'serve', '--level', 'terminal', '--workspace', workspace, '--http', '127.0.0.1:0'], {
      cwd: workspace,
      env: {AGENTEXEC_TOKEN: token},
    })
    await eventually(() => /listening on http:\S+/.test(server.stderr()))
    const url = /listening on (http:\S+)/.exec(server.stderr())![1]!
    const client = await connectHttp('v2 (2026-07-28)', url, {token})
    await client.call('exec_command', {cmd: stubbornCommand(marker), yield_time_ms: 250})
    await eventually(() => pidsRunning(marker).length === 1)
    server.child.kill('SIGTERM')
    await new Promise((resolve) => setTimeout(resolve, 300))
    server.child.kill('SIGTERM')
    const exit = await server.exited()
    expect(exit, `still running; stderr:\n${server.stderr()}`).to.deep.equal({code: 0, signal: null})
    expect(pidsRunning(marker), `commands left running; stderr:\n${server.stderr()}`).to.deep.equal([])
    await client.close().catch(() => undefined)
  })
})

describe('ak exec serve leaves the login profile it reads for the shell snapshot whole', () => {
  for (const {name, end} of endings) {
    it(`lets a profile that holds a lock run its EXIT trap when the server stops mid-capture (${name})`, async () => {
      const home = await mkdtemp(path.join(tmpdir(), 'ak-stop-home-'))
      const workspace = await mkdtemp(path.join(tmpdir(), 'ak-stop-'))
      try {
        // As pyenv's rehash does: a lock taken for the profile's run, removed by an EXIT trap.
        await writeFile(
          path.join(home, '.profile'),
          'trap \'rm -f "$HOME/lock.$$"\' EXIT\n: > "$HOME/lock.$$"\necho $$ >> "$HOME/profile-runs"\nsleep 30\n',
        )
        const server = startServerProcess(['exec', 'serve', '--level', 'terminal', '--workspace', workspace], {
          cwd: workspace,
          env: {HOME: home, SHELL: '/bin/bash'},
        })
        await initializeRaw(server)
        // The first command runs in a login shell of its own and starts the snapshot's capture.
        server.send({jsonrpc: '2.0', id: 2, method: 'tools/call', params: {name: 'exec_command', arguments: {cmd: 'echo hi', yield_time_ms: 250}}})
        await server.response(2)
        const runs = async () => (await readFile(path.join(home, 'profile-runs'), 'utf8').catch(() => '')).trim().split('\n').filter(Boolean)
        await eventually(async () => (await runs()).length === 2)
        const locks = async () => (await readdir(home)).filter((entry) => entry.startsWith('lock.'))
        expect(await locks()).to.have.length(2)
        end(server)
        const exit = await server.exited()
        expect(exit, `still running; stderr:\n${server.stderr()}`).to.deep.equal({code: 0, signal: null})
        expect(await locks(), `profile runs ${(await runs()).join(', ')}; stderr:\n${server.stderr()}`).to.deep.equal([])
        for (const pid of await runs()) expect(await waitUntilGone(Number(pid))).to.equal(true)
      } finally {
        await rm(home, {recursive: true, force: true})
        await rm(workspace, {recursive: true, force: true})
      }
    })
  }
})
