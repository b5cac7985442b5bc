/**
 * Starts `ak exec serve --http` as a child process (from a given entry file: the bundle or
 * bin/run.js) and reads the URL it prints on stderr.
 */
import {type ChildProcess, spawn} from 'node:child_process'
import {once} from 'node:events'

/** A running HTTP server process. */
export interface HttpServerProcess {
  url: string
  pid: number
  /** Everything it wrote on stderr so far. */
  stderr(): string
  /** Sends `signal` (default SIGTERM) and resolves with the exit code once it has exited. */
  stop(signal?: NodeJS.Signals): Promise<number | null>
}

/** Runs `node <entry> <args>` and waits until it prints "listening on <url>" (or exits). */
export async function startHttpServer(
  entry: string,
  args: string[],
  options: {env?: Record<string, string | undefined>; cwd?: string} = {},
): Promise<HttpServerProcess> {
  const child = spawn(process.execPath, [entry, ...args], {
    cwd: options.cwd,
    env: childEnv(options.env),
    stdio: ['ignore', 'ignore', 'pipe'],
  })
  let stderr = ''
  child.stderr!.on('data', (chunk: Buffer) => (stderr += chunk.toString()))
  const exited = once(child, 'exit')
  const url = await new Promise<string>((resolve, reject) => {
    const onData = () => {
      const match = /listening on (http:\S+)/.exec(stderr)
      if (match) {
        child.stderr!.off('data', onData)
        resolve(match[1] as string)
      }
    }
    child.stderr!.on('data', onData)
    void exited.then(([code]) => reject(new Error(`server exited with ${code} before listening:\n${stderr}`)))
  })
  return {
    url,
    pid: child.pid!,
    stderr: () => stderr,
    stop: (signal = 'SIGTERM') => stopChild(child, exited, signal),
  }
}

async function stopChild(child: ChildProcess, exited: Promise<unknown[]>, signal: NodeJS.Signals): Promise<number | null> {
  if (child.exitCode === null && child.signalCode === null) child.kill(signal)
  const [code] = (await exited) as [number | null]
  return code
}

/** Runs `node <entry> <args>` to completion and returns its exit code and output. */
export async function runToExit(
  entry: string,
  args: string[],
  options: {env?: Record<string, string | undefined>; cwd?: string} = {},
): Promise<{code: number | null; stdout: string; stderr: string}> {
  const child = spawn(process.execPath, [entry, ...args], {
    cwd: options.cwd,
    env: childEnv(options.env),
    stdio: ['ignore', 'pipe', 'pipe'],
  })
  let stdout = ''
  let stderr = ''
  child.stdout!.on('data', (chunk: Buffer) => (stdout += chunk.toString()))
  child.stderr!.on('data', (chunk: Buffer) => (stderr += chunk.toString()))
  const [code] = (await once(child, 'exit')) as [number | null]
  return {code, stdout, stderr}
}

/** The test process's environment with `changes` applied (an undefined value removes the variable). */
function childEnv(changes: Record<string, string | undefined> = {}): NodeJS.ProcessEnv {
  const env = {...process.env}
  for (const [name, value] of Object.entries(changes)) {
    if (value === undefined) delete env[name]
    else env[name] = value
  }
  return env
}
