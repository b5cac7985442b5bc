/**
 * The journal of changes and `ak exec history`/`undo` (DESIGN §4.10), through real clients of the
 * built server and the real CLI: what is recorded, in which order, what an undo gives back, what
 * it refuses, where the journal lives, what a crash leaves, and how big the journal grows.
 */
import {expect} from 'chai'
import {spawnSync} from 'node:child_process'
import {createHash} from 'node:crypto'
import {chmod, lstat, mkdir, mkdtemp, readFile, readdir, realpath, rm, writeFile} from 'node:fs/promises'
import {createServer} from 'node:http'
import type {AddressInfo} from 'node:net'
import {tmpdir} from 'node:os'
import path from 'node:path'

import {createAgentExec} from '../../src/index.js'
import {CLIENT_LINES, RUN_JS, type TestClient, connectStdio, connectHttp} from '../helpers/clients.js'
import {startHttpServer} from '../helpers/http-server.js'
import {initializeRaw, startServerProcess} from '../helpers/server-process.js'

const MIB = 1024 * 1024

/** Every entry below `dir` (folders end in `/`) with its mode and, for files, a digest of its bytes. */
async function snapshot(dir: string): Promise<Record<string, string>> {
  const entries: Record<string, string> = {}
  for (const name of (await readdir(dir, {recursive: true})).sort()) {
    const info = await lstat(path.join(dir, name))
    const mode = (info.mode & 0o7777).toString(8)
    entries[info.isDirectory() ? `${name}/` : name] = info.isDirectory()
      ? mode
      : `${mode} ${createHash('sha256').update(await readFile(path.join(dir, name))).digest('hex')}`
  }
  return entries
}

