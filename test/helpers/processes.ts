/** Process checks for tests that must prove a command was stopped. */
import {expect} from 'chai'
import {spawnSync} from 'node:child_process'
import {chmodSync, existsSync, mkdtempSync, readFileSync} from 'node:fs'
import {writeFile} from 'node:fs/promises'
import {tmpdir} from 'node:os'
import path from 'node:path'
import {setTimeout as sleep} from 'node:timers/promises'

import {REPO_ROOT, RUN_JS, type TestClient} from './clients.js'

/** Whether `pid` is a live process (a zombie waiting to be reaped counts as gone). */
export function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0)
  } catch {
    return false
  }
  try {
    // The state follows the command name, which may itself hold ") Z ": read it after the last ")".
    const stat = readFileSync(`/proc/${pid}/stat`, 'latin1')
    return stat.slice(stat.lastIndexOf(')') + 2, stat.lastIndexOf(')') + 3) !== 'Z'
  } catch {
    return false
  }
}

/** Waits until `pid` is gone, checking every 50 ms for at most `limitMs`; returns whether it went. */
export async function waitUntilGone(pid: number, limitMs = 20_000): Promise<boolean> {
  for (let waited = 0; waited < limitMs; waited += 50) {
    if (!isAlive(pid)) return true
    await sleep(50)
  }
  return !isAlive(pid)
}

/** A long `sleep` started through `exec_command`, still running. */
export interface RunningSleep {
  sessionId: string
  /** The sleep's pid (the shell replaced itself with it). */
  pid: number
}

/** Starts `sleep 300` through the client's `exec_command` and reads its pid from its output. */
export async function startSleep(client: TestClient): Promise<RunningSleep> {
  const started = await client.call('exec_command', {cmd: 'echo "pid=$$"; exec sleep 300', yield_time_ms: 1000})
  expect(started.isError, started.text).to.equal(false)
  expect(started.structured?.exit_code, started.text).to.equal('running')
  const sessionId = started.structured?.session_id as string
  let output = String(started.structured?.text ?? '')
  // A slow login shell may not have printed yet; a newline on sleep's stdin is harmless.
  for (let polls = 0; polls < 20 && !/pid=\d+/.test(output); polls++) {
    const more = await client.call('write_stdin', {session_id: sessionId, chars: '\n', yield_time_ms: 1000})
    output += String(more.structured?.text ?? '')
  }
  const pid = Number(/pid=(\d+)/.exec(output)?.[1])
  expect(pid, output).to.be.above(0)
  expect(isAlive(pid)).to.equal(true)
  return {sessionId, pid}
}

/**
 * Why a server of this checkout cannot run as user `uid` here (undefined when it can): the
 * checkout or its Node.js lies below a folder that user may not enter (a clone in a `mktemp -d`
 * folder, mode 0700), or setpriv is missing or not allowed. Tests that serve as another user skip
 * with this reason.
 */
export function cannotServeAs(uid: number, entry: string, node = process.execPath): string | undefined {
  if (process.getuid?.() !== 0 && process.getuid?.() !== uid) return 'running a server as another user needs root'
  const probe = spawnSync('setpriv', [`--reuid=${uid}`, `--regid=${uid}`, '--clear-groups', node, '-e', 'require("fs").accessSync(process.argv[1], 4)', entry])
  if (probe.error) return `setpriv could not run (${probe.error.message})`
  if (probe.status !== 0) return `uid ${uid} cannot read ${entry} or run ${process.execPath} (a folder above is closed to it)`
  return undefined
}

/** The Node.js and the bin/run.js a server of this checkout runs with. */
export interface ServerFiles {
  node: string
  runJs: string
}

/** What the server needs of the checkout, copied for another user (see serverFilesFor). */
const SERVER_PARTS = ['bin', 'dist', 'node_modules', 'package.json', 'oclif.manifest.json']
let reachableCopy: ServerFiles | string | undefined

