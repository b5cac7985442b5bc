import {type ChildProcess, type SpawnOptions, spawn} from 'node:child_process'
import {existsSync} from 'node:fs'
import path from 'node:path'

import {DispatchFailedError, LimitReachedError, isDescriptorShortage, tooManyFilesOpen} from './errors.js'

/**
 * Starting a process so that a refusal is an error the caller can answer with, never a crash:
 * every process ak starts (an agent's command, the shell snapshot's capture, the sandbox's check,
 * a dispatched `codex exec`) goes through startProcess. Kept outside `src/exec` and `src/codex` so
 * that both use the same rule and the same sentences (DESIGN §7: "a failed spawn … is a tool error").
 *
 * Node reports a failed spawn in two ways: EINVAL, ENOMEM and others are thrown by `spawn` itself,
 * while EMFILE, ENFILE, EAGAIN, EACCES and ENOENT arrive later as an `error` event on a child whose
 * stdio was never set up (`child.stdout` is null after EMFILE). A caller that touched the stdio
 * first, or listened for `error` one tick late, took the server down.
 */

/** The errno codes, besides a descriptor shortage, that say the system is short of a resource, each with what ran out. */
const RESOURCE_SHORTAGES: Readonly<Record<string, string>> = {
  EAGAIN: "the server's user has as many processes as it may (ulimit -u) or the system is out of them",
  ENOMEM: 'the system is out of memory for another process',
}

/**
 * The error for a process `what` names ("the command", "codex") that could not be started,
 * from the system error `error`. A descriptor shortage reads as every other one does
 * (tooManyFilesOpen); it and the other shortages (RESOURCE_SHORTAGES) are LimitReachedErrors that
 * say what ran out and to retry; anything else a DispatchFailedError. No message carries the
 * errno code or a host path: `program` is shown by its base name only.
 * @param fix what to do when the program is missing or may not be run (ENOENT, EACCES)
 * @param isCwdMissing whether the folder the process was to start in is gone (ENOENT then names it)
 */
export function spawnFailure(error: unknown, what: string, program: string, fix: string, isCwdMissing = false): Error {
  const code = (error as NodeJS.ErrnoException | undefined)?.code ?? ''
  if (isDescriptorShortage(code)) {
    return new LimitReachedError(
      tooManyFilesOpen(`start ${what}`) + ' If it keeps failing, end running commands, or restart the server with a higher `ulimit -n`.',
    )
  }
  const shortage = RESOURCE_SHORTAGES[code]
  if (shortage) return new LimitReachedError(`Could not start ${what}: ${shortage} now. Retry in a moment, once other commands have ended.`)
  const name = path.basename(program)
  switch (code) {
    case 'ENOENT':
      if (isCwdMissing) return new DispatchFailedError(`Could not start ${what}: the folder it should run in no longer exists. ${fix}`)
      return new DispatchFailedError(
        `Could not start ${what}: "${name}" was not found${program.includes('/') ? '' : " on the server's PATH"}. ${fix}`,
      )
    case 'EACCES':
    case 'EPERM':
      return new DispatchFailedError(`Could not start ${what}: the server's user may not run "${name}" or enter the folder it should run in. ${fix}`)
    case 'EINVAL':
      return new DispatchFailedError(
        `Could not start ${what}: the system refused the descriptors it was to be given (the server holds more, or higher-numbered, ` +
          'descriptors than its limit allows a new process). Retry in a moment; if it keeps failing, restart the server with a higher `ulimit -n`.',
      )
    default:
      return new DispatchFailedError(`Could not start ${what}: the system refused to start "${name}". Retry in a moment. ${fix}`)
  }
}

/** What startProcess needs besides spawn's own arguments. */
export interface StartProcessOptions extends Omit<SpawnOptions, 'stdio'> {
  /**
   * spawn's `stdio`, or a function that makes it, called inside the start so that a descriptor
   * shortage while making it (withoutInheritedDescriptors opens /dev/null) is reported the same way.
   */
  stdio?: SpawnOptions['stdio'] | (() => SpawnOptions['stdio'])
  /** What the process is, for messages: "the command", "the shell snapshot's login shell". */
  what: string
  /** What to do when the program is missing or may not be run, for messages. */
  fix: string
}

/**
 * Spawns `file` with `args` and resolves with the child once it has started (its `spawn` event),
 * with its stdio set up. The child keeps a listener for `error` (a later failed `kill()`, whose
 * `exit` still comes), so callers add their own only if they need one.
 * @throws LimitReachedError when the system is short of descriptors, processes or memory
 * @throws DispatchFailedError when the program or its folder is missing, may not be run, or the
 *   system refused the spawn otherwise (see spawnFailure)
 */
export function startProcess(file: string, args: readonly string[], options: StartProcessOptions): Promise<ChildProcess> {
  const {what, fix, stdio, ...spawnOptions} = options
  return new Promise((resolve, reject) => {
    let child: ChildProcess
    try {
      child = spawn(file, args, {...spawnOptions, stdio: typeof stdio === 'function' ? stdio() : stdio})
    } catch (error) {
      reject(spawnFailure(error, what, file, fix))
      return
    }
    const onError = (error: Error) => {
      child.off('spawn', onSpawn)
      const isCwdMissing = (error as NodeJS.ErrnoException).code === 'ENOENT' && spawnOptions.cwd !== undefined && !existsSync(spawnOptions.cwd)
      reject(spawnFailure(error, what, file, fix, isCwdMissing))
    }
    const onSpawn = () => {
      child.off('error', onError)
      resolve(child)
    }
    child.on('error', () => {})
    child.once('error', onError)
    child.once('spawn', onSpawn)
  })
}