/** Runs the real CLI (`node bin/run.js …`) and returns its exit code and output. */
function ak(args: string[], env: Record<string, string>): {status: number | null; stdout: string; stderr: string} {
  const result = spawnSync(process.execPath, [RUN_JS, ...args], {env: {...process.env, ...env}, encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe']})
  return {status: result.status, stdout: result.stdout, stderr: result.stderr}
}

interface HistoryJson {
  workspace: string
  changes: Array<{id: number; tool: string; state: string; bytes: number; files: Array<{path: string; operation: string; movedWith?: string}>}>
}

describe(`the journal of changes and ak exec history/undo, client ${CLIENT_LINES[1]}`, function () {
  this.timeout(600_000)
  let base: string
  let ws: string
  let state: string
  let env: Record<string, string>
  const serve = (extra: string[] = []) => connectStdio(CLIENT_LINES[1], ['exec', 'serve', '--workspace', ws, '--level', 'files', '--quiet', ...extra], {env})
  const history = (): HistoryJson => {
    const result = ak(['exec', 'history', '--workspace', ws, '--json'], env)
    expect(result.status, result.stderr).to.equal(0)
    return JSON.parse(result.stdout) as HistoryJson
  }
  const undo = (extra: string[] = []) => ak(['exec', 'undo', '--workspace', ws, ...extra], env)
  const edit = async (client: TestClient, args: Record<string, unknown>) => {
    const answer = await client.call('edit', args)
    expect(answer.isError, answer.text).to.equal(false)
  }

  beforeEach(async () => {
    base = await realpath(await mkdtemp(path.join(tmpdir(), 'ak-journal-')))
    ws = path.join(base, 'ws')
    state = path.join(base, 'state')
    await mkdir(path.join(ws, 'src'), {recursive: true})
    await mkdir(state, {mode: 0o700})
    env = {XDG_STATE_HOME: state}
    await writeFile(path.join(ws, 'notes.txt'), 'first line\r\nsecond line\r\n')
    await chmod(path.join(ws, 'notes.txt'), 0o640)
    await writeFile(path.join(ws, 'src', 'run.sh'), '#!/bin/sh\necho old\n')
    await chmod(path.join(ws, 'src', 'run.sh'), 0o755)
  })
  afterEach(async () => {
    await rm(base, {recursive: true, force: true})
  })

  it('lists three changes (an edit, a created file, a patch that deletes one file and moves another) newest first, and three undos, the last after a server restart, give back the workspace byte for byte, modes included', async () => {
    await writeFile(path.join(ws, 'old.txt'), 'obsolete\n')
    await chmod(path.join(ws, 'old.txt'), 0o600)
    const states = [await snapshot(ws)]
    const client = await serve()
    try {
      await edit(client, {path: 'notes.txt', old_text: 'second line', new_text: 'SECOND LINE'})
      states.push(await snapshot(ws))
      await edit(client, {path: 'src/new.txt', old_text: '', new_text: 'a new file\n'})
      states.push(await snapshot(ws))
      const patch = [
        '*** Begin Patch',
        '*** Delete File: old.txt',
        '*** Update File: src/run.sh',
        '*** Move to: src/launch.sh',
        '@@',
        ' #!/bin/sh',
        '-echo old',
        '+echo moved',
        '*** End Patch',
      ].join('\n')
      await edit(client, {patch})
      states.push(await snapshot(ws))
    } finally {
      await client.close()
    }
    expect(Object.keys(states[3]!)).to.deep.equal(['notes.txt', 'src/', 'src/launch.sh', 'src/new.txt'])
    const listed = history()
    expect(listed.workspace).to.equal(ws)
    const byPath = (files: HistoryJson['changes'][number]['files']) => [...files].sort((a, b) => a.path.localeCompare(b.path))
    expect(listed.changes.map((change) => [change.id, change.tool, change.state, byPath(change.files)])).to.deep.equal([
      [
        3,
        'edit',
        'applied',
        [
          {path: 'old.txt', operation: 'deleted'},
          {path: 'src/launch.sh', operation: 'moved-to', movedWith: 'src/run.sh'},
          {path: 'src/run.sh', operation: 'moved-from', movedWith: 'src/launch.sh'},
        ],
      ],
      [2, 'edit', 'applied', [{path: 'src/new.txt', operation: 'added'}]],
      [1, 'edit', 'applied', [{path: 'notes.txt', operation: 'updated'}]],
    ])
    expect(listed.changes.map((change) => change.bytes)).to.deep.equal([9 + 19, 0, 25])
    const text = ak(['exec', 'history', '--workspace', ws], env)
    expect(text.stdout.split('\n').slice(1, 4).map((line) => line.split(/\s+/)[0])).to.deep.equal(['3', '2', '1'])
    expect(text.stdout).to.contain('deleted old.txt, moved src/run.sh → src/launch.sh')

    const first = undo(['--yes'])
    expect(first.status, first.stderr).to.equal(0)
    expect(first.stderr).to.contain('move src/launch.sh back to src/run.sh (19 B, mode 755)').and.to.contain('recreate old.txt (9 B, mode 600; the change deleted it)')
    expect(await snapshot(ws)).to.deep.equal(states[2])
    const second = undo(['--yes'])
    expect(second.status, second.stderr).to.equal(0)
    expect(second.stderr).to.contain('remove src/new.txt (the change created it)')
    expect(await snapshot(ws)).to.deep.equal(states[1])
    // A server started and stopped in between: the journal is the same one.
    const restarted = await serve()
    await restarted.close()
    const third = undo(['--yes'])
    expect(third.status, third.stderr).to.equal(0)
    expect(await snapshot(ws)).to.deep.equal(states[0])

    const after = history()
    expect(after.changes.map((change) => [change.id, change.tool, change.state])).to.deep.equal([
      [6, 'undo', 'applied'],
      [5, 'undo', 'applied'],
      [4, 'undo', 'applied'],
      [3, 'edit', 'undone'],
      [2, 'edit', 'undone'],
      [1, 'edit', 'undone'],
    ])
    // An undo is a change of its own: undoing the undos down to the first (4) puts the three changes back.
    const redo = undo(['4', '--yes'])
    expect(redo.status, redo.stderr).to.equal(0)
    expect(await snapshot(ws)).to.deep.equal(states[3])
    // Down to an id: every change from the newest down to 1 is reverted at once.
    const all = undo(['1', '--yes'])
    expect(all.status, all.stderr).to.equal(0)
    expect(await snapshot(ws)).to.deep.equal(states[0])
  })

  it('refuses an undo over a file changed since, with exit code 1 naming it and why, and changes nothing', async () => {
    const client = await serve()
    try {
      await edit(client, {path: 'notes.txt', old_text: 'first', new_text: 'FIRST'})
      await edit(client, {path: 'src/run.sh', old_text: 'old', new_text: 'new'})
    } finally {
      await client.close()
    }
    await writeFile(path.join(ws, 'src', 'run.sh'), '#!/bin/sh\necho changed by hand\n')
    await chmod(path.join(ws, 'notes.txt'), 0o600)
    const before = await snapshot(ws)
    const refused = undo(['1', '--yes'])
    expect(refused.status).to.equal(1)
    expect(refused.stderr).to.contain('src/run.sh: its content changed since').and.to.contain('notes.txt: its mode changed since (now 600, was 640)').and.to.contain('Nothing was changed')
    expect(await snapshot(ws)).to.deep.equal(before)
    expect(history().changes.map((change) => [change.id, change.state])).to.deep.equal([
      [2, 'applied'],
      [1, 'applied'],
    ])
    // Without --yes and without a terminal to ask on, nothing is done either.
    const unasked = undo([])
    expect(unasked.status).to.equal(2)
    expect(unasked.stderr).to.contain('Pass --yes')
  })

  it('refuses an undo that would write a path protected since the change (a folder that became a repository), naming it, unless --allow-protected names it', async () => {
    const planted = '[core]\n\trepositoryformatversion = 0\n\tbare = false\n\tfsmonitor = "touch /tmp/ak-undo-planted; false"\n'
    const harmless = '[core]\n\trepositoryformatversion = 0\n\tbare = false\n'
    const client = await serve()
    try {
      // Not protected while `stage` is an ordinary folder.
      await edit(client, {path: 'stage/config', old_text: '', new_text: planted})
      await edit(client, {path: 'stage/config', old_text: planted, new_text: harmless})
    } finally {
      await client.close()
    }
    // Something else (a command) turns `stage` into a repository around the harmless config.
    await mkdir(path.join(ws, 'stage', 'objects'), {recursive: true})
    await mkdir(path.join(ws, 'stage', 'refs', 'heads'), {recursive: true})
    await writeFile(path.join(ws, 'stage', 'HEAD'), 'ref: refs/heads/main\n')
    const before = await snapshot(ws)
    const refused = undo(['--yes'])
    expect(refused.status, refused.stderr).to.equal(1)
    expect(refused.stderr).to.contain('stage/config').and.to.contain('protected').and.to.contain('--allow-protected stage/config').and.to.contain('Nothing was changed')
    expect(await snapshot(ws)).to.deep.equal(before)
    expect(history().changes.map((change) => [change.id, change.state])).to.deep.equal([
      [2, 'applied'],
      [1, 'applied'],
    ])
    // The operator who means it names the path.
    const allowed = undo(['--yes', '--allow-protected', 'stage/config'])
    expect(allowed.status, allowed.stderr).to.equal(0)
    expect(await readFile(path.join(ws, 'stage', 'config'), 'utf8')).to.equal(planted)
  })

  it('adds nothing to the workspace, and nothing readable by others: folders 0700, files 0600', async () => {
    const client = await serve()
    try {
      await edit(client, {path: 'notes.txt', old_text: 'first', new_text: 'FIRST'})
      await edit(client, {path: 'src/b.txt', old_text: '', new_text: 'b'})
    } finally {
      await client.close()
    }
    expect(Object.keys(await snapshot(ws))).to.deep.equal(['notes.txt', 'src/', 'src/b.txt', 'src/run.sh'])
    const kept = await readdir(state, {recursive: true})
    expect(kept.length).to.be.greaterThan(4)
    for (const name of kept) {
      const info = await lstat(path.join(state, name))
      expect(info.uid, name).to.equal(process.getuid!())
      expect(info.mode & 0o7777, name).to.equal(info.isDirectory() ? 0o700 : 0o600)
    }
  })

  it('never leaves a change that history does not show when the server is killed (-9) during an edit', async () => {
    const big = path.join(ws, 'big.txt')
    const original = `${'x'.repeat(100)}\n`.repeat(80_000) + 'marker 0\n'
    await writeFile(big, original)
    let changed = 0
    for (let trial = 0; trial < 12; trial++) {
      const text = await readFile(big, 'utf8')
      const counter = Number(/marker (\d+)/.exec(text)![1])
      const server = startServerProcess(['exec', 'serve', '--workspace', ws, '--level', 'files', '--quiet'], {cwd: base, env})
      await initializeRaw(server)
      server.send({jsonrpc: '2.0', id: 1, method: 'tools/call', params: {name: 'edit', arguments: {path: 'big.txt', old_text: `marker ${counter}`, new_text: `marker ${counter + 1}`}}})
      await new Promise((resolve) => setTimeout(resolve, 20 + ((trial * 97) % 1200)))
      process.kill(server.child.pid!, 'SIGKILL')
      await server.exited()
      const now = await readFile(big)
      const listed = history()
      expect(listed.changes.filter((change) => change.state !== 'applied' && change.state !== 'undone'), `trial ${trial}`).to.deep.equal([])
      if (!now.equals(Buffer.from(text))) {
        changed++
        expect(listed.changes[0]?.files, `trial ${trial}: the edit took effect, so history shows it`).to.deep.equal([{path: 'big.txt', operation: 'updated'}])
        // And it is the change that left the file as it is (undo checks that), so undoing it gives back the file before.
        const undone = undo(['--yes'])
        expect(undone.status, undone.stderr).to.equal(0)
        expect(await readFile(big, 'utf8')).to.equal(text)
      }
    }
    console.log(`      the edit had taken effect in ${changed} of 12 kills`)
  })

  it('keeps 120 edits of a 4 MiB file under its bound plus one change, and the newest change can still be undone', async () => {
    const big = path.join(ws, 'big.txt')
    const line = `${'y'.repeat(127)}\n`
    await writeFile(big, `counter 0\n${line.repeat(4 * MIB / 128)}`)
    const boundMib = 16
    const client = await serve(['--journal-max-mib', String(boundMib)])
    let beforeLast = ''
    try {
      for (let i = 0; i < 120; i++) {
        if (i === 119) beforeLast = await readFile(big, 'utf8')
        await edit(client, {path: 'big.txt', old_text: `counter ${i}\n`, new_text: `counter ${i + 1}\n`})
      }
    } finally {
      await client.close()
    }
    const journalBytes = async () => {
      let total = 0
      for (const name of await readdir(state, {recursive: true})) {
        const info = await lstat(path.join(state, name))
        if (info.isFile()) total += info.size
      }
      return total
    }
    const oneChange = 4 * MIB + 64 * 1024
    expect(await journalBytes()).to.be.at.most(boundMib * MIB + oneChange)
    const listed = history()
    expect(listed.changes[0]!.id).to.equal(120)
    expect(listed.changes.length).to.be.within(3, 4)
    const undone = undo(['--yes'])
    expect(undone.status, undone.stderr).to.equal(0)
    expect(await readFile(big, 'utf8')).to.equal(beforeLast)
    expect(await journalBytes()).to.be.at.most(boundMib * MIB + oneChange)
  })

  it('journals the edits of the HTTP server as those of stdio', async () => {
    const token = 'journal-test-token'
    const server = await startHttpServer(RUN_JS, ['exec', 'serve', '--workspace', ws, '--level', 'files', '--http', '127.0.0.1:0'], {env: {...env, AGENTEXEC_TOKEN: token}})
    try {
      const client = await connectHttp(CLIENT_LINES[0], server.url, {token})
      try {
        await edit(client, {path: 'notes.txt', old_text: 'first', new_text: 'FIRST'})
      } finally {
        await client.close()
      }
    } finally {
      await server.stop()
    }
    expect(history().changes.map((change) => [change.id, change.files])).to.deep.equal([[1, [{path: 'notes.txt', operation: 'updated'}]]])
    expect(undo(['--yes']).status).to.equal(0)
    expect(await readFile(path.join(ws, 'notes.txt'), 'utf8')).to.equal('first line\r\nsecond line\r\n')
  })

  it('journals the edits of createAgentExec in the state folder it is given, and none with journal: false', async () => {
    const folder = path.join(base, 'library-state')
    for (const [journal, word] of [[{folder, maxBytes: MIB}, 'first'], [false, 'second']] as const) {
      const exec = createAgentExec({workspace: ws, level: 'files', journal})
      const host = createServer((req, res) => void exec.handle(req, res))
      await new Promise<void>((resolve) => host.listen(0, '127.0.0.1', resolve))
      try {
        const client = await connectHttp(CLIENT_LINES[1], `http://127.0.0.1:${(host.address() as AddressInfo).port}/`)
        try {
          await edit(client, {path: 'notes.txt', old_text: word, new_text: word.toUpperCase()})
        } finally {
          await client.close()
        }
      } finally {
        await exec.close()
        await new Promise((resolve) => host.close(resolve))
      }
    }
    const listed = ak(['exec', 'history', '--workspace', ws, '--journal-folder', folder, '--json'], env)
    expect(listed.status, listed.stderr).to.equal(0)
    expect((JSON.parse(listed.stdout) as HistoryJson).changes.map((change) => [change.id, change.state])).to.deep.equal([[1, 'applied']])
    expect(history().changes, 'nothing in the default state folder').to.deep.equal([])
    expect(() => createAgentExec({workspace: ws, level: 'files', journal: {maxBytes: -1}})).to.throw(/journal.maxBytes must be a whole number/)
  })

  it('keeps no history with --journal-max-mib 0, leaving nothing but empty folders in the state folder', async () => {
    const client = await serve(['--journal-max-mib', '0'])
    try {
      await edit(client, {path: 'notes.txt', old_text: 'first', new_text: 'FIRST'})
    } finally {
      await client.close()
    }
    expect(history().changes).to.deep.equal([])
    const files = []
    for (const name of await readdir(state, {recursive: true})) if ((await lstat(path.join(state, name))).isFile() && !/workspace|last-id|layout/.test(name)) files.push(name)
    expect(files).to.deep.equal([])
  })
})
