import {expect} from 'chai'
import {execFileSync, spawnSync} from 'node:child_process'
import {createHash} from 'node:crypto'
import {readFileSync} from 'node:fs'
import {chmod, chown, mkdir, mkdtemp, readFile, readdir, realpath, rm, symlink, truncate, writeFile} from 'node:fs/promises'
import {tmpdir} from 'node:os'
import path from 'node:path'

import {IGNORE_FILE_MAX_BYTES, IGNORE_FILE_MAX_LINE_BYTES} from '../../src/exec/limits.js'
import {CLIENT_LINES, type TestClient, connectStdio} from '../helpers/clients.js'
import {serverFilesOrSkip, waitUntilGone, writeEntryAs} from '../helpers/processes.js'

// Files ak opens because of their name (edit locks, temporary files, ignore files), planted by
// whoever can write in the workspace, against the built server through a real client.

const SERVE = ['exec', 'serve', '--level', 'files', '--quiet', '--workspace']

/** A pid no process can have: one above the system's highest (Linux's pid_max). */
function endedPid(): number {
  const pidMax = Number(readFileSync('/proc/sys/kernel/pid_max', 'utf8').trim())
  return Number.isSafeInteger(pidMax) ? pidMax + 1 : (spawnSync('true').pid as number)
}

/** The name of the replace lock of the entry `name`, as ak servers name it. */
function lockNameOf(name: string): string {
  return `.ak-edit-lock-${createHash('sha256').update(name).digest('hex').slice(0, 16)}`
}

/** Resident memory of a process now, and at its peak, in KiB (/proc/<pid>/status). */
function memoryKb(pid: number): {now: number; peak: number} {
  const status = readFileSync(`/proc/${pid}/status`, 'utf8')
  return {now: Number(/^VmRSS:\s+(\d+) kB/m.exec(status)![1]), peak: Number(/^VmHWM:\s+(\d+) kB/m.exec(status)![1])}
}

/** Runs a command; whether it succeeded (for set-ups that need privileges the machine may lack). */
function tryRun(command: string, args: string[]): boolean {
  return spawnSync(command, args, {stdio: 'ignore'}).status === 0
}

describe(`a stale edit lock shared by two servers, client ${CLIENT_LINES[0]}`, function () {
  this.timeout(600_000)
  let ws: string
  let clients: TestClient[]

  before(async () => {
    ws = await realpath(await mkdtemp(path.join(tmpdir(), 'ak-stale-lock-')))
    clients = await Promise.all([0, 1].map(() => connectStdio(CLIENT_LINES[0], [...SERVE, ws])))
  })

  after(async () => {
    await Promise.all(clients.map((client) => client.close()))
    await rm(ws, {recursive: true, force: true})
  })

  it('never loses an edit answered as done when both servers take over a dead process\'s lock at once (300 trials)', async () => {
    const trials = 300
    const file = path.join(ws, 'x.txt')
    const lock = path.join(ws, lockNameOf('x.txt'))
    const lost: string[] = []
    let bothDone = 0
    const neitherDone: number[] = []
    for (let trial = 0; trial < trials; trial++) {
      await writeFile(file, 'alpha\nbeta\n')
      await writeFile(lock, `${endedPid()}\n`)
      const [first, second] = await Promise.all([
        clients[0]!.call('edit', {path: 'x.txt', old_text: 'alpha', new_text: 'ALPHA'}),
        clients[1]!.call('edit', {path: 'x.txt', old_text: 'beta', new_text: 'BETA'}),
      ])
      const final = await readFile(file, 'utf8')
      if (!first!.isError && !final.includes('ALPHA')) lost.push(`trial ${trial}: ALPHA lost (${JSON.stringify(final)})`)
      if (!second!.isError && !final.includes('BETA')) lost.push(`trial ${trial}: BETA lost (${JSON.stringify(final)})`)
      for (const answer of [first!, second!].filter((answer) => answer.isError)) expect(answer.text).to.contain('changed on disk')
      if (!first!.isError && !second!.isError) bothDone++
      if (first!.isError && second!.isError) neitherDone.push(trial)
    }
    expect(lost).to.deep.equal([])
    // Taking over the dead lock lets one of them through every time: the other edit passes in turn
    // or is refused as changed on disk (how often each happens depends on the machine's timing).
    expect(neitherDone, 'trials where both edits were refused').to.deep.equal([])
    console.log(`      both edits done, in turn, in ${bothDone} of ${trials} trials; one refused as changed on disk in the others`)
    expect((await readdir(ws)).filter((name) => name.startsWith('.ak-edit-')), 'no lock, claim or temporary file is left').to.deep.equal([])
  })
})

