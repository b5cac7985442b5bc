/**
 * Keeping the first entries of a folder in sorted order while reading it once, in memory bounded
 * by how many are kept rather than by the folder: `list`'s window (folder-window.ts) and
 * `search`'s listing of a huge folder (search/walk-task.ts).
 */

/**
 * A max-heap of entries by `key`, holding at most `capacity`: the smallest keys offered. Keys are
 * compared as JavaScript strings; names held as Latin-1 strings (one character per byte) so
 * compare as their bytes, the order `list` and `search` give (see folder-window.ts).
 */
export class SmallestNames<Entry extends {key: string}> {
  private readonly heap: Entry[] = []

  constructor(private readonly capacity: number) {}

  get size(): number {
    return this.heap.length
  }

  offer(entry: Entry): void {
    const {heap} = this
    if (heap.length < this.capacity) {
      heap.push(entry)
      this.up(heap.length - 1)
    } else if (this.capacity > 0 && entry.key < heap[0]!.key) {
      heap[0] = entry
      this.down(0)
    }
  }

  /** The names held, ascending. */
  sorted(): Entry[] {
    return this.heap.sort((a, b) => (a.key < b.key ? -1 : a.key > b.key ? 1 : 0))
  }

  private up(index: number): void {
    const {heap} = this
    let i = index
    while (i > 0) {
      const parent = (i - 1) >> 1
      if (heap[i]!.key <= heap[parent]!.key) break
      ;[heap[i], heap[parent]] = [heap[parent]!, heap[i]!]
      i = parent
    }
  }

  private down(index: number): void {
    const {heap} = this
    let i = index
    for (;;) {
      const left = 2 * i + 1
      const right = left + 1
      let largest = i
      if (left < heap.length && heap[left]!.key > heap[largest]!.key) largest = left
      if (right < heap.length && heap[right]!.key > heap[largest]!.key) largest = right
      if (largest === i) return
      ;[heap[i], heap[largest]] = [heap[largest]!, heap[i]!]
      i = largest
    }
  }
}
