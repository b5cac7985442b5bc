import {escapeControls} from './text-escape.js'

/**
 * The small closed set of errors ak raises on purpose. Each message says what was wrong and what
 * to do, because it is read by a model (as an MCP tool error) or by a person (on stderr).
 *
 * Tool code throws these; `toolErrorResult` (src/exec/tooling/tool-result.ts) turns them into MCP
 * `isError` results, and `BaseCommand.catch` turns them into exit codes (`exitCodeFor`).
 */
export class AkError extends Error {
  constructor(message: string) {
    super(message)
    this.name = new.target.name
  }
}

/** An argument, flag or tool input is malformed or out of range. Exit code 2. */
export class BadInputError extends AkError {}

/** A path leads through too many symbolic links (a link loop). Exit code 2, as bad input. */
export class SymlinkLoopError extends BadInputError {
  constructor(readonly requestedPath: string) {
    super(`Too many symbolic links while resolving "${escapeControls(requestedPath)}". Check for a link loop.`)
  }
}

/** A path resolves outside the workspace. The message names the path as given, never its target. */
export class OutsideWorkspaceError extends AkError {
  constructor(readonly requestedPath: string) {
    super(
      `Path "${escapeControls(requestedPath)}" is outside the workspace. Use a path inside the workspace ` +
        `(relative paths are resolved against it).`,
    )
  }
}

/**
 * A file tool was asked to create, change, move onto or delete a protected path (DESIGN §4.9,
 * src/exec/protected-paths.ts). The message names the rule and how the operator allows the path.
 */
export class ProtectedPathError extends AkError {}

/** A file, folder, agent or session does not exist. */
export class NotFoundError extends AkError {}

/** A bounded resource is exhausted (running commands, dispatches, sizes). */
export class LimitReachedError extends AkError {}

/** A subprocess could not be started or failed in a way the caller must hear about. */
export class DispatchFailedError extends AkError {}

/**
 * The one sentence of every descriptor shortage (EMFILE, ENFILE): `doing` says what could not be
 * done ("open \"src/a.ts\"", "start a search worker"), naming a path relative to the workspace;
 * `more` is added before the advice to retry (e.g. " Nothing was changed.").
 */
export function tooManyFilesOpen(doing: string, more = ''): string {
  return `The server has too many files open to ${doing} now.${more} Retry in a moment.`
}

/** Whether `code` says a process is out of descriptors (its own limit, or the system's). */
export function isDescriptorShortage(code: string | undefined): boolean {
  return code === 'EMFILE' || code === 'ENFILE'
}

/** Exit codes shared by every command: 0 success, 1 runtime failure, 2 invalid arguments or flags. */
export const EXIT_OK = 0
export const EXIT_FAILURE = 1
export const EXIT_USAGE = 2

/** Maps an error to the process exit code (see EXIT_* above). */
export function exitCodeFor(error: unknown): number {
  if (error instanceof BadInputError) return EXIT_USAGE
  return EXIT_FAILURE
}
