/**
 * What one process knows of its journal's records and blobs (journal.ts), kept between changes so
 * that recording a change costs the same with ten records as with ten thousand: no listing of the
 * records folder, no pass over every record to add up the journal's size.
 *
 * When it holds: records are added and dropped only under the journal's lock, and every record
 * added writes `last-id`. So while `last-id` says what this process last wrote or read there, no
 * other process added a record, and the tally has every record the journal has, except what other
 * processes removed meanwhile (changes they abandoned; with journaling off, their records dropped),
 * which it still counts. It may count more than is there, never less: what it drops to make room
 * and the blobs it removes are decided as a full read would decide them, or more carefully.
 * - A record another process committed meanwhile is still counted as in progress: never dropped.
 * - A blob is removed only when no record the tally knows refers to it. A record it does not know
 *   (added by another process since the last read) changes `last-id`, which makes the journal
 *   read the records again before it removes anything.
 * The journal reads every record again when `last-id` is not what the tally says, and every
 * TALLY_FULL_READ_EVERY changes, which also finds the blobs other processes left unreferenced.
 */

/** Changes recorded from a tally before the journal reads every record again. */
export const TALLY_FULL_READ_EVERY = 1000

/** One record as the tally keeps it. */
export interface TalliedRecord {
  /** Bytes its file takes. */
  bytes: number
  /** The blobs it refers to (the content before each of its files), each once. */
  digests: readonly string[]
  /** Whether it is applied (only an applied record may be dropped). */
  isApplied: boolean
}

/** What the tally decided to remove to make room: records by id, and blobs by digest. */
export interface RoomMade {
  records: number[]
  blobs: string[]
}

/** The records and blobs of one journal, as one process last saw and changed them. */
export class JournalTally {
  /** Records by id, oldest first (they are added in the order of their ids). */
  private readonly records = new Map<number, TalliedRecord>()
  /** Sizes of the blobs known, by digest. */
  private readonly blobs = new Map<string, number>()
  /** How many known records refer to each blob. */
  private readonly references = new Map<string, number>()
  /** Known blobs no known record refers to: removed at the next room made. */
  private readonly unreferenced = new Set<string>()
  private recordBytes = 0
  /** Bytes of the known blobs some known record refers to. */
  private referencedBlobBytes = 0
  /** Changes added since the records were last read in full. */
  private addedSinceRead = 0
  /** The highest id known. */
  private newestId = 0

  /**
   * @param lastId what `last-id` said when the records were read (or 0)
   * @param records every record read, oldest first
   * @param blobs the size of every blob listed, by digest
   */
  constructor(
    public lastId: number,
    records: Iterable<[number, TalliedRecord]>,
    blobs: Iterable<[string, number]>,
  ) {
    for (const [digest, size] of blobs) {
      this.blobs.set(digest, size)
      this.unreferenced.add(digest)
    }
    for (const [id, record] of [...records].sort(([a], [b]) => a - b)) this.put(id, record)
  }

  /** Whether the records should be read again before the next change: `last-id` says another process wrote, or it is time. */
  isStale(lastIdNow: number): boolean {
    return lastIdNow !== this.lastId || this.addedSinceRead >= TALLY_FULL_READ_EVERY
  }

  /** The id for the next record: after `last-id` and every record known. */
  nextId(): number {
    return Math.max(this.lastId, this.newestId) + 1
  }

  /**
   * Decides what goes so that a new record of `recordBytes` referring to the blobs `needed`
   * (digest to size) fits in `limit` bytes with everything kept, as journal.ts's module comment
   * says: the oldest applied records first (all of them if it does not fit at all), with each blob
   * no record left refers to, and every blob nothing refers to. Forgets what it decided; the
   * caller removes the files.
   */
  makeRoom(needed: ReadonlyMap<string, number>, recordBytes: number, limit: number): RoomMade {
    const room: RoomMade = {records: [], blobs: []}
    let total = recordBytes + this.recordBytes + this.referencedBlobBytes
    // A needed blob a record already refers to is counted once, in referencedBlobBytes.
    for (const [digest, size] of needed) if (!this.isReferenced(digest) || !this.blobs.has(digest)) total += this.blobs.get(digest) ?? size
    for (const [id, record] of this.records) {
      if (total <= limit) break
      if (!record.isApplied) continue
      total -= record.bytes
      for (const digest of record.digests) if ((this.references.get(digest) ?? 0) === 1 && !needed.has(digest)) total -= this.blobs.get(digest) ?? 0
      this.forget(id)
      room.records.push(id)
    }
    for (const digest of this.unreferenced) {
      if (needed.has(digest)) continue
      this.unreferenced.delete(digest)
      this.blobs.delete(digest)
      room.blobs.push(digest)
    }
    return room
  }

  /** Adds a record just written (in progress), with the sizes of the blobs it refers to. */
  add(id: number, record: TalliedRecord, blobSizes: ReadonlyMap<string, number>): void {
    for (const [digest, size] of blobSizes) {
      if (this.blobs.has(digest)) continue
      this.blobs.set(digest, size)
      this.unreferenced.add(digest)
    }
    this.put(id, record)
    this.lastId = Math.max(this.lastId, id)
    this.addedSinceRead++
  }

  /** Marks the record `id` applied. */
  commit(id: number): void {
    const record = this.records.get(id)
    if (record) this.records.set(id, {...record, isApplied: true})
  }

  /** Forgets the record `id` (abandoned); the blobs only it referred to go at the next room made. */
  forget(id: number): void {
    const record = this.records.get(id)
    if (!record) return
    this.records.delete(id)
    this.recordBytes -= record.bytes
    for (const digest of record.digests) {
      const count = (this.references.get(digest) ?? 0) - 1
      if (count > 0) {
        this.references.set(digest, count)
        continue
      }
      this.references.delete(digest)
      if (this.blobs.has(digest)) {
        this.referencedBlobBytes -= this.blobs.get(digest)!
        this.unreferenced.add(digest)
      }
    }
  }

  /** Bytes the known records and the blobs they refer to take. */
  get bytes(): number {
    return this.recordBytes + this.referencedBlobBytes
  }

  private isReferenced(digest: string): boolean {
    return (this.references.get(digest) ?? 0) > 0
  }

  private put(id: number, record: TalliedRecord): void {
    const digests = [...new Set(record.digests)]
    this.records.set(id, {...record, digests})
    this.recordBytes += record.bytes
    this.newestId = Math.max(this.newestId, id)
    for (const digest of digests) {
      const count = (this.references.get(digest) ?? 0) + 1
      this.references.set(digest, count)
      if (count === 1 && this.blobs.has(digest)) {
        this.referencedBlobBytes += this.blobs.get(digest)!
        this.unreferenced.delete(digest)
      }
    }
  }
}
