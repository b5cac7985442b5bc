import {z} from 'zod'

import {
  IGNORE_FILE_MAX_BYTES,
  IGNORE_FILE_MAX_LINE_BYTES,
  SEARCH_DEFAULT_MAX_RESULTS,
  SEARCH_MAX_ANSWER_CHARS,
  SEARCH_MAX_FILE_BYTES,
  SEARCH_MAX_LINE_CHARS,
  SEARCH_MAX_RESULTS,
} from '../limits.js'
import {runtimeService} from '../runtime.js'
import {formatFileListAnswer, formatSearchAnswer} from '../search/format.js'
import {SEARCH_MAX_GLOBS} from '../search/glob-filter.js'
import {listMatchingFiles} from '../search/list-files.js'
import {runSearch} from '../search/run-search.js'
import {SearchWorkerPool, searchTimeLimitFromEnv} from '../search/worker-pool.js'
import type {ExecRuntime} from './tool.js'
import {BadInputError} from '../../errors.js'
import {flagField, textField, wholeNumberField} from './input-fields.js'
import {defineTool} from './tool.js'

/** The key of the search worker pool among a runtime's services. */
export const SEARCH_POOL_SERVICE = 'search-pool'

const inputSchema = z.object({
  query: textField('query', 'the text (or with regex: true, the regular expression) to find', {nonEmpty: true})
    .optional()
    .describe('Text to find (exact, unless regex is true). Matched within single lines. Leave it out (and pass glob) to list file paths.'),
  path: textField('path', 'the folder or file to search, relative to the workspace ("." for its root)')
    .default('.')
    .describe('Folder to search, relative to the workspace (or absolute inside it); a single file also works. Default: the workspace root.'),
  regex: flagField('regex', 'true reads query as a JavaScript regular expression, false as exact text')
    .default(false)
    .describe('Treat query as a JavaScript regular expression (no flags; use case_sensitive for the i flag). Default: false, exact text.'),
  case_sensitive: flagField('case_sensitive', 'true matches letter case exactly').default(true).describe('Match letter case exactly. Default: true.'),
  glob: z
    .union([z.string(), z.array(z.string()).max(SEARCH_MAX_GLOBS)], {
      error: `glob must be a glob pattern or a list of at most ${SEARCH_MAX_GLOBS} patterns, e.g. "*.ts" or ["src/**", "!*.min.js"]`,
    })
    .optional()
    .describe(
      'Only search files matching these glob patterns, on workspace-relative paths (also when path names a subfolder): ' +
        '"*.ts" matches names at any depth, "src/**" a folder\'s contents, "/Makefile" only the root\'s, "!*.min.js" excludes. ' +
        'One pattern or a list. Without query: list the matching files.',
    ),
  max_results: wholeNumberField('max_results', 'how many matching lines to return at most', 1, SEARCH_MAX_RESULTS)
    .default(SEARCH_DEFAULT_MAX_RESULTS)
    .describe(`Matching lines (or, without query, file paths) to return at most (1-${SEARCH_MAX_RESULTS}). Default: ${SEARCH_DEFAULT_MAX_RESULTS}.`),
})

/** The runtime's search worker pool, started on first use and closed with the runtime. */
export function searchPoolOf(runtime: ExecRuntime): SearchWorkerPool {
  return runtimeService(runtime, SEARCH_POOL_SERVICE, () => new SearchWorkerPool({timeLimitMs: searchTimeLimitFromEnv()}))
}

/** The `search` tool: matching lines across the workspace's files (DESIGN §4.3, §4.6). */
export const searchTool = defineTool({
  name: 'search',
  title: 'Search file contents',
  description:
    'Finds lines containing a text (exact by default, or a JavaScript regex with regex: true) in the files below a ' +
    'folder of the workspace. Answers one "path:line:text" line per matching line, paths relative to the workspace, ' +
    `then a summary line (or one line saying nothing matched). At most max_results lines (default ${SEARCH_DEFAULT_MAX_RESULTS}, ` +
    `at most ${SEARCH_MAX_RESULTS}) and ${SEARCH_MAX_ANSWER_CHARS} characters; when more match, the answer says it stopped. Lines are matched and shown as read ` +
    'shows them: without their line break (so regex $ matches before CRLF as before LF) and line 1 without a UTF-8 BOM. ' +
    `Lines longer than ${SEARCH_MAX_LINE_CHARS} characters (Unicode code points) are clipped around the match with a marker. ` +
    'Without query, glob is required and the answer lists the paths of the matching files instead (empty and binary ' +
    'files too, at most max_results). Skips what .gitignore files ' +
    'ignore (nested ones too, as git does) and .git/info/exclude (read up to ' +
    `${IGNORE_FILE_MAX_BYTES / 1024} KiB each, lines up to ${IGNORE_FILE_MAX_LINE_BYTES} bytes; rules past that are skipped with a note), ` +
    'the .git and node_modules folders, symlinks, binary ' +
    `files and files over ${SEARCH_MAX_FILE_BYTES / (1024 * 1024)} MiB (named in the answer). A search that runs too long ` +
    'is stopped with an error. Errors: invalid regex, malformed glob (an unclosed [, { or ( is named), neither query nor glob, ' +
    'path outside the workspace or missing, search time limit passed.',
  level: 'read',
  inputSchema,
  argumentHints: {
    pattern: 'the text or regex to find is query; a file name pattern is glob.',
    include: 'to search only some files, pass glob (e.g. "*.ts").',
  },
  annotations: {readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false},
  describeTarget: (input) => `${input.path}: ${input.query ?? `files ${JSON.stringify(input.glob)}`}`,
  async run(input, {runtime, workspace, signal}) {
    const globs = input.glob === undefined ? [] : typeof input.glob === 'string' ? [input.glob] : input.glob
    if (input.query === undefined) {
      if (globs.length === 0) {
        throw new BadInputError(
          'search needs query (the text to find) or glob (to list the paths of files matching it, e.g. "**/*.test.ts"), or both.',
        )
      }
      const listing = await listMatchingFiles({
        workspace,
        pool: searchPoolOf(runtime),
        request: {path: input.path, globs, maxResults: input.max_results},
        signal,
      })
      return {text: formatFileListAnswer(listing, globs, input.max_results)}
    }
    const query = {query: input.query, isRegex: input.regex, isCaseSensitive: input.case_sensitive}
    const outcome = await runSearch({
      workspace,
      pool: searchPoolOf(runtime),
      request: {query, path: input.path, globs, maxResults: input.max_results},
      signal,
    })
    return {text: formatSearchAnswer(outcome, query, {hasGlobs: globs.length > 0, maxResults: input.max_results})}
  },
})
