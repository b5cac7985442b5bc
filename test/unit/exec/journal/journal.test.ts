import {expect} from 'chai'
import {chmod, lstat, mkdir, mkdtemp, readdir, readFile, rm, symlink, writeFile} from 'node:fs/promises'
import {tmpdir} from 'node:os'
import path from 'node:path'

import type {FileChange} from '../../../../src/exec/journal/change-log.js'
import {sha256} from '../../../../src/exec/journal/file-digest.js'
import {Journal, journalName} from '../../../../src/exec/journal/journal.js'
import {undoneIds} from '../../../../src/exec/journal/journal-entry.js'
import {StateFolderError, defaultStateFolder} from '../../../../src/exec/journal/state-folder.js'

const MIB = 1024 * 1024

function updated(name: string, before: string | Buffer, after: string | Buffer, mode = 0o644): FileChange {
  const content = Buffer.from(before)
  return {path: Buffer.from(name), operation: 'updated', before: {content, mode}, after: {sha256: sha256(Buffer.from(after)), mode}}
}

/** Every file and folder below `dir`, with its permission bits, as `relative: mode`. */
async function modesBelow(dir: string): Promise<Record<string, number>> {
  const modes: Record<string, number> = {}
  for (const name of await readdir(dir, {recursive: true})) modes[name] = (await lstat(path.join(dir, name))).mode & 0o7777
  return modes
}

