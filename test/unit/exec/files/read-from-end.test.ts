import {expect} from 'chai'
import {mkdtemp, open, rm, writeFile} from 'node:fs/promises'
import {tmpdir} from 'node:os'
import path from 'node:path'

import {readFromEnd} from '../../../../src/exec/files/read-from-end.js'

/** The lines of `text` as read shows them: split at \n, a trailing \r dropped, no empty line after a last \n. */
function linesOf(text: string): string[] {
  if (text === '') return []
  const lines = text.replace(/^\uFEFF/, '').split('\n')
  if (text.endsWith('\n')) lines.pop()
  return lines.map((line) => line.replace(/\r$/, ''))
}

describe('readFromEnd (read with a negative offset)', () => {
  let dir: string

  before(async () => {
    dir = await mkdtemp(path.join(tmpdir(), 'ak-read-end-'))
  })
  after(async () => {
    await rm(dir, {recursive: true, force: true})
  })

  async function tail(text: string | Buffer, linesFromEnd: number, options: {limit?: number; chunkBytes?: number; maxCountBytes?: number} = {}) {
    const file = path.join(dir, 'f.txt')
    await writeFile(file, text)
    const handle = await open(file, 'r')
    try {
      const {size} = await handle.stat()
      return await readFromEnd(handle, size, {
        linesFromEnd,
        limit: options.limit ?? 100,
        maxLineChars: 1000,
        maxAnswerChars: 100_000,
        maxClippedScanBytes: 1_000_000,
        chunkBytes: options.chunkBytes ?? 64 * 1024,
        maxCountBytes: options.maxCountBytes ?? 1024 * 1024,
        signal: new AbortController().signal,
      })
    } finally {
      await handle.close()
    }
  }

  const texts = ['a\nb\nc\nd\ne\n', 'a\nb\nc\nd\ne', 'one\r\ntwo\r\n\r\nfour\r\n', '\n\n\n', 'x', '\n', 'é😀\nß\n😀😀😀\n', '\uFEFFbom\nline\n']
  for (const text of texts) {
    it(`shows the last lines of ${JSON.stringify(text)}, numbered from the start, at every chunk size`, async () => {
      const all = linesOf(text)
      for (const chunkBytes of [1, 2, 3, 7, 64]) {
        for (let count = 1; count <= all.length + 2; count++) {
          const {window, isCounted} = await tail(text, count, {chunkBytes})
          const first = Math.max(1, all.length - count + 1)
          const label = `chunk ${chunkBytes}, last ${count}`
          expect(isCounted, label).to.equal(true)
          expect(window.lines.map((line) => line.text), label).to.deep.equal(all.slice(first - 1))
          expect(window.lines.map((line) => line.number), label).to.deep.equal(all.slice(first - 1).map((_, index) => first + index))
          expect(window.end, label).to.equal('eof')
          expect(window.totalLines, label).to.equal(all.length)
        }
      }
    })
  }

  it('answers an empty file with no lines', async () => {
    const {window} = await tail('', 5)
    expect(window.lines).to.deep.equal([])
    expect(window.totalLines).to.equal(0)
  })

  it('numbers lines from the end when the lines before them were not counted', async () => {
    const text = Array.from({length: 50}, (_, index) => `line ${index + 1}`).join('\n') + '\n'
    const {window, isCounted} = await tail(text, 3, {chunkBytes: 16, maxCountBytes: 10})
    expect(isCounted).to.equal(false)
    expect(window.lines.map((line) => [line.number, line.text])).to.deep.equal([
      [-3, 'line 48'],
      [-2, 'line 49'],
      [-1, 'line 50'],
    ])
  })

  it('stops after limit lines and says more follow', async () => {
    const text = Array.from({length: 50}, (_, index) => `line ${index + 1}`).join('\n')
    const counted = await tail(text, 10, {limit: 4})
    expect(counted.window.lines.map((line) => line.number)).to.deep.equal([41, 42, 43, 44])
    expect(counted.window.end).to.equal('limit')
    const uncounted = await tail(text, 10, {limit: 4, maxCountBytes: 0})
    expect(uncounted.window.lines.map((line) => [line.number, line.text])).to.deep.equal([
      [-10, 'line 41'],
      [-9, 'line 42'],
      [-8, 'line 43'],
      [-7, 'line 44'],
    ])
  })
})
