// Lets `ak` started by an older Node.js run on the private Node.js 22 of a clone of ak.
// Plain JavaScript on Node.js built-ins only, so it runs on the old Node it replaces.
import {spawn} from 'node:child_process'
import {existsSync, realpathSync} from 'node:fs'
import path from 'node:path'
import {fileURLToPath} from 'node:url'

/** Signals passed on to the relaunched process, which then decides how to end. */
const FORWARDED_SIGNALS = ['SIGINT', 'SIGTERM', 'SIGHUP', 'SIGQUIT']

/**
 * The Node.js that `npm ci` installs into a clone's node_modules (the platform package linked
 * as node_modules/.bin/node, through the devDependency tools/private-node), when this ak is such
 * a clone and that Node.js is not the one running now. Undefined for an installed package, which
 * has no devDependencies, or when the clone's Node.js is the running one.
 */
export function privateNode() {
  const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..')
  const candidate = path.join(root, 'node_modules', '.bin', 'node')
  if (!existsSync(candidate)) return undefined
  try {
    if (realpathSync(candidate) === realpathSync(process.execPath)) return undefined
  } catch {
    return undefined
  }
  return candidate
}

/**
 * Runs this same command (`entry` and the arguments) on `node` with the same stdio, environment
 * and working directory, passes on the signals the launcher gets, and ends this process the way
 * the relaunched one ended: with its exit code, or killed by the same signal. Never returns.
 * @param node path of the Node.js executable to run
 * @param entry path of the entry file (bin/run.js)
 */
export async function relaunch(node, entry) {
  const child = spawn(node, [...process.execArgv, entry, ...process.argv.slice(2)], {stdio: 'inherit'})
  for (const signal of FORWARDED_SIGNALS) process.on(signal, () => child.kill(signal))
  const [code, signal] = await new Promise((resolve) => {
    child.on('error', (error) => {
      process.stderr.write(`ak could not start ${node}: ${error.message}. Run "npm ci" in ${path.dirname(path.dirname(path.dirname(node)))} again.\n`)
      resolve([1, null])
    })
    child.on('exit', (exitCode, exitSignal) => resolve([exitCode, exitSignal]))
  })
  if (signal) {
    for (const name of FORWARDED_SIGNALS) process.removeAllListeners(name)
    process.kill(process.pid, signal)
  }
  process.exit(code ?? 1)
}
