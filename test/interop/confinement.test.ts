import {expect} from 'chai'
import {execFileSync, spawn} from 'node:child_process'
import {mkdir, mkdtemp, readdir, readFile, realpath, rm, symlink, writeFile} from 'node:fs/promises'
import {tmpdir} from 'node:os'
import path from 'node:path'

import {type TestClient, connectStdio} from '../helpers/clients.js'
import {compileSwapperOrSkip} from '../helpers/swapper.js'

/** A path under `folder` whose last name is the given bytes. */
function bytePath(folder: string, ...names: Array<string | number[]>): Buffer {
  const parts = [Buffer.from(folder)]
  for (const name of names) parts.push(Buffer.from('/'), typeof name === 'string' ? Buffer.from(name) : Buffer.from(name))
  return Buffer.concat(parts)
}

/** Every path below `dir` (absolute, names decoded as UTF-8 with replacement), symlinks not followed. */
async function treeOf(dir: string): Promise<string[]> {
  const found: string[] = []
  const walk = async (folder: Buffer): Promise<void> => {
    for (const entry of await readdir(folder, {withFileTypes: true, encoding: 'buffer'})) {
      const full = Buffer.concat([folder, Buffer.from('/'), entry.name])
      found.push(full.toString())
      if (entry.isDirectory()) await walk(full)
    }
  }
  await walk(Buffer.from(dir))
  return found.sort()
}

const SECRET = 'OUTSIDE-SECRET-5f1c'