describe('the journal of a workspace', () => {
  let state: string
  const workspace = '/srv/some/workspace'

  beforeEach(async () => {
    state = await mkdtemp(path.join(tmpdir(), 'ak-journal-'))
  })
  afterEach(async () => {
    await rm(state, {recursive: true, force: true})
  })

  it('makes nothing on disk until a change is recorded, and finds no changes then', async () => {
    const journal = new Journal(workspace, {folder: path.join(state, 'ak')})
    expect(await journal.entries()).to.deep.equal([])
    expect(await journal.pending()).to.deep.equal([])
    expect(await readdir(state)).to.deep.equal([])
    await journal.close()
  })

  it('keeps each change with the content before it, once per distinct content, in private folders and files', async () => {
    const journal = new Journal(workspace, {folder: path.join(state, 'ak')})
    const same = 'the same text\n'.repeat(100)
    for (const name of ['a.txt', 'b.txt']) {
      const change = await journal.begin('edit', [updated(name, same, 'new')])
      await change.commit()
    }
    const entries = await journal.entries()
    expect(entries.map((entry) => [entry.id, entry.tool, entry.state, Buffer.from(entry.changes[0]!.path, 'base64').toString()])).to.deep.equal([
      [1, 'edit', 'committed', 'a.txt'],
      [2, 'edit', 'committed', 'b.txt'],
    ])
    const folder = path.join(state, 'ak', 'journals', journalName(workspace))
    expect(await readdir(path.join(folder, 'blobs'))).to.deep.equal([sha256(Buffer.from(same))])
    expect((await journal.readBlob(sha256(Buffer.from(same)))).toString()).to.equal(same)
    const modes = await modesBelow(path.join(state, 'ak'))
    for (const [name, mode] of Object.entries(modes)) {
      const isFolder = (await lstat(path.join(state, 'ak', name))).isDirectory()
      expect(mode, name).to.equal(isFolder ? 0o700 : 0o600)
    }
    expect((await readFile(path.join(folder, 'workspace'), 'utf8')).trim()).to.equal(workspace)
    await journal.close()
  })

  it('gives ids that grow and are not given again when old records go', async () => {
    const journal = new Journal(workspace, {folder: state, maxBytes: 10})
    for (let i = 0; i < 3; i++) await (await journal.begin('edit', [updated('a', `v${i}`, `v${i + 1}`)])).commit()
    const ids = (await journal.entries()).map((entry) => entry.id)
    expect(ids).to.deep.equal([3])
    const next = await journal.begin('edit', [updated('a', 'v3', 'v4')])
    expect(next.id).to.equal('4')
    await next.abandon()
    await journal.close()
  })

  it('drops the oldest changes first and their content when no change refers to it, keeping the newest whatever its size', async () => {
    // Room for three contents and their records, not four.
    const journal = new Journal(workspace, {folder: state, maxBytes: 3 * MIB + 64 * 1024})
    const contents = [0, 1, 2, 3, 4].map((i) => Buffer.alloc(MIB, 0x61 + i))
    for (const content of contents) await (await journal.begin('edit', [updated('big', content, 'x')])).commit()
    const entries = await journal.entries()
    expect(entries.map((entry) => entry.id)).to.deep.equal([3, 4, 5])
    expect(await journal.size()).to.be.at.most(3 * MIB + 64 * 1024)
    const blobs = await readdir(path.join(journal.path, 'blobs'))
    expect(blobs.sort()).to.deep.equal(contents.slice(2).map((content) => sha256(content)).sort())
    // A change larger than the bound: kept alone, everything older goes.
    const huge = Buffer.alloc(4 * MIB, 0x7a)
    await (await journal.begin('edit', [updated('big', huge, 'x')])).commit()
    expect((await journal.entries()).map((entry) => entry.id)).to.deep.equal([6])
    expect((await journal.readBlob(sha256(huge))).equals(huge)).to.equal(true)
    expect(await journal.size()).to.be.at.most(4 * MIB + 4096)
    await journal.close()
  })

  it('never drops a change in progress to make room', async () => {
    const journal = new Journal(workspace, {folder: state, maxBytes: MIB})
    const first = await journal.begin('edit', [updated('a', Buffer.alloc(MIB, 1), 'x')])
    await (await journal.begin('edit', [updated('b', Buffer.alloc(MIB, 2), 'x')])).commit()
    expect((await journal.entries()).map((entry) => [entry.id, entry.state])).to.deep.equal([
      [1, 'pending'],
      [2, 'committed'],
    ])
    await first.commit()
    await journal.close()
  })

  it('lists as pending only the changes whose process is gone, with their content before, and forgets an abandoned one', async () => {
    const journal = new Journal(workspace, {folder: state})
    const mine = await journal.begin('edit', [updated('a.txt', 'old', 'new', 0o755)])
    expect(await journal.pending(), 'a change this process is making').to.deep.equal([])
    // The same record as a crashed process leaves it: its pid no longer runs.
    const file = path.join(journal.path, 'pending', '1.json')
    const record = JSON.parse(await readFile(file, 'utf8'))
    await writeFile(file, JSON.stringify({...record, holder: {...record.holder, pid: 2 ** 22 + 12345}}))
    const [crashed, ...rest] = await journal.pending()
    expect(rest).to.deep.equal([])
    expect(crashed!.id).to.equal('1')
    expect(crashed!.changes[0]!.before!.content.toString()).to.equal('old')
    expect(crashed!.changes[0]!.before!.mode).to.equal(0o755)
    expect(crashed!.changes[0]!.after).to.deep.equal({sha256: sha256(Buffer.from('new')), mode: 0o755})
    await crashed!.abandon()
    await mine.abandon()
    expect(await journal.entries()).to.deep.equal([])
    await journal.close()
  })

  it('records change after change without reading the records again, until another process records one', async () => {
    const journal = new Journal(workspace, {folder: state})
    for (let i = 0; i < 30; i++) await (await journal.begin('edit', [updated('a.txt', `v${i}`, `v${i + 1}`)])).commit()
    expect(journal.fullReads).to.equal(1)
    const other = new Journal(workspace, {folder: state})
    await (await other.begin('edit', [updated('b.txt', 'b0', 'b1')])).commit()
    const next = await journal.begin('edit', [updated('a.txt', 'v30', 'v31')])
    expect([next.id, journal.fullReads]).to.deep.equal(['32', 2])
    await next.commit()
    // A record under the next id that last-id does not know (a crash came between the two): read again, its id not given twice.
    const planted = JSON.parse(await readFile(path.join(journal.path, 'entries', '32.json'), 'utf8'))
    await writeFile(path.join(journal.path, 'entries', '33.json'), JSON.stringify({...planted, id: 33}))
    const after = await journal.begin('edit', [updated('a.txt', 'v31', 'v32')])
    expect([after.id, journal.fullReads]).to.deep.equal(['34', 3])
    await after.commit()
    expect((await journal.entries()).map((entry) => entry.id)).to.deep.equal([...Array.from({length: 30}, (_, i) => i + 1), 31, 32, 33, 34])
    await other.close()
    await journal.close()
  })

  it('reads its records ahead of the first change when asked to prepare, and makes nothing when there is no journal', async () => {
    const none = new Journal(workspace, {folder: path.join(state, 'ak')})
    await none.prepare()
    expect(await readdir(state)).to.deep.equal([])
    const first = new Journal(workspace, {folder: state})
    for (let i = 0; i < 5; i++) await (await first.begin('edit', [updated('a.txt', `v${i}`, `v${i + 1}`)])).commit()
    await first.close()
    const next = new Journal(workspace, {folder: state})
    await next.prepare()
    expect(next.fullReads).to.equal(1)
    await (await next.begin('edit', [updated('a.txt', 'v5', 'v6')])).commit()
    expect([next.fullReads, (await next.entries()).length]).to.deep.equal([1, 6])
    await next.close()
  })

  it('never gives an id twice when another process recorded changes and dropped them meanwhile', async () => {
    // A bound so small that each change drops every older one.
    const [a, b] = [new Journal(workspace, {folder: state, maxBytes: 10}), new Journal(workspace, {folder: state, maxBytes: 10})]
    for (let i = 0; i < 3; i++) await (await a.begin('edit', [updated('a', `a${i}`, `a${i + 1}`)])).commit()
    for (let i = 0; i < 2; i++) await (await b.begin('edit', [updated('b', `b${i}`, `b${i + 1}`)])).commit()
    const next = await a.begin('edit', [updated('a', 'a3', 'a4')])
    expect(next.id).to.equal('6')
    await next.commit()
    expect((await a.entries()).map((entry) => entry.id)).to.deep.equal([6])
    await a.close()
    await b.close()
  })

  it('keeps its bound and every content a record needs when two processes record, commit and abandon in turn', async () => {
    const bound = 8 * 1024
    const [a, b] = [new Journal(workspace, {folder: state, maxBytes: bound}), new Journal(workspace, {folder: state, maxBytes: bound})]
    const content = (i: number) => Buffer.alloc(900 + (i % 7) * 100, 0x41 + (i % 26))
    for (let i = 0; i < 60; i++) {
      const journal = i % 3 === 0 ? b : a
      const change = await journal.begin('edit', [updated(`f${i % 5}`, content(i), `after ${i}`)])
      if (i % 4 === 3) await change.abandon()
      else await change.commit()
      // What a full read finds: within the bound plus the newest change, every content a record refers to there and whole.
      const reader = new Journal(workspace, {folder: state, maxBytes: bound})
      const entries = await reader.entries()
      expect(await reader.size(), `after change ${i}`).to.be.at.most(bound + 2000 + 1024)
      for (const entry of entries) {
        for (const change of entry.changes) expect((await reader.readBlob(change.before!.sha256)).length).to.equal(change.before!.size)
      }
      const ids = entries.map((entry) => entry.id)
      expect(new Set(ids).size).to.equal(ids.length)
      await reader.close()
    }
    // The blobs no record refers to are gone once the tally is read again.
    for (let i = 0; i < 3; i++) await (await a.begin('edit', [updated('g', content(60 + i), 'x')])).commit()
    const referenced = new Set((await a.entries()).flatMap((entry) => entry.changes.map((change) => change.before!.sha256)))
    const left = (await readdir(path.join(a.path, 'blobs'))).filter((name) => !referenced.has(name))
    expect(left).to.deep.equal([])
    await a.close()
    await b.close()
  })

  it('keeps a change in progress in pending/ apart from applied ones, and counts a record in both once, as applied', async () => {
    const journal = new Journal(workspace, {folder: state})
    await (await journal.begin('edit', [updated('a.txt', 'one', 'two')])).commit()
    const second = await journal.begin('edit', [updated('a.txt', 'two', 'three')])
    const [entries, pending] = [path.join(journal.path, 'entries'), path.join(journal.path, 'pending')]
    expect([await readdir(entries), await readdir(pending)]).to.deep.equal([['1.json'], ['2.json']])
    expect((await readFile(path.join(journal.path, 'layout'), 'utf8')).trim()).to.equal('3')
    // A record in both folders (copied by hand): the applied one counts, the pending one goes.
    await writeFile(path.join(entries, '2.json'), await readFile(path.join(pending, '2.json')))
    const reader = new Journal(workspace, {folder: state})
    expect(await reader.pending()).to.deep.equal([])
    expect((await reader.entries()).map((entry) => [entry.id, entry.state])).to.deep.equal([
      [1, 'committed'],
      [2, 'committed'],
    ])
    expect([(await readdir(entries)).sort(), await readdir(pending)]).to.deep.equal([['1.json', '2.json'], []])
    // Its commit finds it applied already.
    await second.commit()
    expect((await readdir(entries)).sort()).to.deep.equal(['1.json', '2.json'])
    await reader.close()
    await journal.close()
  })

  it('marks a change applied by moving its record, and records it again if the record went meanwhile', async () => {
    const journal = new Journal(workspace, {folder: state})
    const change = await journal.begin('edit', [updated('a.txt', 'one', 'two')])
    const [entries, pending] = [path.join(journal.path, 'entries'), path.join(journal.path, 'pending')]
    const written = await readFile(path.join(pending, '1.json'), 'utf8')
    await change.commit()
    expect([await readdir(entries), await readdir(pending)]).to.deep.equal([['1.json'], []])
    expect(await readFile(path.join(entries, '1.json'), 'utf8')).to.equal(written)
    const gone = await journal.begin('edit', [updated('a.txt', 'two', 'three')])
    await rm(path.join(pending, '2.json'))
    await gone.commit()
    expect((await journal.entries()).map((entry) => [entry.id, entry.state])).to.deep.equal([
      [1, 'committed'],
      [2, 'committed'],
    ])
    await journal.close()
  })

  for (const older of ['1, each record\'s state in its text', '2, a pending record named <id>.pending.json'] as const) {
    it(`gives a journal of layout ${older} the current one, finding the change a crash left there`, async () => {
      const isNamed = older.startsWith('2')
      const journal = new Journal(workspace, {folder: state})
      await (await journal.begin('edit', [updated('a.txt', 'one', 'two')])).commit()
      await journal.begin('edit', [updated('b.txt', 'old', 'new')])
      await journal.close()
      // As an older ak left it: every record in entries/; change 2 cut short by a crash.
      const [entries, pending] = [path.join(journal.path, 'entries'), path.join(journal.path, 'pending')]
      const applied = JSON.parse(await readFile(path.join(entries, '1.json'), 'utf8'))
      expect(applied.version).to.equal(2)
      // Layout 2 kept the state an applied record was written with (pending) in its text; layout 1 rewrote it.
      if (!isNamed) await writeFile(path.join(entries, '1.json'), JSON.stringify({...applied, version: 1, state: 'committed'}))
      const record = JSON.parse(await readFile(path.join(pending, '2.json'), 'utf8'))
      await rm(pending, {recursive: true})
      const dead = {...record, ...(isNamed ? {} : {version: 1}), holder: {...record.holder, pid: 2 ** 22 + 12345}}
      await writeFile(path.join(entries, isNamed ? '2.pending.json' : '2.json'), JSON.stringify(dead))
      if (isNamed) await writeFile(path.join(journal.path, 'layout'), '2\n')
      else await rm(path.join(journal.path, 'layout'))
      const next = new Journal(workspace, {folder: state})
      const [crashed, ...rest] = await next.pending()
      expect(rest).to.deep.equal([])
      expect([crashed!.id, crashed!.changes[0]!.before!.content.toString()]).to.deep.equal(['2', 'old'])
      expect([await readdir(entries), await readdir(pending)]).to.deep.equal([['1.json'], ['2.json']])
      expect((await readFile(path.join(journal.path, 'layout'), 'utf8')).trim()).to.equal('3')
      await crashed!.abandon()
      expect((await next.entries()).map((entry) => [entry.id, entry.state])).to.deep.equal([[1, 'committed']])
      await next.close()
    })
  }

  it('with journaling off, keeps a record only while the change is made, with its content, and leaves a journal kept before', async () => {
    const kept = new Journal(workspace, {folder: path.join(state, 'ak'), maxBytes: MIB})
    await (await kept.begin('edit', [updated('kept', 'kept before', 'x')])).commit()
    await kept.close()
    const off = new Journal(workspace, false, {XDG_STATE_HOME: state})
    expect(off.keep).to.equal(false)
    const change = await off.begin('edit', [updated('f', 'off before', 'y')])
    expect((await off.entries()).map((entry) => [entry.id, entry.state])).to.deep.equal([
      [1, 'committed'],
      [2, 'pending'],
    ])
    expect((await off.readBlob(sha256(Buffer.from('off before')))).toString()).to.equal('off before')
    await change.commit()
    expect((await off.entries()).map((entry) => entry.id)).to.deep.equal([1])
    expect(await readdir(path.join(off.path, 'blobs'))).to.deep.equal([sha256(Buffer.from('kept before'))])
    await off.close()
  })

  it('refuses a state folder other users may change, saying which folder and what to do', async () => {
    const shared = path.join(state, 'shared')
    await mkdir(shared)
    await chmod(shared, 0o777)
    const journal = new Journal(workspace, {folder: path.join(shared, 'ak')})
    const error = await journal.begin('edit', [updated('a', 'x', 'y')]).then(
      () => undefined,
      (caught: unknown) => caught,
    )
    expect(error).to.be.instanceOf(StateFolderError)
    expect((error as Error).message).to.match(/may be changed by other users.*chmod go-w.*Nothing was changed/s)
    expect(await readdir(shared)).to.deep.equal([])
  })

  it('refuses a state folder reached through a link planted in it', async () => {
    const elsewhere = path.join(state, 'elsewhere')
    await mkdir(path.join(state, 'ak'), {mode: 0o700})
    await mkdir(elsewhere, {mode: 0o700})
    await symlink(elsewhere, path.join(state, 'ak', 'journals'))
    const journal = new Journal(workspace, {folder: path.join(state, 'ak')})
    const error = await journal.begin('edit', [updated('a', 'x', 'y')]).catch((caught: unknown) => caught)
    expect(error).to.be.instanceOf(StateFolderError)
    expect(await readdir(elsewhere)).to.deep.equal([])
  })

  it('is found in $XDG_STATE_HOME/ak, else ~/.local/state/ak', () => {
    expect(defaultStateFolder({XDG_STATE_HOME: '/x/state'})).to.equal('/x/state/ak')
    expect(defaultStateFolder({XDG_STATE_HOME: 'relative'})).to.match(/\/\.local\/state\/ak$/)
    expect(defaultStateFolder({})).to.match(/\/\.local\/state\/ak$/)
  })

  it('tells which changes an undo reverted, and puts them back when the undo is reverted', () => {
    const entry = (id: number, undoes?: number[]) => ({version: 1 as const, id, tool: undoes ? 'undo' : 'edit', time: '', state: 'committed' as const, holder: {pid: 1}, changes: [], ...(undoes ? {undoes} : {})})
    expect([...undoneIds([entry(1), entry(2), entry(3, [2])])]).to.deep.equal([2])
    expect([...undoneIds([entry(1), entry(2), entry(3, [2]), entry(4, [3])])]).to.deep.equal([3])
    expect([...undoneIds([entry(1), entry(2), entry(3, [2]), entry(4, [1, 2, 3])])].sort()).to.deep.equal([1, 2, 3])
    expect([...undoneIds([entry(1), entry(2), entry(3, [2]), entry(4, [1, 2, 3]), entry(5, [4])])].sort()).to.deep.equal([2, 4])
  })
})
