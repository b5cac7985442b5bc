/**
 * The one mapping from a system call's error (an errno code) to an error the model can act on.
 * Every errno becomes a sentence that names the path and says what to do; no answer carries a
 * raw code or a path the caller did not give (a system error's own message names the real path,
 * which may lie outside the workspace, so it is never passed on).
 */
import {getSystemErrorMessage} from 'node:util'

import {AkError, BadInputError, LimitReachedError, NotFoundError, tooManyFilesOpen} from '../errors.js'
import {escapeControls} from '../text-escape.js'

/** What the failed call was doing, for the sentence's ending. */
export type FsAction = 'look' | 'write'

/** The errno code (`ENOENT`…) an error carries, or undefined. */
export function errorCode(error: unknown): string | undefined {
  return (error as NodeJS.ErrnoException | undefined)?.code
}

/** Whether `error` is a system error carrying an errno code. */
export function isSystemError(error: unknown): error is NodeJS.ErrnoException & {code: string} {
  return error instanceof Error && typeof (error as NodeJS.ErrnoException).code === 'string'
}

/**
 * An AkError explaining the system error `error` met while working on `requested` (the path as
 * the caller gave it). AkErrors pass through unchanged; an error that is not a system error is
 * returned as it is (a bug, reported as such by the caller).
 * @param action 'write' adds that the file was not changed.
 */
export function explainFsError(error: unknown, requested: string, action?: FsAction): Error {
  if (error instanceof AkError || !isSystemError(error)) return error as Error
  const shown = `"${escapeControls(requested)}"`
  const unchanged = action === 'write' ? ' Nothing was changed.' : ''
  switch (error.code) {
    case 'ENOENT':
    case 'ENOTDIR':
      return new NotFoundError(
        `Nothing exists at ${shown} (or a part of it is a file, or it was removed or moved meanwhile).${unchanged} Check the path with the list tool.`,
      )
    case 'EACCES':
    case 'EPERM':
      return new BadInputError(`No permission for ${shown}: the server's user may not open it or a folder on the way.${unchanged} Check its permissions.`)
    case 'ENAMETOOLONG':
      return new BadInputError(`${shown} is longer than the system allows (255 bytes per name, 4096 per path).${unchanged} Use a shorter path.`)
    case 'EINVAL':
      return new BadInputError(`${shown} changed while it was being worked on, or cannot be used this way.${unchanged} Retry; if it keeps failing, look at it with the list tool.`)
    case 'ELOOP':
    case 'EMLINK':
      return new BadInputError(
        `${shown} became a symbolic link while it was being opened, or leads through too many links.${unchanged} Retry; if it keeps failing, look at it with the list tool.`,
      )
    case 'EISDIR':
      return new BadInputError(`${shown} is a folder, not a file.${unchanged} Use the list tool to see what it contains.`)
    case 'EEXIST':
      return new BadInputError(`${shown} already exists (or a part of it is a file, not a folder).${unchanged} Check the path with the list tool.`)
    case 'ENOTEMPTY':
      return new BadInputError(`${shown} is a folder that is not empty.${unchanged}`)
    case 'EROFS':
      return new BadInputError(`${shown} is on a read-only file system.${unchanged}`)
    case 'ETXTBSY':
    case 'EBUSY':
      return new BadInputError(`${shown} is busy (in use by the system or a running program).${unchanged} Retry later.`)
    case 'EAGAIN':
    case 'EWOULDBLOCK':
    case 'ENXIO':
    case 'ENODEV':
      return new BadInputError(`${shown} is a device, pipe or socket, not a regular file.${unchanged} The file tools work on regular files.`)
    case 'ENOSPC':
    case 'EDQUOT':
      return new LimitReachedError(`No space left on the disk for ${shown}.${unchanged} Free some space and retry.`)
    case 'EFBIG':
    case 'EOVERFLOW':
      return new LimitReachedError(`${shown} is too large for this operation.${unchanged}`)
    case 'EMFILE':
    case 'ENFILE':
      return new LimitReachedError(tooManyFilesOpen(`open ${shown}`, unchanged))
    case 'EXDEV':
      return new BadInputError(`${shown} is on another file system than its folder's entry, so it cannot be replaced in one step.${unchanged}`)
    case 'EIO':
    case 'ESTALE':
    case 'ETIMEDOUT':
      return new BadInputError(`The file system reported an error for ${shown} (${describeSystemError(error)}).${unchanged} Retry; if it persists, the disk or network file system is failing.`)
    default:
      return new BadInputError(`The system refused an operation on ${shown}: ${describeSystemError(error)}.${unchanged}`)
  }
}

/** The system's own description of an errno ("no such file or directory"), lower-cased, without the code. */
export function describeSystemError(error: NodeJS.ErrnoException): string {
  const errno = error.errno
  const text = typeof errno === 'number' ? getSystemErrorMessage(errno) : 'an unexpected error'
  return text.charAt(0).toLowerCase() + text.slice(1)
}
