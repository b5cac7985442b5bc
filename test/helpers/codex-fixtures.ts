/**
 * Builders for Codex agent runtime fixtures in temporary folders: file trees, Codex homes with
 * trust entries, and a stand-in `codex` executable that records how it was called.
 */
import {chmod, mkdir, mkdtemp, readFile, realpath, rm, writeFile} from 'node:fs/promises'
import {tmpdir} from 'node:os'
import path from 'node:path'

/** Writes `files` (relative path → content) under `root`, creating folders. */
export async function writeTree(root: string, files: Record<string, string>): Promise<void> {
  for (const [relative, content] of Object.entries(files)) {
    const file = path.join(root, relative)
    await mkdir(path.dirname(file), {recursive: true})
    await writeFile(file, content)
  }
}

/** A fresh temporary folder with symlinks resolved, and its removal. */
export async function tempDir(prefix: string): Promise<{dir: string; remove(): Promise<void>}> {
  const dir = await realpath(await mkdtemp(path.join(tmpdir(), prefix)))
  return {dir, remove: () => rm(dir, {recursive: true, force: true})}
}

/** config.toml text trusting (or not) the given folders. */
export function trustConfig(entries: Record<string, 'trusted' | 'untrusted'>, extra = ''): string {
  return (
    Object.entries(entries)
      .map(([folder, level]) => `[projects.${JSON.stringify(folder)}]\ntrust_level = "${level}"\n`)
      .join('\n') + extra
  )
}

/** One recorded run of the stand-in `codex`. */
export interface StandInRun {
  argv: string[]
  stdin: string
  cwd: string
  codexHome: string | undefined
}

/**
 * Writes an executable `codex` into `binDir` that appends a JSON line about each run to
 * `recordFile` and then acts on its prompt (stdin):
 * - containing `FAIL`: prints "model exploded" on stderr and exits 3;
 * - containing `HANG`: starts a child that sleeps, writes both pids to `<recordFile>.pids`, and waits forever;
 * - containing `FLOOD`: prints 3 MiB on stdout;
 * - otherwise: prints a progress line on stderr and `answer: <prompt>` on stdout.
 */
export async function writeStandInCodex(binDir: string, recordFile: string): Promise<string> {
  const script = `#!${process.execPath}
const fs = require('node:fs')
const {spawn} = require('node:child_process')
let stdin = ''
process.stdin.on('data', (chunk) => (stdin += chunk))
process.stdin.on('end', () => {
  fs.appendFileSync(${JSON.stringify(recordFile)}, JSON.stringify({argv: process.argv.slice(2), stdin, cwd: process.cwd(), codexHome: process.env.CODEX_HOME}) + '\\n')
  if (stdin.includes('FAIL')) {
    process.stderr.write('model exploded\\n')
    process.exit(3)
  }
  if (stdin.includes('HANG')) {
    const child = spawn(process.execPath, ['-e', 'setInterval(() => {}, 1000)'], {stdio: 'ignore'})
    fs.writeFileSync(${JSON.stringify(recordFile)} + '.pids', JSON.stringify([process.pid, child.pid]))
    process.stderr.write('working on it\\n')
    setInterval(() => {}, 1000)
    return
  }
  if (stdin.includes('FLOOD')) {
    process.stdout.write('x'.repeat(3 * 1024 * 1024))
    return
  }
  process.stderr.write('thinking\\n')
  process.stdout.write('answer: ' + stdin + '\\n')
})
`
  await mkdir(binDir, {recursive: true})
  const file = path.join(binDir, 'codex')
  await writeFile(file, script)
  await chmod(file, 0o755)
  return file
}

/** The runs recorded by the stand-in so far. */
export async function standInRuns(recordFile: string): Promise<StandInRun[]> {
  const text = await readFile(recordFile, 'utf8').catch(() => '')
  return text
    .split('\n')
    .filter(Boolean)
    .map((line) => JSON.parse(line) as StandInRun)
}

export {isAlive} from './processes.js'

/** Waits until `check()` holds, polling; fails after `limitMs` (a safety net, not a timing assertion). */
export async function eventually(check: () => boolean | Promise<boolean>, limitMs = 20_000): Promise<void> {
  const end = Date.now() + limitMs
  while (!(await check())) {
    if (Date.now() > end) throw new Error('condition not reached')
    await new Promise((resolve) => setTimeout(resolve, 50))
  }
}
