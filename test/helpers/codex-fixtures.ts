/**
 * Builders for Codex agent runtime fixtures in temporary folders: file trees, Codex homes with
 * trust entries, and a stand-in `codex` executable that records how it was called.
 */
import {chmod, mkdir, mkdtemp, readFile, realpath, rm, writeFile} from 'node:fs/promises'
import {tmpdir} from 'node:os'
import path from 'node:path'
import {fileURLToPath} from 'node:url'

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
  /** AGENTEXEC_TOKEN as the run saw it (absent when it was not set). */
  agentexecToken?: string
}

/**
 * Writes an executable `codex` into `binDir` that appends a JSON line about each run to
 * `recordFile` and then acts on its prompt (stdin):
 * - containing `FAIL`: prints "model exploded" on stderr and exits 3;
 * - containing `HANG`: starts a child that sleeps, writes both pids to `<recordFile>.pids`, and waits forever;
 * - containing `DAEMON`: starts a daemon of its own session that holds its stdout open, writes its pid to
 *   `<recordFile>.daemon`, answers and exits (with `STAY` too: waits forever instead of exiting);
 * - containing `FLOOD`: prints 3 MiB on stdout;
 * - containing `SLOW`: prints a progress line on stderr, then after 4 s `answer: <prompt>` on stdout;
 * - otherwise: prints a progress line on stderr and `answer: <prompt>` on stdout.
 */
