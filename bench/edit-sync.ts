/**
 * What the two syncs of an atomic replace cost, as `edit` writes a file (src/exec/files/
 * atomic-write.ts): write a temporary file in the same folder, fsync it, rename it over the file,
 * fsync the folder. Times each variant (both syncs, the file's only, the folder's only, none),
 * alternated round by round, for a few file sizes, in a folder of `--dir` (default: the system's
 * temporary folder; pass a folder on the disk whose figures you want):
 *
 *   npx tsx bench/edit-sync.ts [--dir DIR] [--rounds 40]
 *
 * Prints the median and p90 in ms of each variant and size. Never part of `npm test`.
 */
import {mkdtempSync, rmSync} from 'node:fs'
import {open, rename} from 'node:fs/promises'
import {tmpdir} from 'node:os'
import path from 'node:path'
import {performance} from 'node:perf_hooks'
import {parseArgs} from 'node:util'
import {median} from './lib/measure.js'

const {values} = parseArgs({options: {dir: {type: 'string'}, rounds: {type: 'string', default: '40'}}})
const SIZES = [1024, 100 * 1024, 8 * 2 ** 20]
const VARIANTS = [
  {name: 'file and folder synced (ak today)', syncFile: true, syncFolder: true},
  {name: 'file synced only', syncFile: true, syncFolder: false},
  {name: 'folder synced only', syncFile: false, syncFolder: true},
  {name: 'no sync (official server)', syncFile: false, syncFolder: false},
]

const root = mkdtempSync(path.join(values.dir ?? tmpdir(), 'ak-edit-sync-'))
try {
  const folder = await open(root, 'r')
  for (const size of SIZES) {
    const data = Buffer.alloc(size, 'x\n')
    const target = path.join(root, `file-${size}`)
    const times = VARIANTS.map(() => [] as number[])
    for (let round = 0; round < Number(values.rounds); round++) {
      for (const [index, variant] of VARIANTS.entries()) {
        const temporary = path.join(root, `.tmp-${size}-${round}-${index}`)
        const started = performance.now()
        const handle = await open(temporary, 'wx')
        await handle.writeFile(data)
        if (variant.syncFile) await handle.sync()
        await handle.close()
        await rename(temporary, target)
        if (variant.syncFolder) await folder.sync()
        times[index]!.push(performance.now() - started)
      }
    }
    for (const [index, variant] of VARIANTS.entries()) {
      const sorted = [...times[index]!].sort((a, b) => a - b)
      const p90 = sorted[Math.floor(sorted.length * 0.9)]!
      console.log(`${String(size).padStart(8)} bytes  ${variant.name.padEnd(36)} median ${median(sorted).toFixed(2).padStart(7)} ms  p90 ${p90.toFixed(2).padStart(7)} ms`)
    }
  }
  await folder.close()
} finally {
  rmSync(root, {recursive: true, force: true})
}