describe(`lock, temporary and ignore names planted as special files, client ${CLIENT_LINES[0]}`, function () {
  this.timeout(120_000)
  let ws: string
  let outside: string
  let client: TestClient
  let idleKb: number

  before(async () => {
    ws = await realpath(await mkdtemp(path.join(tmpdir(), 'ak-planted-')))
    outside = await realpath(await mkdtemp(path.join(tmpdir(), 'ak-planted-outside-')))
    await writeFile(path.join(outside, 'secret.txt'), `${endedPid()}\nsecret.txt\n`)
    client = await connectStdio(CLIENT_LINES[0], [...SERVE, ws])
    await writeFile(path.join(ws, 'warm.txt'), 'warm\n')
    await client.call('edit', {path: 'warm.txt', old_text: 'warm', new_text: 'WARM'})
    await client.call('search', {query: 'WARM'})
    idleKb = memoryKb(client.pid).now
  })

  after(async () => {
    await client?.close()
    await rm(ws, {recursive: true, force: true})
    await rm(outside, {recursive: true, force: true})
  })

  /** Plants `kind` at `target`: a FIFO, a link to /dev/zero, or a link to the outside file. */
  async function plant(target: string, kind: 'fifo' | 'zero' | 'outside'): Promise<void> {
    if (kind === 'fifo') execFileSync('mkfifo', [target])
    else await symlink(kind === 'zero' ? '/dev/zero' : path.join(outside, 'secret.txt'), target)
  }

  const kinds = ['fifo', 'zero', 'outside'] as const
  const what = {fifo: 'a FIFO', zero: 'a symbolic link', outside: 'a symbolic link'}

  it('answers an edit at once with an error naming a FIFO or link planted as its lock, while other calls go on', async () => {
    // Four folders of each kind: more than libuv's four threads, which a blocking open would hold.
    const edits: Array<Promise<{kind: string; answer: {text: string; isError: boolean}}>> = []
    for (const kind of kinds) {
      for (let index = 0; index < 4; index++) {
        const folder = `${kind}${index}`
        await mkdir(path.join(ws, folder))
        await writeFile(path.join(ws, folder, 'x.txt'), 'alpha\n')
        await plant(path.join(ws, folder, lockNameOf('x.txt')), kind)
        edits.push(client.call('edit', {path: `${folder}/x.txt`, old_text: 'alpha', new_text: 'ALPHA'}).then((answer) => ({kind, answer})))
      }
    }
    const [read, list] = await Promise.all([client.call('read', {path: 'warm.txt'}), client.call('list', {path: '.'})])
    expect(read.text).to.contain('WARM')
    expect(list.isError).to.equal(false)
    for (const {kind, answer} of await Promise.all(edits)) {
      expect(answer.isError, answer.text).to.equal(true)
      expect(answer.text).to.contain(lockNameOf('x.txt')).and.to.contain(`is ${what[kind as keyof typeof what]}`).and.to.contain('Remove it')
      expect(answer.text, 'refused at once, not after waiting for the lock').not.to.contain('Another process')
    }
    for (let index = 0; index < 4; index++) expect(await readFile(path.join(ws, `fifo${index}`, 'x.txt'), 'utf8')).to.equal('alpha\n')
    expect(await readFile(path.join(outside, 'secret.txt'), 'utf8')).to.equal(`${endedPid()}\nsecret.txt\n`)
    expect(memoryKb(client.pid).peak - idleKb, 'KiB of memory the server took over idle').to.be.below(32 * 1024)
  })

  it('edits beside FIFOs and links planted under temporary names, and leaves them and their targets alone', async () => {
    await mkdir(path.join(ws, 'temps'))
    await writeFile(path.join(ws, 'temps', 'x.txt'), 'alpha\n')
    const planted: string[] = []
    for (const pid of [endedPid(), process.pid]) {
      for (const [index, kind] of kinds.entries()) {
        const name = `.ak-edit-${pid}-${'0123456789abcde'}${index}.tmp`
        await plant(path.join(ws, 'temps', name), kind)
        planted.push(name)
      }
    }
    const answer = await client.call('edit', {path: 'temps/x.txt', old_text: 'alpha', new_text: 'ALPHA'})
    expect(answer.isError, answer.text).to.equal(false)
    expect(await readFile(path.join(ws, 'temps', 'x.txt'), 'utf8')).to.equal('ALPHA\n')
    expect((await readdir(path.join(ws, 'temps'))).sort()).to.deep.equal([...planted, 'x.txt'].sort())
    expect(await readFile(path.join(outside, 'secret.txt'), 'utf8')).to.equal(`${endedPid()}\nsecret.txt\n`)
  })

  it('answers with an error naming a stale lock that cannot be removed (immutable, a read-only mount)', async function () {
    await mkdir(path.join(ws, 'stuck'))
    await writeFile(path.join(ws, 'stuck', 'x.txt'), 'alpha\n')
    const lock = path.join(ws, 'stuck', lockNameOf('x.txt'))
    await writeFile(lock, `${endedPid()}\n`)
    const setups: Array<{name: string; on: () => boolean; off: () => void}> = [
      {name: 'immutable', on: () => tryRun('chattr', ['+i', lock]), off: () => tryRun('chattr', ['-i', lock])},
      {
        name: 'read-only bind mount',
        on: () => tryRun('mount', ['--bind', lock, lock]) && (tryRun('mount', ['-o', 'remount,bind,ro', lock]) || true),
        off: () => tryRun('umount', [lock]),
      },
    ]
    let tried = 0
    for (const setup of setups) {
      if (!setup.on()) {
        console.log(`      (skipped the ${setup.name} lock: this machine does not allow setting it up)`)
        continue
      }
      tried++
      try {
        const answer = await client.call('edit', {path: 'stuck/x.txt', old_text: 'alpha', new_text: 'ALPHA'})
        expect(answer.isError, `${setup.name}: ${answer.text}`).to.equal(true)
        expect(answer.text).to.contain(lockNameOf('x.txt')).and.to.contain('cannot be removed').and.to.contain('Remove it by hand')
      } finally {
        setup.off()
      }
    }
    if (tried === 0) this.skip()
    expect(await readFile(path.join(ws, 'stuck', 'x.txt'), 'utf8')).to.equal('alpha\n')
  })

  it("answers with an error naming another user's stale lock in a sticky folder, which it may not replace", async function () {
    // The server runs as `nobody` through setpriv, so the sticky bit binds it (root may replace anything).
    const nobody = 65534
    const server = serverFilesOrSkip(this, nobody)
    const base = await realpath(await mkdtemp(path.join(tmpdir(), 'ak-sticky-')))
    try {
      const sticky = path.join(base, 'ws', 'sticky')
      await mkdir(sticky, {recursive: true})
      await mkdir(path.join(base, 'home'))
      for (const folder of [base, path.join(base, 'ws'), path.join(base, 'home')]) await chmod(folder, 0o777)
      await chmod(sticky, 0o1777)
      await chown(path.join(base, 'home'), nobody, nobody)
      await writeFile(path.join(sticky, 'x.txt'), 'alpha\n')
      await chown(path.join(sticky, 'x.txt'), nobody, nobody)
      await writeFile(path.join(sticky, lockNameOf('x.txt')), `${endedPid()}\n`)
      const entry = await writeEntryAs(nobody, server.runJs, path.join(base, 'as-nobody.mjs'), server.node)
      // The journal's state folder must be private to its user: not below the shared base.
      const state = await realpath(await mkdtemp(path.join(tmpdir(), 'ak-sticky-state-')))
      await chown(state, nobody, nobody)
      const other = await connectStdio(CLIENT_LINES[0], [...SERVE, path.join(base, 'ws')], {entry, cwd: base, env: {HOME: path.join(base, 'home'), XDG_STATE_HOME: state}})
      try {
        const answer = await other.call('edit', {path: 'sticky/x.txt', old_text: 'alpha', new_text: 'ALPHA'})
        expect(answer.isError, answer.text).to.equal(true)
        expect(answer.text).to.contain(lockNameOf('x.txt')).and.to.contain('cannot be removed').and.to.contain('Remove it by hand')
      } finally {
        await other.close()
      }
      expect(await readFile(path.join(sticky, 'x.txt'), 'utf8')).to.equal('alpha\n')
      await rm(state, {recursive: true, force: true})
    } finally {
      await rm(base, {recursive: true, force: true})
    }
  })

  it('searches past ignore files that are huge, have a giant line, or are FIFOs and links, with one short note', async () => {
    const root = path.join(ws, 'ign')
    const folders = ['long', 'giant', 'sparse', 'fifo', 'zero', 'outside']
    for (const folder of [...folders, 'fifo/.git/info']) await mkdir(path.join(root, folder), {recursive: true})
    for (const folder of folders) {
      await writeFile(path.join(root, folder, 'kept.txt'), 'needle\n')
      await writeFile(path.join(root, folder, 'ignored.txt'), 'needle\n')
      await writeFile(path.join(root, folder, 'secret.txt'), 'needle\n')
    }
    // A line past the line limit within the size limit: the rules after it still hold.
    await writeFile(path.join(root, 'long', '.gitignore'), `${'a'.repeat(IGNORE_FILE_MAX_LINE_BYTES + 1)}\nignored.txt\n[z-a\n`)
    await writeFile(path.join(root, 'giant', '.gitignore'), `ignored.txt\n${'a'.repeat(20 * 1024 * 1024)}\n`)
    await writeFile(path.join(root, 'sparse', '.gitignore'), 'ignored.txt\n')
    await truncate(path.join(root, 'sparse', '.gitignore'), 1536 * 1024 * 1024)
    execFileSync('mkfifo', [path.join(root, 'fifo', '.gitignore')])
    execFileSync('mkfifo', [path.join(root, 'fifo', '.git', 'info', 'exclude')])
    await symlink('/dev/zero', path.join(root, 'zero', '.gitignore'))
    await symlink(path.join(outside, 'secret.txt'), path.join(root, 'outside', '.gitignore'))

    const answer = await client.call('search', {query: 'needle', path: 'ign'})
    expect(answer.isError, answer.text.slice(0, 500)).to.equal(false)
    const found = answer.text.split('\n').filter((line) => line.endsWith(':1:needle')).map((line) => line.slice(0, -':1:needle'.length))
    expect(found.sort()).to.deep.equal(
      [
        'ign/long/kept.txt',
        'ign/long/secret.txt',
        'ign/giant/kept.txt',
        'ign/giant/secret.txt',
        'ign/sparse/kept.txt',
        'ign/sparse/secret.txt',
        ...['fifo', 'zero', 'outside'].flatMap((folder) => ['ignored.txt', 'kept.txt', 'secret.txt'].map((name) => `ign/${folder}/${name}`)),
      ].sort(),
    )
    const notes = answer.text.split('\n').filter((line) => line.startsWith('[Ignore rules skipped'))
    expect(notes).to.have.length(1)
    expect(notes[0]).to.contain(`ign/long/.gitignore (1 line longer than ${IGNORE_FILE_MAX_LINE_BYTES} bytes)`)
    expect(notes[0]).to.contain(`ign/giant/.gitignore (everything past its first ${IGNORE_FILE_MAX_BYTES / 1024} KiB)`)
    expect(notes[0]).to.contain(`ign/sparse/.gitignore (everything past its first ${IGNORE_FILE_MAX_BYTES / 1024} KiB)`)
    expect(answer.text.length).to.be.below(2000)
    const listing = await client.call('search', {glob: '**/ignored.txt', path: 'ign/long'})
    expect(listing.text).to.equal('No files match the glob "**/ignored.txt" in "ign/long" (ignored files, .git and node_modules are not listed).\n' +
      `[Ignore rules skipped: ign/long/.gitignore (1 line longer than ${IGNORE_FILE_MAX_LINE_BYTES} bytes); files those rules would ignore may be searched.]`)
    expect(memoryKb(client.pid).peak - idleKb, 'KiB of memory the server took over idle').to.be.below(32 * 1024)
  })

  it('still ends within seconds when its input ends, with FIFOs planted everywhere', async () => {
    const {pid} = client
    await client.close()
    // It ends within a second or so; the bound only keeps a hung server from hanging the test.
    expect(await waitUntilGone(pid, 10_000)).to.equal(true)
  })
})
