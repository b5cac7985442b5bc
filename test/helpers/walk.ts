import {folderFilterBases} from '../../src/exec/search/glob-filter.js'
import {IgnoreFileNotes} from '../../src/exec/search/ignore-file.js'
import {walkInParallel} from '../../src/exec/search/parallel-walk.js'
import {SearchWorkerPool} from '../../src/exec/search/worker-pool.js'
import {Workspace} from '../../src/exec/workspace.js'

/**
 * The display-form paths of every file the search walk finds below `start` (workspace-relative,
 * '.' for the root), in walk order: walkInParallel on a pool of `poolSize` workers, listing every
 * file (no query). `globs` only leave folders out, as search's glob does (every file of a walked
 * folder is listed). `taskBudgetMs` 0 makes each walk task walk one folder and hand the rest back,
 * so the order is rebuilt from many tasks. A `pool` given is used and left open. With `query`,
 * only the files holding that text are named (each opened and read by the path the walk built).
 */
export async function walkedFiles(
  root: string,
  options: {start?: string; globs?: string[]; taskBudgetMs?: number; poolSize?: number; pool?: SearchWorkerPool; query?: string} = {},
): Promise<{files: string[]; ignoreNote: string | undefined}> {
  const workspace = await Workspace.open(root)
  const pool = options.pool ?? new SearchWorkerPool({size: options.poolSize ?? 2})
  const job = pool.startJob()
  const files: string[] = []
  const notes = new IgnoreFileNotes()
  const folderBases = options.globs ? folderFilterBases(options.globs) : undefined
  const start = options.start ?? '.'
  try {
    await walkInParallel({
      workspace,
      start: start === '.' ? Buffer.alloc(0) : Buffer.from(start),
      job,
      poolSize: pool.size,
      scan: {
        maxMatches: 1_000_000,
        maxLineChars: 100,
        maxFileBytes: 1024 * 1024,
        binarySniffBytes: 8000,
        ...(options.query === undefined ? {} : {query: {kind: 'literal', text: options.query}}),
      },
      ...(folderBases ? {folderBases} : {}),
      notes,
      ...(options.taskBudgetMs === undefined ? {} : {taskBudgetMs: options.taskBudgetMs}),
      onResult: (result) => {
        for (const [index] of result.matches) files.push(result.paths[index] as string)
        return false
      },
    })
  } finally {
    job.finish()
    if (!options.pool) await pool.close()
  }
  return {files, ignoreNote: notes.note()}
}