export async function writeStandInCodex(binDir: string, recordFile: string): Promise<string> {
  const script = `#!${process.execPath}
const fs = require('node:fs')
const {spawn} = require('node:child_process')
let stdin = ''
process.stdin.on('data', (chunk) => (stdin += chunk))
process.stdin.on('end', () => {
  fs.appendFileSync(${JSON.stringify(recordFile)}, JSON.stringify({argv: process.argv.slice(2), stdin, cwd: process.cwd(), codexHome: process.env.CODEX_HOME, agentexecToken: process.env.AGENTEXEC_TOKEN}) + '\\n')
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
  if (stdin.includes('DAEMON')) {
    // A daemon of its own session that keeps this run's stdout open after the run ends.
    const daemon = spawn(process.execPath, ['-e', 'setInterval(() => {}, 1000)'], {detached: true, stdio: ['ignore', 'inherit', 'ignore']})
    daemon.unref()
    fs.writeFileSync(${JSON.stringify(recordFile)} + '.daemon', String(daemon.pid))
    process.stdout.write('answer: ' + stdin + '\\n')
    if (stdin.includes('STAY')) setInterval(() => {}, 1000)
    else process.exit(0)
    return
  }
  if (stdin.includes('SLOW')) {
    process.stderr.write('slowly thinking\\n')
    setTimeout(() => process.stdout.write('answer: ' + stdin + '\\n'), 4000)
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

/**
 * How the recursive stand-in starts MCP servers:
 * - `as-codex`: as Codex does (its child, with the reduced environment plus the entry's `env`);
 * - `detached`: the same environment, but started through a shell that exits at once, so the
 *   server is no descendant of the stand-in (only the `env` marker can tell it where it runs);
 * - `without-entry-env`: its child, with the reduced environment but without the entry's `env`
 *   (only its ancestors can tell it where it runs).
 */
export type ServerStart = 'as-codex' | 'detached' | 'without-entry-env'

/** What one run of the recursive stand-in did: the servers it started and what their agent tools answered. */
export interface RecursiveRun {
  argv: string[]
  started: string[]
  calls: Array<{server: string; tool: string; isError: boolean; text: string}>
}

/**
 * Variables Codex gives a stdio MCP server besides the entry's `env_vars` and `env`
 * (notes/codex.md §3: it clears the environment first).
 */
export const CODEX_SERVER_ENV = ['HOME', 'LOGNAME', 'PATH', 'SHELL', 'USER', 'LANG', 'LC_ALL', 'TERM', 'TMPDIR', 'TZ']

/**
 * Writes an executable `codex` into `binDir` that does with MCP servers what `codex exec` does:
 * reads `$CODEX_HOME/config.toml`, applies its `-c key=value` overrides (the value read as TOML,
 * else as a string), starts every `[mcp_servers.*]` entry with a `command` that is not
 * `enabled = false` (see ServerStart), and calls every `agent_*` tool each offers with a prompt.
 * It records each run as a JSON line in `recordFile` (a line when it starts, counted to stop a
 * runaway chain after a few runs, and one with what it did), then answers on stdout.
 */
export async function writeRecursiveStandInCodex(binDir: string, recordFile: string, start: ServerStart): Promise<string> {
  const smolToml = path.join(path.dirname(fileURLToPath(import.meta.url)), '..', '..', 'node_modules', 'smol-toml', 'dist', 'index.cjs')
  const script = `#!${process.execPath}
const fs = require('node:fs')
const path = require('node:path')
const {spawn} = require('node:child_process')
const {parse} = require(${JSON.stringify(smolToml)})
const record = ${JSON.stringify(recordFile)}
const START = ${JSON.stringify(start)}
const REDUCED = ${JSON.stringify(CODEX_SERVER_ENV)}
const argv = process.argv.slice(2)
const previous = fs.existsSync(record) ? fs.readFileSync(record, 'utf8').split('\\n').filter((line) => line.includes('"start"')).length : 0
fs.appendFileSync(record, JSON.stringify({kind: 'start', argv}) + '\\n')

function set(config, key, value) {
  const parts = key.split('.')
  let table = config
  for (const part of parts.slice(0, -1)) table = table[part] && typeof table[part] === 'object' ? table[part] : (table[part] = {})
  table[parts.at(-1)] = value
}
function valueOf(text) {
  try { return parse('v = ' + text).v } catch { return text }
}

function callServer(name, entry) {
  return new Promise((resolve) => {
    const env = {}
    for (const key of REDUCED) if (process.env[key] !== undefined) env[key] = process.env[key]
    for (const key of entry.env_vars ?? []) if (process.env[key] !== undefined) env[key] = process.env[key]
    if (START !== 'without-entry-env') Object.assign(env, entry.env ?? {})
    const args = entry.args ?? []
    let child
    if (START === 'detached') {
      // Through FIFOs: Node closes a child's stdin pipe once the child (the shell) exits.
      const fifos = fs.mkdtempSync(path.join(require('node:os').tmpdir(), 'stand-in-'))
      const [input, output] = [path.join(fifos, 'in'), path.join(fifos, 'out')]
      require('node:child_process').execFileSync('mkfifo', [input, output])
      spawn('/bin/sh', ['-c', 'in=$1; out=$2; shift 2; "$@" <"$in" >"$out" &', 'sh', input, output, entry.command, ...args], {env, cwd: entry.cwd ?? process.cwd(), stdio: ['ignore', 'ignore', 'inherit']})
      child = {stdin: fs.createWriteStream(input), stdout: fs.createReadStream(output, {encoding: 'utf8'}), on() {}}
    } else {
      child = spawn(entry.command, args, {env, cwd: entry.cwd ?? process.cwd(), stdio: ['pipe', 'pipe', 'inherit']})
    }
    child.stdin.on('error', () => undefined)
    const calls = []
    const waiting = new Map()
    let buffered = ''
    let nextId = 1
    child.stdout.on('data', (chunk) => {
      buffered += chunk
      let end
      while ((end = buffered.indexOf('\\n')) >= 0) {
        const line = buffered.slice(0, end)
        buffered = buffered.slice(end + 1)
        let message
        try { message = JSON.parse(line) } catch { continue }
        if (message.id !== undefined && waiting.has(message.id)) waiting.get(message.id)(message)
      }
    })
    const finish = () => { child.stdin.end(); resolve(calls) }
    child.stdout.on('end', () => { for (const answer of waiting.values()) answer({error: {message: 'server ended'}}) })
    child.on('error', () => resolve(calls))
    const request = (method, params) => new Promise((answer) => {
      const id = nextId++
      waiting.set(id, answer)
      child.stdin.write(JSON.stringify({jsonrpc: '2.0', id, method, params}) + '\\n')
    })
    ;(async () => {
      await request('initialize', {protocolVersion: '2025-06-18', capabilities: {}, clientInfo: {name: 'codex-stand-in', version: '1'}})
      child.stdin.write(JSON.stringify({jsonrpc: '2.0', method: 'notifications/initialized'}) + '\\n')
      const listed = await request('tools/list', {})
      for (const tool of listed.result?.tools ?? []) {
        if (!tool.name.startsWith('agent_')) continue
        const answer = await request('tools/call', {name: tool.name, arguments: {prompt: 'nested call'}})
        const text = (answer.result?.content ?? []).map((block) => block.text ?? '').join('') || answer.error?.message || ''
        calls.push({server: name, tool: tool.name, isError: answer.result?.isError === true || answer.error !== undefined, text})
      }
      finish()
    })()
  })
}

let stdin = ''
process.stdin.on('data', (chunk) => (stdin += chunk))
process.stdin.on('end', async () => {
  const config = fs.existsSync(path.join(process.env.CODEX_HOME ?? '', 'config.toml')) ? parse(fs.readFileSync(path.join(process.env.CODEX_HOME, 'config.toml'), 'utf8')) : {}
  for (let index = 0; index < argv.length - 1; index++) {
    if (argv[index] !== '-c') continue
    const pair = argv[index + 1]
    const equals = pair.indexOf('=')
    set(config, pair.slice(0, equals), valueOf(pair.slice(equals + 1)))
  }
  const started = []
  const calls = []
    // A guard that fails would start runs without end: a few are enough to show it.
  if (previous < 4) {
    for (const [name, entry] of Object.entries(config.mcp_servers ?? {})) {
      if (entry.enabled === false || typeof entry.command !== 'string') continue
      started.push(name)
      calls.push(...(await callServer(name, entry)))
    }
  }
  fs.appendFileSync(record, JSON.stringify({kind: 'result', argv, started, calls}) + '\\n')
  process.stdout.write('answer: ' + stdin + '\\n')
})
`
  await mkdir(binDir, {recursive: true})
  const file = path.join(binDir, 'codex')
  await writeFile(file, script)
  await chmod(file, 0o755)
  return file
}

/** The runs of the recursive stand-in: how many started, and what the finished ones did. */
export async function recursiveRuns(recordFile: string): Promise<{started: number; results: RecursiveRun[]}> {
  const lines = (await readFile(recordFile, 'utf8').catch(() => ''))
    .split('\n')
    .filter(Boolean)
    .map((line) => JSON.parse(line) as {kind: 'start' | 'result'} & RecursiveRun)
  return {started: lines.filter((line) => line.kind === 'start').length, results: lines.filter((line) => line.kind === 'result')}
}