describe('confinement under odd names, swapped files and racing processes, through ak exec serve', function () {
  this.timeout(180_000)
  let base: string
  let ws: string
  let outside: string
  let client: TestClient

  const call = (name: string, args: Record<string, unknown>) => client.call(name, args)
  const ok = async (name: string, args: Record<string, unknown>) => {
    const answer = await call(name, args)
    expect(answer.isError, `${name} ${JSON.stringify(args)}: ${answer.text}`).to.equal(false)
    return answer.text
  }
  const fails = async (name: string, args: Record<string, unknown>) => {
    const answer = await call(name, args)
    expect(answer.isError, `${name} ${JSON.stringify(args)} should fail: ${answer.text}`).to.equal(true)
    return answer.text
  }

  before(async () => {
    base = await realpath(await mkdtemp(path.join(tmpdir(), 'ak-confine-')))
    ws = path.join(base, 'ws')
    outside = path.join(base, 'outside')
    await mkdir(ws)
    await mkdir(outside)
    await writeFile(path.join(outside, 'secret.txt'), `root:${SECRET}\n`)
    client = await connectStdio('v2 (2026-07-28)', ['exec', 'serve', '--workspace', ws, '--level', 'terminal'], {
      env: {HOME: base},
    })
  })

  after(async () => {
    await client?.close()
    await rm(base, {recursive: true, force: true})
  })

  describe('names are bytes', () => {
    before(async () => {
      // A folder named by the single byte FF, and beside it a link named U+FFFD (what FF decodes to) to the outside.
      await mkdir(bytePath(ws, 'names', [0xff]), {recursive: true})
      await writeFile(bytePath(ws, 'names', [0xff], 'inner.txt'), 'root:inside the ff folder\n')
      await symlink(outside, path.join(ws, 'names', '\ufffd'))
      await writeFile(bytePath(ws, 'bytes', 'good.txt'), 'good\n').catch(async () => {
        await mkdir(path.join(ws, 'bytes'))
        await writeFile(bytePath(ws, 'bytes', 'good.txt'), 'good\n')
      })
      await writeFile(bytePath(ws, 'bytes', [0x62, 0x61, 0x64, 0x2d, 0xff]), 'needle in bad-ff\n')
      await writeFile(bytePath(ws, 'bytes', [0x63, 0x61, 0x66, 0xe9, 0x2e, 0x74, 0x78, 0x74]), 'needle in cafe latin-1\n')
      await mkdir(bytePath(ws, 'bytes', [0x64, 0x69, 0x72, 0xff]))
      await writeFile(bytePath(ws, 'bytes', [0x64, 0x69, 0x72, 0xff], 'in.txt'), 'needle in dir-ff\n')
      await mkdir(path.join(ws, 'forge'))
      await writeFile(path.join(ws, 'forge', 'evil\nfake.txt  99 bytes'), 'needle\n')
      await writeFile(path.join(ws, 'forge', 'back\\slash.txt'), 'needle\n')
    })

    it('search never follows a decoded name: a 0xFF folder beside a U+FFFD link to the outside', async () => {
      const text = await ok('search', {query: '^root:', regex: true, path: 'names'})
      expect(text).to.not.include(SECRET)
      expect(text).to.include('names/\\xff/inner.txt:1:root:inside the ff folder')
    })

    it('list shows every name, escaped, with a true count and no "not shown" note', async () => {
      const text = await ok('list', {path: 'bytes'})
      expect(text.split('\n')).to.deep.equal([
        'bytes/ (4 entries)',
        'bad-\\xff  17 bytes',
        'caf\\xe9.txt  23 bytes',
        'dir\\xff/',
        'good.txt  5 bytes',
      ])
    })

    it('search finds text in files whose names are not UTF-8 and shows their escaped paths', async () => {
      const text = await ok('search', {query: 'needle', path: 'bytes'})
      expect(text).to.include('bytes/bad-\\xff:1:needle in bad-ff')
      expect(text).to.include('bytes/caf\\xe9.txt:1:needle in cafe latin-1')
      expect(text).to.include('bytes/dir\\xff/in.txt:1:needle in dir-ff')
    })

    it('read, edit and list take the escaped form back as a path', async () => {
      expect(await ok('read', {path: 'bytes/bad-\\xff'})).to.include('needle in bad-ff')
      expect(await ok('list', {path: 'bytes/dir\\xff'})).to.include('in.txt')
      await ok('edit', {path: 'bytes/caf\\xe9.txt', old_text: 'latin-1', new_text: 'edited'})
      const edited = await readFile(bytePath(ws, 'bytes', [0x63, 0x61, 0x66, 0xe9, 0x2e, 0x74, 0x78, 0x74]), 'utf8')
      expect(edited).to.equal('needle in cafe edited\n')
      await ok('edit', {path: 'bytes/new-\\xfe.txt', old_text: '', new_text: 'created\n'})
      expect(await readFile(bytePath(ws, 'bytes', [0x6e, 0x65, 0x77, 0x2d, 0xfe, 0x2e, 0x74, 0x78, 0x74]), 'utf8')).to.equal('created\n')
    })

    it('a line break in a file name cannot forge a line in list or search', async () => {
      const listed = await ok('list', {path: 'forge'})
      expect(listed.split('\n')).to.deep.equal(['forge/ (2 entries)', 'back\\\\slash.txt  7 bytes', 'evil\\nfake.txt  99 bytes  7 bytes'])
      const found = await ok('search', {query: 'needle', path: 'forge'})
      expect(found.split('\n').filter((line) => line.includes(':1:'))).to.deep.equal([
        'forge/back\\\\slash.txt:1:needle',
        'forge/evil\\nfake.txt  99 bytes:1:needle',
      ])
      expect(await ok('read', {path: 'forge/evil\\nfake.txt  99 bytes'})).to.include('needle')
      expect(await ok('read', {path: 'forge/back\\\\slash.txt'})).to.include('needle')
      expect(client.stderr()).to.not.match(/\nfake\.txt/)
    })

    it('globs take the escaped form too, with wildcards, in includes and excludes', async () => {
      await mkdir(path.join(ws, 'globbed', 'nl\ndir'), {recursive: true})
      await writeFile(path.join(ws, 'globbed', 'nl\ndir', 'g.txt'), 'needle\n')
      await writeFile(path.join(ws, 'globbed', 'f\u2028.txt'), 'needle\n')
      await mkdir(bytePath(ws, 'globbed', [0x62, 0x61, 0x64, 0xff]))
      await writeFile(bytePath(ws, 'globbed', [0x62, 0x61, 0x64, 0xff], 'h.txt'), 'needle\n')
      const found = async (glob: string | string[]) =>
        (await ok('search', {query: 'needle', path: 'globbed', glob})).split('\n').filter((line) => line.includes(':1:'))
      expect(await found('globbed/nl\\ndir/**')).to.deep.equal(['globbed/nl\\ndir/g.txt:1:needle'])
      expect(await found('*/f\\u2028.txt')).to.deep.equal(['globbed/f\\u2028.txt:1:needle'])
      expect(await found('**/f\\u2028.*')).to.deep.equal(['globbed/f\\u2028.txt:1:needle'])
      expect(await found('globbed/bad\\xff/*')).to.deep.equal(['globbed/bad\\xff/h.txt:1:needle'])
      expect(await found(['**', '!globbed/nl\\ndir/**', '!**/bad\\xff/**'])).to.deep.equal(['globbed/f\\u2028.txt:1:needle'])
      const listed = await ok('search', {path: 'globbed', glob: '**/bad\\xff/*'})
      expect(listed).to.include('globbed/bad\\xff/h.txt')
    })

    it('a path whose escapes decode to a leading ~ is refused as a typed ~ is, with the same advice', async () => {
      for (const [written, shown] of [['~/x', '~/x'], ['\\x7e/x', '\\x7e/x'], ['\\u007ex', '\\u007ex']]) {
        const text = await fails('read', {path: written})
        expect(text).to.equal(
          `The path "${shown}" starts with "~". ak does not expand "~": paths are relative to the workspace, or absolute inside it. ` +
            `For a file really named "${shown}", write "./${shown}".`,
        )
      }
    })

    for (const [written, fragment] of [['\\\n', '"\\\\n"'], ['a\\x\n1', '"\\x\\n1"'], ['a\\\u2028', '"\\\\u2028"']]) {
      it(`a malformed escape with a control character (${JSON.stringify(written)}) is quoted without a raw line break`, async () => {
        for (const tool of ['read', 'list', 'search', 'edit']) {
          const args = tool === 'search' ? {query: 'x', path: written} : tool === 'edit' ? {path: written, old_text: '', new_text: 'x'} : {path: written}
          const text = await fails(tool, args)
          expect(text, tool).not.to.match(/[\n\r\u2028\u2029]/)
          expect(text, tool).to.contain(fragment)
        }
      })
    }

    it('a backslash that starts no escape is refused with what the escapes are', async () => {
      const text = await fails('read', {path: 'src\\index.ts'})
      expect(text).to.include('"\\i", which is not an escape')
      expect(text).to.include('\\\\ for a backslash')
    })
  })

  describe('refusals reveal nothing and say what to do', () => {
    it('reads the same for an outside path that exists and one that does not, even with over-long names', async () => {
      const long = 'a'.repeat(300)
      const texts = [
        await fails('read', {path: `/etc/${long}`}),
        await fails('read', {path: `/nonexistent/${long}`}),
        await fails('read', {path: '/proc/1/root/x'}),
        await fails('read', {path: '/proc/self/root/etc/passwd'}),
        await fails('list', {path: `${outside}/`}),
        await fails('search', {query: 'x', path: '/nonexistent'}),
      ]
      for (const text of texts) {
        expect(text).to.match(/is outside the workspace/)
        expect(text).to.not.match(/\bE[A-Z]{3,}\b|Internal error|lstat|open '/)
      }
    })

    it('a name too long inside the workspace gets a clear message, not an errno', async () => {
      const text = await fails('read', {path: `${'b'.repeat(300)}.txt`})
      expect(text).to.include('at most 255 bytes per name')
      expect(text).to.not.match(/\bE[A-Z]{3,}\b|Internal error/)
    })

    it('a leading ~ is refused, not created as a folder', async () => {
      const text = await fails('edit', {path: '~/x.txt', old_text: '', new_text: 'x'})
      expect(text).to.include('does not expand "~"')
      expect(text).to.include('"./~/x.txt"')
      expect(await treeOf(ws)).to.not.include(path.join(ws, '~'))
    })

    it('commands the system cannot start are refused with a reason, not an errno', async () => {
      const nul = await fails('exec_command', {cmd: 'echo a\u0000b'})
      expect(nul).to.include('NUL byte')
      const huge = await fails('exec_command', {cmd: `echo ${'x'.repeat(1024 * 1024)}`})
      expect(huge).to.include('Write a long script to a file')
      for (const text of [nul, huge]) expect(text).to.not.match(/\bE[A-Z]{3,}\b|Internal error|spawn/)
    })

    it('a glob over the size a pattern may have is refused naming the glob', async () => {
      const text = await fails('search', {query: 'x', glob: `${'*'.repeat(70_000)}.ts`})
      expect(text).to.match(/glob/)
      expect(text).to.not.match(/Internal error|Expected pattern/)
    })
  })

  describe('globs that take exponential time to match', () => {
    let slow: TestClient

    before(async () => {
      await mkdir(path.join(ws, 'slowglob'))
      await writeFile(path.join(ws, 'slowglob', 'a'.repeat(40)), 'hello\n')
      slow = await connectStdio('v2 (2026-07-28)', ['exec', 'serve', '--workspace', ws, '--quiet'], {
        env: {HOME: base, AK_SEARCH_TIME_LIMIT_MS: '3000'},
      })
    })

    after(async () => {
      await slow?.close()
    })

    it('are stopped by the time limit while other calls are answered', async () => {
      for (const glob of [`${'*a'.repeat(20)}*b`, '(a+)+b']) {
        for (const args of [{query: 'hello', path: 'slowglob', glob}, {path: 'slowglob', glob}]) {
          let searchDone = false
          const search = slow.call('search', args).then((answer) => {
            searchDone = true
            return answer
          })
          await new Promise((resolve) => setTimeout(resolve, 300))
          const listed = await slow.call('list', {path: 'slowglob'})
          expect(listed.isError).to.equal(false)
          expect(searchDone, `list answered only after the search ${JSON.stringify(args)}`).to.equal(false)
          const answer = await search
          expect(answer.isError, answer.text).to.equal(true)
          expect(answer.text).to.match(/time limit|took longer|too long/i)
        }
      }
    })
  })

  describe('FIFOs and devices', () => {
    before(async () => {
      await mkdir(path.join(ws, 'pipes'))
      execFileSync('mkfifo', [path.join(ws, 'pipes', 'fifo')])
    })

    it('read, edit and search answer at once for a FIFO and the server keeps serving', async () => {
      expect(await fails('read', {path: 'pipes/fifo'})).to.include('not a regular file')
      expect(await fails('edit', {path: 'pipes/fifo', old_text: 'a', new_text: 'b'})).to.include('not a regular file')
      expect(await ok('search', {query: 'x', path: 'pipes'})).to.include('No matches')
      expect(await ok('list', {path: 'pipes'})).to.include('fifo  (special file)')
    })

    it('names a FIFO given as a folder for what it is, without pointing to read', async () => {
      for (const [tool, args] of [['list', {path: 'pipes/fifo'}], ['exec_command', {cmd: 'true', workdir: 'pipes/fifo'}]] as const) {
        const message = await fails(tool, args)
        expect(message, tool).to.include('"pipes/fifo" is not a folder (a FIFO)').and.not.include('read tool')
      }
    })
  })
})

/** Python's ctypes call of renameat2(RENAME_EXCHANGE) on two paths, in a loop for `seconds`. */
const RACER = `
import ctypes, sys, time
libc = ctypes.CDLL(None, use_errno=True)
a, b, seconds = sys.argv[1].encode(), sys.argv[2].encode(), float(sys.argv[3])
end = time.time() + seconds
AT_FDCWD, RENAME_EXCHANGE = -100, 2
while time.time() < end:
    libc.renameat2(AT_FDCWD, a, AT_FDCWD, b, RENAME_EXCHANGE)
`

function hasRenameExchange(): boolean {
  try {
    execFileSync('python3', ['-c', 'import ctypes; ctypes.CDLL(None).renameat2'], {stdio: 'ignore'})
    return process.platform === 'linux'
  } catch {
    return false
  }
}

describe('a racing process swapping a workspace folder and a link to the outside', function () {
  this.timeout(240_000)
  const RACE_SECONDS = 6
  let base: string
  let ws: string
  let outside: string
  let client: TestClient

  before(async function () {
    if (!hasRenameExchange()) {
      console.log('    (skipped: needs Linux and python3 with renameat2 in libc)')
      this.skip()
    }
    base = await realpath(await mkdtemp(path.join(tmpdir(), 'ak-race-')))
    ws = path.join(base, 'ws')
    outside = path.join(base, 'outside')
    await mkdir(path.join(ws, 'dir'), {recursive: true})
    await mkdir(outside)
    await writeFile(path.join(ws, 'dir', 'file.txt'), 'INSIDE\n')
    await writeFile(path.join(outside, 'file.txt'), `INSIDE ${SECRET}\n`)
    await symlink(outside, path.join(ws, 'link'))
    client = await connectStdio('v2 (2026-07-28)', ['exec', 'serve', '--workspace', ws, '--level', 'terminal', '--quiet'], {
      env: {HOME: base},
    })
  })

  after(async () => {
    await client?.close()
    if (base) await rm(base, {recursive: true, force: true})
  })

  it('never reads, lists, searches, writes or runs outside while the swap runs', async () => {
    const outsideBefore = await treeOf(outside)
    const secretBefore = await readFile(path.join(outside, 'file.txt'), 'utf8')
    const racer = spawn('python3', ['-c', RACER, path.join(ws, 'dir'), path.join(ws, 'link'), String(RACE_SECONDS)], {stdio: 'ignore'})
    const raced = new Promise((resolve) => racer.once('exit', resolve))
    const answers: string[] = []
    let calls = 0
    const deadline = Date.now() + RACE_SECONDS * 1000
    const caller = async (index: number) => {
      for (let round = 0; Date.now() < deadline; round++) {
        const requests: Array<[string, Record<string, unknown>]> = [
          ['read', {path: 'dir/file.txt'}],
          ['list', {path: 'dir'}],
          ['search', {query: 'SECRET', path: 'dir'}],
          ['search', {query: 'SECRET'}],
          ['edit', {path: `dir/new-${index}-${round}.txt`, old_text: '', new_text: 'x'}],
          ['edit', {path: 'dir/file.txt', old_text: 'INSIDE', new_text: 'INSIDE'}],
          // /bin/pwd -P names the folder the command is in (the shell's own pwd re-reads its $PWD text).
          ['exec_command', {cmd: '/bin/pwd -P; cat file.txt', workdir: 'dir', yield_time_ms: 5000}],
        ]
        for (const [name, args] of requests) {
          answers.push((await client.call(name, args)).text)
          calls++
        }
      }
    }
    await Promise.all([0, 1, 2, 3].map(caller))
    await raced
    expect(calls).to.be.greaterThan(20)
    for (const text of answers) {
      expect(text).to.not.include(SECRET)
      expect(text).to.not.include(outside)
      expect(text).to.not.match(/Internal error|\bE[A-Z]{3,}\b/)
    }
    expect(await treeOf(outside), 'nothing created outside').to.deep.equal(outsideBefore)
    expect(await readFile(path.join(outside, 'file.txt'), 'utf8'), 'outside file unchanged').to.equal(secretBefore)
    const leftovers = [...(await treeOf(ws)), ...(await treeOf(outside))].filter((file) => file.includes('.ak-edit-'))
    expect(leftovers, 'temporary files left').to.deep.equal([])
    // Still answering after the race.
    expect(await listRoot()).to.include('(')
  })

  it('never hangs when a FIFO is swapped in for the file being read or edited', async () => {
    await mkdir(path.join(ws, 'swap'))
    await writeFile(path.join(ws, 'swap', 'regular.txt'), 'plain text\n')
    execFileSync('mkfifo', [path.join(ws, 'swap', 'fifo')])
    const racer = spawn('python3', ['-c', RACER, path.join(ws, 'swap', 'regular.txt'), path.join(ws, 'swap', 'fifo'), '3'], {stdio: 'ignore'})
    const raced = new Promise((resolve) => racer.once('exit', resolve))
    const deadline = Date.now() + 3000
    let answered = 0
    const caller = async () => {
      while (Date.now() < deadline) {
        for (const [name, args] of [
          ['read', {path: 'swap/regular.txt'}],
          ['edit', {path: 'swap/regular.txt', old_text: 'plain', new_text: 'plain'}],
          ['search', {query: 'plain', path: 'swap'}],
        ] as const) {
          const answer = await client.call(name, args)
          expect(answer.text).to.not.match(/Internal error|\bE[A-Z]{3,}\b/)
          answered++
        }
      }
    }
    await Promise.all([caller(), caller(), caller()])
    await raced
    expect(answered).to.be.greaterThan(10)
    expect(await listRoot()).to.include('swap/')
  })

  async function listRoot(): Promise<string> {
    const answer = await client.call('list', {path: '.'})
    expect(answer.isError).to.equal(false)
    return answer.text
  }
})


describe('search and the file tools under a compiled swapper of a workspace folder and a link to the outside', function () {
  this.timeout(240_000)
  const RACE_SECONDS = 6
  /** Files of the inside folder that also exist outside: text outside matching the right prefix, or binary. */
  const SHARED = 30
  /** Files of the inside folder that do not exist outside. */
  const INSIDE_ONLY = 10
  /**
   * How often an answer must come for one name, and never for the other, to tell them apart. An
   * answer that does not depend on the name falls on either with even odds, so all 12 on one side
   * happen by chance once in 2,048; the oracle this guards against gave 116 to 0 in one run.
   */
  const ORACLE_MIN_COUNT = 12
  let base: string
  let ws: string
  let swapper: string
  let client: TestClient

  before(async function () {
    if (process.platform !== 'linux') this.skip()
    base = await realpath(await mkdtemp(path.join(tmpdir(), 'ak-oracle-')))
    swapper = path.join(base, 'swapper')
    await compileSwapperOrSkip(this, swapper)
    ws = path.join(base, 'ws')
    const outside = path.join(base, 'outside')
    await mkdir(path.join(ws, 'dir'), {recursive: true})
    await mkdir(outside)
    for (let index = 0; index < SHARED; index++) {
      const name = `pw${String(index).padStart(2, '0')}.txt`
      await writeFile(path.join(ws, 'dir', name), 'an inside line\n')
      await writeFile(path.join(outside, name), index % 3 === 2 ? 'root:x\0binary\n' : `root:x:0:0:${SECRET}\n`, {mode: 0o600})
    }
    for (let index = 0; index < INSIDE_ONLY; index++) await writeFile(path.join(ws, 'dir', `only${index}.txt`), 'an inside line\n')
    // Names that exist only outside (a file and a folder), for the path-walk oracle.
    await writeFile(path.join(outside, 'shadow.txt'), `root:x:0:0:${SECRET}\n`, {mode: 0o600})
    await mkdir(path.join(outside, 'shadowdir'), {mode: 0o700})
    await symlink(outside, path.join(ws, 'link'))
    client = await connectStdio('v2 (2026-07-28)', ['exec', 'serve', '--workspace', ws, '--level', 'files', '--quiet'], {env: {HOME: base}})
  })

  after(async () => {
    await client?.close()
    if (base) await rm(base, {recursive: true, force: true})
  })

  it('answers an edit that loses the race for its folder with what changed, never that the file is not a folder', async () => {
    const racer = spawn(swapper, [path.join(ws, 'dir'), path.join(ws, 'link'), String(RACE_SECONDS)], {stdio: 'ignore'})
    const raced = new Promise((resolve) => racer.once('exit', resolve))
    const refusals = new Map<string, number>()
    const deadline = Date.now() + RACE_SECONDS * 1000
    const caller = async () => {
      while (Date.now() < deadline) {
        for (const name of ['only0.txt', 'pw00.txt']) {
          const answer = await client.call('edit', {path: `dir/${name}`, old_text: 'an inside line', new_text: 'an inside line'})
          if (answer.isError) refusals.set(answer.text, (refusals.get(answer.text) ?? 0) + 1)
        }
      }
    }
    await Promise.all([caller(), caller(), caller()])
    await raced
    for (const text of refusals.keys()) {
      expect(text).to.not.match(/"dir\/[^"]*" is not a folder/)
      expect(text).to.not.include(SECRET)
      expect(text).to.not.match(/Internal error|\bE[A-Z]{3,}\b/)
    }
  })

  it('answers read, list and edit of a name that exists only outside exactly as of a name that exists nowhere', async () => {
    const racer = spawn(swapper, [path.join(ws, 'dir'), path.join(ws, 'link'), String(RACE_SECONDS)], {stdio: 'ignore'})
    const raced = new Promise((resolve) => racer.once('exit', resolve))
    // For each call, the answer (with its name replaced by NAME) and how often it came, for the right and the wrong outside name.
    const seen = new Map<string, Map<string, number>>()
    const calls = (name: string, folder: string): Array<[string, Record<string, unknown>]> => [
      ['read', {path: `dir/${name}`}],
      ['list', {path: `dir/${folder}`}],
      ['edit', {path: `dir/${name}`, old_text: 'root', new_text: 'root'}],
      ['edit', {path: `dir/${folder}/file.txt`, old_text: 'root', new_text: 'root'}],
    ]
    const note = (tool: string, name: string, text: string) => {
      const key = `${tool} ${name === 'shadow' ? 'right' : 'wrong'}`
      const counts = seen.get(key) ?? new Map<string, number>()
      const shape = text.replaceAll(/shadow|nowhere/g, 'NAME')
      counts.set(shape, (counts.get(shape) ?? 0) + 1)
      seen.set(key, counts)
    }
    const deadline = Date.now() + RACE_SECONDS * 1000
    const caller = async () => {
      while (Date.now() < deadline) {
        for (const name of ['shadow', 'nowhere']) {
          for (const [tool, args] of calls(`${name}.txt`, `${name}dir`)) {
            const answer = await client.call(tool, args)
            expect(answer.text).to.not.include(SECRET)
            note(`${tool} ${String(args.path).replace(name, '')}`, name, answer.text)
          }
        }
      }
    }
    await Promise.all([caller(), caller(), caller()])
    await raced
    const tools = new Set([...seen.keys()].map((key) => key.replace(/ (right|wrong)$/, '')))
    for (const tool of tools) {
      const right = seen.get(`${tool} right`) ?? new Map<string, number>()
      const wrong = seen.get(`${tool} wrong`) ?? new Map<string, number>()
      // An answer that came several times for one name and never for the other tells the names apart.
      for (const [mine, theirs] of [[right, wrong], [wrong, right]] as const) {
        for (const [shape, count] of mine) {
          expect(count >= ORACLE_MIN_COUNT && !theirs.has(shape), `${tool}: ${count} × "${shape}" for one name, never for the other`).to.equal(false)
        }
      }
    }
  })

  it('answers a regex for the right prefix of an outside file exactly as one for a wrong prefix', async () => {
    const racer = spawn(swapper, [path.join(ws, 'dir'), path.join(ws, 'link'), String(RACE_SECONDS)], {stdio: 'ignore'})
    const raced = new Promise((resolve) => racer.once('exit', resolve))
    const answers = new Map<string, Array<{text: string; structured: Record<string, unknown>}>>([
      ['^root:x', []],
      ['^root:q', []],
    ])
    const deadline = Date.now() + RACE_SECONDS * 1000
    const caller = async () => {
      while (Date.now() < deadline) {
        for (const [query, seen] of answers) {
          const answer = await client.call('search', {query, regex: true, path: '.'})
          expect(answer.isError, answer.text).to.equal(false)
          seen.push({text: answer.text, structured: answer.structured ?? {}})
        }
      }
    }
    await Promise.all([caller(), caller(), caller()])
    await raced
    for (const [query, seen] of answers) {
      expect(seen.length, query).to.be.greaterThan(5)
      for (const {text, structured} of seen) {
        // Nothing read outside: no line, no note on a file (only a swapped folder may be named), no count.
        expect(text, query).to.not.include(SECRET)
        expect(structured.matches, `${query}: ${text}`).to.deep.equal([])
        expect(structured.binary_files_skipped, `${query}: ${text}`).to.equal(0)
        const unreadable = structured.unreadable as Array<{path: string; why: string}>
        expect(unreadable.filter((entry) => !entry.path.endsWith('/')), `${query}: ${text}`).to.deep.equal([])
        expect((structured.files_searched as number) % (SHARED + INSIDE_ONLY), `${query}: ${text}`).to.equal(0)
      }
    }
  })
})