/**
 * The Node.js and bin/run.js with which user `uid` can run this checkout's server: the checkout's
 * own when that user can reach them, else a copy of what the server needs in a folder every user
 * can enter (made once per test process with hard links, so it costs seconds, not a gigabyte, and
 * removed at exit). So the tests that serve as another user run wherever the clone lies, a clone in
 * a private `mktemp -d` folder (mode 0700) included.
 * @returns why the server cannot run as `uid` here, as a string, when neither works
 */
export function serverFilesFor(uid: number): ServerFiles | string {
  const own = {node: process.execPath, runJs: RUN_JS}
  const reason = cannotServeAs(uid, own.runJs, own.node)
  if (reason === undefined) return own
  if (!reason.startsWith(`uid ${uid} cannot read`)) return reason
  reachableCopy ??= copyServerFiles()
  if (typeof reachableCopy === 'string') return `${reason}, and ${reachableCopy}`
  return cannotServeAs(uid, reachableCopy.runJs, reachableCopy.node) ?? reachableCopy
}

function copyServerFiles(): ServerFiles | string {
  const node = process.execPath
  // Node.js inside the checkout (the private Node 22 in node_modules) comes with the copy.
  const nodeInside = path.relative(REPO_ROOT, node)
  if (nodeInside.startsWith('..') || path.isAbsolute(nodeInside)) return 'Node.js lies outside the checkout, in a folder that user cannot enter'
  const folder = mkdtempSync(path.join(tmpdir(), 'ak-test-checkout-'))
  chmodSync(folder, 0o755)
  process.once('exit', () => spawnSync('rm', ['-rf', folder]))
  const parts = SERVER_PARTS.filter((part) => existsSync(path.join(REPO_ROOT, part))).map((part) => path.join(REPO_ROOT, part))
  const copied = spawnSync('cp', ['-al', ...parts, folder])
  if (copied.status !== 0) return `the checkout could not be linked into ${folder} (${copied.stderr.toString().trim()})`
  return {node: path.join(folder, nodeInside), runJs: path.join(folder, 'bin', 'run.js')}
}

/**
 * Skips the running test, saying why, unless a server of this checkout can run as user `uid`
 * here, from the checkout or a copy (see serverFilesFor); returns the files to run it with.
 */
export function serverFilesOrSkip(context: Mocha.Context, uid: number): ServerFiles {
  const files = serverFilesFor(uid)
  if (typeof files === 'string') skipBecause(context, files)
  return files as ServerFiles
}

/** Skips the running test, printing `reason` beside it (mocha's report shows only that it was skipped). */
export function skipBecause(context: Mocha.Context, reason: string): never {
  console.log(`      (skipped: ${reason})`)
  return context.skip()
}

/** Skips the running test, saying why, unless a server of this checkout can run as user `uid` here (see cannotServeAs). */
export function skipUnlessServesAs(context: Mocha.Context, uid: number, entry: string): void {
  const reason = cannotServeAs(uid, entry)
  if (reason !== undefined) skipBecause(context, reason)
}

/** Skips the running test, saying why, unless this process is root; `needs` says what needs root. */
export function skipUnlessRoot(context: Mocha.Context, needs: string): void {
  if (process.geteuid?.() !== 0) skipBecause(context, `only root can ${needs}`)
}

/**
 * Writes `file`, an entry script that runs `runJs` (a checkout's bin/run.js) as user `uid` through
 * setpriv with the arguments it is given, and exits with its exit code: the `entry` of
 * connectStdio for a server that runs as another user (check cannotServeAs first).
 */
export async function writeEntryAs(uid: number, runJs: string, file: string, node = process.execPath): Promise<string> {
  await writeFile(
    file,
    "import {spawn} from 'node:child_process'\n" +
      `const child = spawn('setpriv', ['--reuid=${uid}', '--regid=${uid}', '--clear-groups', ${JSON.stringify(node)}, ${JSON.stringify(runJs)}, ...process.argv.slice(2)], {stdio: 'inherit'})\n` +
      'child.on("exit", (code) => process.exit(code ?? 1))\n',
  )
  return file
}
