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
import {type FileListOutcome, listMatchingFiles} from '../search/list-files.js'
import {type SearchOutcome, runSearch} from '../search/run-search.js'
import {SearchWorkerPool, searchTimeLimitFromEnv} from '../search/worker-pool.js'
import type {ExecRuntime} from '../context.js'
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

/** `search`'s `outputSchema`: matching lines (with a query) or matching file paths (glob alone), and whether it stopped early. */
export const searchOutputSchema = z.object({
  path: z.string().describe('The folder or file searched, relative to the workspace ("." for its root).'),
  mode: z.enum(['lines', 'files']).describe('"lines" when a query was given (matches), "files" for glob alone (paths).'),
  matches: z
    .array(
      z.object({
        path: z.string().describe('The file, relative to the workspace, names escaped as list shows them.'),
        line: z.number().int().describe('The line number, from 1.'),
        text: z.string().describe(`The line, clipped around the match past ${SEARCH_MAX_LINE_CHARS} characters.`),
      }),
    )
    .optional()
    .describe('Lines mode: the matching lines, in walk order.'),
  paths: z.array(z.string()).optional().describe('Files mode: the paths of the matching files, relative to the workspace.'),
  stopped_early: z.boolean().describe('True when more results exist than were returned.'),
  stopped_by: z
    .enum(['max_results', 'answer_size'])
    .nullable()
    .describe(`What stopped it: max_results, or the answer's size (${SEARCH_MAX_ANSWER_CHARS} characters); null when it did not stop early.`),
  files_searched: z
    .number()
    .int()
    .optional()
    .describe('Lines mode: files whose contents were searched (when it stopped early, those searched until it stopped, which can vary between calls: files are searched in parallel).'),
  binary_files_skipped: z.number().int().optional().describe('Lines mode: files skipped as binary.'),
  too_large: z
    .array(z.string())
    .optional()
    .describe(`Lines mode: files not searched for being larger than ${SEARCH_MAX_FILE_BYTES / (1024 * 1024)} MiB.`),
  unreadable: z
    .array(z.object({path: z.string(), why: z.string()}))
    .optional()
    .describe('Files, and folders (their path ends in /), that could not be read, each with why.'),
})

type SearchStructured = z.infer<typeof searchOutputSchema>

/** The structured form of a search with a query (`search`'s outputSchema). Pure. */
export function structuredSearchAnswer(outcome: SearchOutcome): SearchStructured {
  return {
    path: outcome.target,
    mode: 'lines',
    matches: outcome.matches.map(({path, line, text}) => ({path, line, text})),
    stopped_early: outcome.isCut,
    stopped_by: outcome.isCut ? (outcome.cutBy ?? 'max_results') : null,
    files_searched: outcome.filesSearched,
    binary_files_skipped: outcome.binaryFiles,
    too_large: outcome.tooLarge,
    unreadable: outcome.unreadable.map(({path, why}) => ({path, why})),
  }
}

/** The structured form of a search without a query, a list of file paths. Pure. */
export function structuredFileList(outcome: FileListOutcome): SearchStructured {
  return {
    path: outcome.target,
    mode: 'files',
    paths: outcome.paths,
    stopped_early: outcome.isCut,
    stopped_by: outcome.isCut ? (outcome.cutBy ?? 'max_results') : null,
    unreadable: outcome.unreadable.map(({path, why}) => ({path, why})),
  }
}

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
    'is stopped with an error. The structured answer holds the same matches (path, line, text) or paths, and whether and why it stopped early. Errors: invalid regex, malformed glob (an unclosed [, { or ( is named), neither query nor glob, ' +
    'path outside the workspace or missing, search time limit passed.',
  level: 'read',
  inputSchema,
  argumentHints: {
    pattern: 'the text or regex to find is query; a file name pattern is glob.',
    include: 'to search only some files, pass glob (e.g. "*.ts").',
  },
  outputSchema: searchOutputSchema,
  isTextTheAnswer: true,
  annotations: {readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false},
  describeTarget: (input) => `${input.path}: ${input.query ?? `files ${JSON.stringify(input.glob)}`}`,
  async run(input, {runtime, workspace, signal}) {
    const globs = input.glob === undefined ? [] : typeof input.glob === 'string' ? [input.glob] : input.glob
    if (input.query === undefined) {
      if (globs.length === 0) {
        throw new BadInputError(
          'search needs query (the text to find) or glob (to list the paths of files matching it, e.g. "**/*.test.ts"), or both' +
            (input.glob === undefined ? '.' : '; glob was an empty list.'),
        )
      }
      const listing = await listMatchingFiles({
        workspace,
        pool: searchPoolOf(runtime),
        request: {path: input.path, globs, maxResults: input.max_results},
        signal,
      })
      return {text: formatFileListAnswer(listing, globs, input.max_results), structured: structuredFileList(listing)}
    }
    const query = {query: input.query, isRegex: input.regex, isCaseSensitive: input.case_sensitive}
    const outcome = await runSearch({
      workspace,
      pool: searchPoolOf(runtime),
      request: {query, path: input.path, globs, maxResults: input.max_results},
      signal,
    })
    return {
      text: formatSearchAnswer(outcome, query, {hasGlobs: globs.length > 0, maxResults: input.max_results}),
      structured: structuredSearchAnswer(outcome),
    }
  },
})
