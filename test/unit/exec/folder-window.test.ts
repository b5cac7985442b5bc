import {expect} from 'chai'
import {mkdtemp, rm, writeFile, mkdir, symlink} from 'node:fs/promises'
import {tmpdir} from 'node:os'
import path from 'node:path'

import {type FolderPass, type PassEntry, folderPass, folderWindow} from '../../../src/exec/folder-window.js'

/** A pass over `names` in the given order, counting the passes and the most entries any pass saw at once. */
function passOver(names: Buffer[]): FolderPass & {passes: number} {
  const pass = (async (visit: (entry: PassEntry) => void) => {
    pass.passes++
    for (const name of names) visit({key: name.toString('latin1'), type: 'file'})
  }) as FolderPass & {passes: number}
  pass.passes = 0
  return pass
}

/** Names in a shuffled order, some not UTF-8, some sharing long prefixes. */
function shuffledNames(count: number, seed: number): Buffer[] {
  let state = seed
  const random = () => {
    state = (state * 1_103_515_245 + 12_345) % 2 ** 31
    return state / 2 ** 31
  }
  const names = Array.from({length: count}, (_, i) =>
    i % 7 === 0 ? Buffer.from([0xff, i % 251, i >> 8, i & 0xff]) : Buffer.from(`entry-${String(i).padStart(6, '0')}-${(i * 7919) % 1000}`),
  )
  for (let i = names.length - 1; i > 0; i--) {
    const j = Math.floor(random() * (i + 1))
    ;[names[i], names[j]] = [names[j]!, names[i]!]
  }
  return names
}

describe('folderWindow: a window of a folder in sorted order, holding a bounded number of names', () => {
  const names = shuffledNames(5000, 42)
  const sorted = [...names].sort(Buffer.compare)
  const limits = {maxHeld: 300, sampleSize: 64}

  for (const [first, limit] of [
    [1, 100],
    [201, 100],
    [250, 100],
    [301, 100],
    [1234, 100],
    [2500, 1],
    [4901, 100],
    [4950, 100],
    [5000, 100],
    [5001, 100],
  ] as const) {
    it(`gives the entries at ${first} to ${first + limit - 1} of 5000 exactly as a full sort does`, async () => {
      const pass = passOver(names)
      const window = await folderWindow(pass, first, limit, limits)
      expect(window.total).to.equal(5000)
      expect(window.entries.map((entry) => entry.name.toString('hex'))).to.deep.equal(sorted.slice(first - 1, first - 1 + limit).map((name) => name.toString('hex')))
      expect(window.passes).to.equal(pass.passes)
      if (first - 1 + limit <= limits.maxHeld) expect(window.passes, 'a window within the first pass').to.equal(1)
    })
  }

  it('finds a window deep in the folder in a few passes, not one per held batch', async () => {
    const pass = passOver(names)
    const window = await folderWindow(pass, 4000, 100, {maxHeld: 300, sampleSize: 1024})
    expect(window.entries[0]!.name.toString('hex')).to.equal(sorted[3999]!.toString('hex'))
    // Stepping alone takes 4000 / 300 ≈ 14 passes; from the sample's estimate (its position is
    // off by about 70 entries, one standard deviation) it takes 2 or 3.
    expect(pass.passes).to.be.at.most(6)
  })

  it('lists every entry once across consecutive windows', async () => {
    const seen: string[] = []
    for (let first = 1; first <= 5000; first += 700) {
      const window = await folderWindow(passOver(names), first, Math.min(300, 700), limits)
      seen.push(...window.entries.map((entry) => entry.name.toString('hex')))
      const rest = await folderWindow(passOver(names), first + 300, 300, limits)
      seen.push(...rest.entries.map((entry) => entry.name.toString('hex')))
      const tail = await folderWindow(passOver(names), first + 600, 100, limits)
      seen.push(...tail.entries.map((entry) => entry.name.toString('hex')))
    }
    expect(seen).to.deep.equal(sorted.map((name) => name.toString('hex')))
  })

  it('answers an empty folder with no entries', async () => {
    expect(await folderWindow(passOver([]), 1, 100, limits)).to.deep.equal({entries: [], total: 0, passes: 1})
  })

  it('refuses a window larger than a pass holds', async () => {
    let error: unknown
    await folderWindow(passOver(names), 1, 301, limits).catch((caught: unknown) => (error = caught))
    expect(error).to.be.instanceOf(RangeError)
  })
})

describe('folderPass: one pass over a real folder', () => {
  let dir: string
  before(async () => {
    dir = await mkdtemp(path.join(tmpdir(), 'ak-folder-pass-'))
    await writeFile(path.join(dir, 'file.txt'), 'x')
    await mkdir(path.join(dir, 'sub'))
    await symlink('file.txt', path.join(dir, 'link'))
    await writeFile(Buffer.concat([Buffer.from(`${dir}/`), Buffer.from([0x6e, 0xff])]), '')
  })
  after(() => rm(dir, {recursive: true, force: true}))

  for (const [how, sizeBytes] of [
    ['in batches (a size of 0 says nothing)', 0],
    ['in batches (a large folder)', 1024 * 1024],
    ['in one call (a small folder)', 4096],
  ] as const) {
  it(`gives every name as bytes with the type the listing says, read ${how}`, async () => {
    const seen: Array<[string, string]> = []
    await folderPass(Buffer.from(dir), sizeBytes)((entry) => seen.push([Buffer.from(entry.key, 'latin1').toString('hex'), entry.type]))
    expect(seen.sort()).to.deep.equal(
      [
        [Buffer.from('file.txt').toString('hex'), 'file'],
        [Buffer.from('link').toString('hex'), 'symlink'],
        ['6eff', 'file'],
        [Buffer.from('sub').toString('hex'), 'folder'],
      ].sort(),
    )
  })
  }
})
