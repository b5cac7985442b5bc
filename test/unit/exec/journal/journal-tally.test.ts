import {expect} from 'chai'

import {JournalTally, TALLY_FULL_READ_EVERY} from '../../../../src/exec/journal/journal-tally.js'

const applied = (bytes: number, ...digests: string[]) => ({bytes, digests, isApplied: true})
const inProgress = (bytes: number, ...digests: string[]) => ({bytes, digests, isApplied: false})

describe('the tally of a journal (JournalTally)', () => {
  it('counts records and the blobs they refer to, each blob once, and gives ids after last-id and every record', () => {
    const tally = new JournalTally(
      7,
      [
        [3, applied(100, 'a', 'b')],
        [5, applied(100, 'a')],
      ],
      [
        ['a', 1000],
        ['b', 2000],
        ['orphan', 5000],
      ],
    )
    expect(tally.bytes).to.equal(200 + 3000)
    expect(tally.nextId()).to.equal(8)
    expect(new JournalTally(0, [[9, applied(1)]], []).nextId()).to.equal(10)
  })

  it('drops the oldest applied records first, never one in progress, with the blobs no record left refers to', () => {
    const tally = new JournalTally(
      4,
      [
        [1, applied(100, 'a')],
        [2, inProgress(100, 'b')],
        [3, applied(100, 'c', 'shared')],
        [4, applied(100, 'shared')],
      ],
      [
        ['a', 1000],
        ['b', 1000],
        ['c', 1000],
        ['shared', 1000],
        ['orphan', 1000],
      ],
    )
    // 400 + 4000 now; a new record of 100 with a new blob of 1000: 5500. Room for 4000.
    const room = tally.makeRoom(new Map([['new', 1000]]), 100, 4000)
    expect(room.records).to.deep.equal([1, 3])
    expect([...room.blobs].sort()).to.deep.equal(['a', 'c', 'orphan'])
    expect(tally.bytes).to.equal(200 + 2000)
    // Nothing fits: everything applied goes, the record in progress stays.
    expect(tally.makeRoom(new Map(), 100, 0).records).to.deep.equal([4])
    expect(tally.bytes).to.equal(100 + 1000)
  })

  it('keeps a blob the new record needs, and counts it once when a record already refers to it', () => {
    const tally = new JournalTally(
      2,
      [
        [1, applied(100, 'a')],
        [2, applied(100, 'b')],
      ],
      [
        ['a', 1000],
        ['b', 1000],
      ],
    )
    // The new record refers to b again: 200 + 2000 + 100, which fits in 2300 without dropping anything.
    expect(tally.makeRoom(new Map([['b', 1000]]), 100, 2300)).to.deep.equal({records: [], blobs: []})
    // Dropping record 2 would leave b to the new record: it is not removed.
    const room = tally.makeRoom(new Map([['b', 1000]]), 100, 1100)
    expect(room).to.deep.equal({records: [1, 2], blobs: ['a']})
  })

  it('follows commits and abandons: an abandoned record\'s blob goes at the next room made, unless another record needs it', () => {
    const tally = new JournalTally(0, [], [])
    tally.add(1, inProgress(102, 'a'), new Map([['a', 1000]]))
    tally.add(2, inProgress(102, 'b'), new Map([['b', 1000]]))
    expect(tally.nextId()).to.equal(3)
    tally.commit(1)
    tally.forget(2)
    expect(tally.bytes).to.equal(102 + 1000)
    expect(tally.makeRoom(new Map(), 0, Number.POSITIVE_INFINITY)).to.deep.equal({records: [], blobs: ['b']})
    // A record in progress is never dropped to make room; once applied it may be.
    tally.add(3, inProgress(102, 'c'), new Map([['c', 1000]]))
    expect(tally.makeRoom(new Map(), 0, 0).records).to.deep.equal([1])
    tally.commit(3)
    expect(tally.makeRoom(new Map(), 0, 0)).to.deep.equal({records: [3], blobs: ['c']})
    expect(tally.bytes).to.equal(0)
  })

  it('is stale once last-id moved under it, and after TALLY_FULL_READ_EVERY changes', () => {
    const tally = new JournalTally(5, [], [])
    expect(tally.isStale(5)).to.equal(false)
    expect(tally.isStale(6)).to.equal(true)
    for (let id = 6; id < 6 + TALLY_FULL_READ_EVERY; id++) {
      expect(tally.isStale(id - 1)).to.equal(false)
      tally.add(id, applied(1), new Map())
    }
    expect(tally.isStale(5 + TALLY_FULL_READ_EVERY)).to.equal(true)
  })
})
