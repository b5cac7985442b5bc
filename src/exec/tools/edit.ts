import {z} from 'zod'

import {applyChanges} from '../files/change-engine.js'
import type {FileOperation, FileOutcome} from '../files/file-operations.js'
import {parsePatch} from '../files/patch-parser.js'
import {describeLines} from '../files/text-edit.js'
import {explainFsError} from '../fs-errors.js'
import {EDIT_MAX_DIFF_CHARS, EDIT_MAX_FILE_BYTES, EDIT_PATCH_MAX_BYTES, EDIT_PATCH_MAX_CHARS, EDIT_PATCH_MAX_OPERATIONS} from '../limits.js'
import {flagField, textField} from './input-fields.js'
import {type ToolAnswer, defineTool} from './tool.js'

/** A UTF-16 surrogate without its pair (in Unicode mode a pair is one code point, not surrogates). */
const LONE_SURROGATE = /\p{Surrogate}/u

/** The arguments of the text form; `patch` is the other form. */
const TEXT_FORM = ['path', 'old_text', 'new_text', 'replace_all'] as const

const inputSchema = z
  .object({
    path: textField('path', 'the file to edit or create, relative to the workspace', {nonEmpty: true})
      .optional()
      .describe('Text form: the file to edit or create, relative to the workspace (or absolute inside it).'),
    old_text: textField('old_text', 'the exact text to replace ("" to create a new file)')
      .optional()
      .describe('Text form: the exact text to replace, as it appears in the file. Empty to create a new file.'),
    new_text: textField('new_text', 'the text to put in place of old_text')
      .refine((text) => !text.includes('\u0000'), {
        error: 'new_text must not hold a NUL character (\\u0000): it would make the file binary, and read, search and edit refuse binary files. Send the text without it.',
      })
      .refine((text) => !LONE_SURROGATE.test(text), {
        error: 'new_text must not hold a lone surrogate (a \\ud800-\\udfff escape without its pair): it is not a character and has no UTF-8 form. Send whole characters.',
      })
      .optional()
      .describe('Text form: the text to put in place of old_text, literally (no $ patterns).'),
    replace_all: flagField('replace_all', 'true replaces every occurrence of old_text, false requires exactly one')
      .optional()
      .describe('Text form: replace every occurrence of old_text instead of requiring exactly one. Default false.'),
    patch: textField('patch', 'a patch in the apply_patch format, from "*** Begin Patch" to "*** End Patch"', {nonEmpty: true})
      .max(EDIT_PATCH_MAX_CHARS, {error: `patch must be at most ${EDIT_PATCH_MAX_CHARS} characters: split a larger change into several patches.`})
      .refine((text) => !LONE_SURROGATE.test(text), {
        error: 'patch must not hold a lone surrogate (a \\ud800-\\udfff escape without its pair): it is not a character and has no UTF-8 form. Send whole characters.',
      })
      .optional()
      .describe(
        'Patch form, instead of the four fields above: a patch in the apply_patch format that adds, updates, moves and deletes ' +
          'several files at once, all or nothing.',
      ),
  })
  .superRefine((input, context) => {
    const textFields = TEXT_FORM.filter((name) => input[name] !== undefined)
    if (input.patch !== undefined) {
      if (textFields.length > 0) {
        context.addIssue({
          code: 'custom',
          message: `edit takes either patch or path/old_text/new_text, not both: this call has patch and ${textFields.join(', ')}. Put every change in the patch, or drop it.`,
        })
      }
      return
    }
    if (input.path === undefined) {
      context.addIssue({code: 'custom', path: ['path'], message: 'path is missing: pass path, old_text and new_text to replace text, or patch alone to apply a patch.'})
    }
    if (input.old_text === undefined) {
      context.addIssue({code: 'custom', path: ['old_text'], message: 'old_text must be a string: the exact text to replace ("" to create a new file).'})
    }
    if (input.new_text === undefined) {
      context.addIssue({code: 'custom', path: ['new_text'], message: 'new_text must be a string: the text to put in place of old_text.'})
    }
  })

const fileSchema = z.object({
  action: z.enum(['added', 'updated', 'moved', 'deleted']).describe('What happened to the file.'),
  path: z.string().describe('The file, relative to the workspace (for a move, where it is now).'),
  from: z.string().optional().describe('Where a moved file was.'),
  replaced: z.boolean().describe('An existing file at path was replaced (Add File over a file, Move to onto a file).'),
  bytes: z.number().int().describe('The size of the file written, in bytes (0 when deleted).'),
  hard_links: z.number().int().describe('Hard links the file had; above 1, this path now has its own copy and the other links keep the old content.'),
  diff: z.string().describe(`The file's unified diff; the diffs of one answer are cut after ${EDIT_MAX_DIFF_CHARS} characters in all.`),
})

/** `edit`'s `outputSchema`: what was done to which files, and the diffs. */
export const editOutputSchema = z.object({
  files: z.array(fileSchema).describe('Every file changed, in the order of the operations.'),
  path: z.string().optional().describe('Text form: the file, relative to the workspace.'),
  action: z.enum(['created', 'edited']).optional().describe('Text form: "created" for a new file (empty old_text), "edited" for a replacement.'),
  occurrences: z.number().int().optional().describe('Text form: occurrences of old_text replaced (0 for a created file).'),
  lines: z
    .array(z.number().int())
    .optional()
    .describe('Text form: the line (in the file before the edit) where each replaced occurrence starts, for the first ones recorded; empty for a created file.'),
  bytes: z.number().int().optional().describe('Text form: the size of the file written, in bytes.'),
  diff: z.string().optional().describe(`Text form: the unified diff of the change, cut after ${EDIT_MAX_DIFF_CHARS} characters.`),
  hard_links: z.number().int().optional().describe('Text form: hard links the file had; above 1, this path now has its own copy and the other links keep the old content.'),
})

type Input = z.infer<typeof inputSchema>
type EditStructured = z.infer<typeof editOutputSchema>

function plural(count: number, word: string): string {
  return `${count} ${word}${count === 1 ? '' : 's'}`
}

/** The operations a call asks for: one for the text form, the patch's for the patch form. */
function operationsOf(input: Input): FileOperation[] {
  if (input.patch !== undefined) {
    return parsePatch(input.patch).map((operation): FileOperation => {
      if (operation.kind === 'update') return {kind: 'update', path: operation.path, hunks: operation.hunks, ...(operation.moveTo === undefined ? {} : {moveTo: operation.moveTo})}
      if (operation.kind === 'add') return {kind: 'add', path: operation.path, contents: operation.contents}
      return {kind: 'delete', path: operation.path}
    })
  }
  const path = input.path as string
  const newText = input.new_text as string
  if (input.old_text === '') return [{kind: 'create', path, contents: newText}]
  return [{kind: 'replace-text', path, request: {oldText: input.old_text as string, newText, replaceAll: input.replace_all ?? false}}]
}

function fileOf(outcome: FileOutcome): EditStructured['files'][number] {
  return {
    action: outcome.action,
    path: outcome.path,
    ...(outcome.from === undefined ? {} : {from: outcome.from}),
    replaced: outcome.replaced,
    bytes: outcome.bytes,
    hard_links: outcome.hardLinks,
    diff: outcome.diff,
  }
}

/** The answer of the text form, as `edit` has always given it. */
function textFormAnswer(outcome: FileOutcome): ToolAnswer {
  const files = [fileOf(outcome)]
  if (outcome.occurrences === undefined) {
    return {
      text: `Created ${outcome.path} (${plural(outcome.bytes, 'byte')}).\n${outcome.diff}`,
      structured: {files, path: outcome.path, action: 'created', occurrences: 0, lines: [], bytes: outcome.bytes, diff: outcome.diff, hard_links: 1} satisfies EditStructured,
    }
  }
  const lines = outcome.lines ?? []
  const summary = [`Edited ${outcome.path}: replaced ${plural(outcome.occurrences, 'occurrence')} (${describeLines(lines, outcome.occurrences)}).`]
  if (outcome.hardLinks > 1) {
    summary.push(`Note: the file had ${outcome.hardLinks} hard links; this path now has its own copy and the other links keep the old content.`)
  }
  return {
    text: `${summary.join('\n')}\n${outcome.diff}`,
    structured: {
      files,
      path: outcome.path,
      action: 'edited',
      occurrences: outcome.occurrences,
      lines,
      bytes: outcome.bytes,
      diff: outcome.diff,
      hard_links: outcome.hardLinks,
    } satisfies EditStructured,
  }
}

/** One line per file of a patch's answer. */
function patchLine(outcome: FileOutcome): string {
  const replaced = outcome.replaced ? ', replacing the file that was there' : ''
  const links = outcome.hardLinks > 1 && outcome.action !== 'deleted' ? `; it had ${outcome.hardLinks} hard links, the others keep the old content` : ''
  const hunks = outcome.hunkLines ? ` (${plural(outcome.hunkLines.length, 'hunk')} at ${describeLines(outcome.hunkLines)})` : ''
  switch (outcome.action) {
    case 'added':
      return `A ${outcome.path} (${plural(outcome.bytes, 'byte')}${replaced})`
    case 'updated':
      return `M ${outcome.path}${hunks}${links}`
    case 'moved':
      return `R ${outcome.from} -> ${outcome.path}${hunks}${replaced}${links}`
    case 'deleted':
      return `D ${outcome.path}`
  }
}

/** The answer of the patch form: a summary line, a line per file, then the diffs. */
function patchAnswer(outcomes: FileOutcome[]): ToolAnswer {
  const counts = (['added', 'updated', 'moved', 'deleted'] as const)
    .map((action) => [action, outcomes.filter((outcome) => outcome.action === action).length] as const)
    .filter(([, count]) => count > 0)
    .map(([action, count]) => `${count} ${action}`)
  const diffs = outcomes.map((outcome) => outcome.diff).filter((diff) => diff !== '')
  const unshown = outcomes.filter((outcome) => outcome.diff === '' && outcome.action !== 'deleted').length
  const note = unshown > 0 ? [`[The diffs of ${plural(unshown, 'file')} are not shown: the answer shows at most ${EDIT_MAX_DIFF_CHARS} characters of diff.]`] : []
  const text = [`Applied the patch to ${plural(outcomes.length, 'file')} (${counts.join(', ')}).`, ...outcomes.map(patchLine), ...diffs, ...note].join('\n')
  return {text, structured: {files: outcomes.map(fileOf)} satisfies EditStructured}
}

/** The `edit` tool: literal text replacement or creation of a file, or a patch of many files (DESIGN §4.3). */
export const editTool = defineTool({
  name: 'edit',
  title: 'Edit, create, move or delete text files',
  description:
    'Changes text files of the workspace, in one of two forms per call. ' +
    'Text form (path, old_text, new_text, replace_all) for one change in one file: replaces old_text with new_text in a UTF-8 text file, ' +
    'literally ($& or $1 in new_text stay as typed). old_text must occur exactly once unless replace_all is true; otherwise the error ' +
    'says how many times and on which lines (each line once, with its count). When old_text is missing only because whitespace differs ' +
    '(indentation, tabs, trailing spaces, line breaks), the error names the lines where it would match; such a near match is never applied. ' +
    'Line breaks in old_text match LF and CRLF alike. An empty old_text creates a new file (and missing parent folders) and fails if the path already exists. ' +
    'Patch form (patch alone) for changes to several files, a new file written whole, a rename or a deletion: a patch in Codex\'s apply_patch format, ' +
    '"*** Begin Patch", then "*** Add File: path" (every line starting with "+"; replaces a file already there), "*** Delete File: path" ' +
    '(a file or a symlink itself, never a folder), or "*** Update File: path" with an optional "*** Move to: path" (replaces a file already there) and ' +
    '"@@" hunks of " " context, "-" removed and "+" added lines ("@@ text" first finds that line, such as a function; "*** End of File" ends a hunk at the end of the file), ' +
    'then "*** End Patch". Context lines are matched as Codex matches them (exactly, then ignoring whitespace at line ends, then at both ends, ' +
    'then typographic quotes and dashes as ASCII). The patch applies all or nothing: every operation is checked before any file changes, ' +
    'and a failed or interrupted patch leaves every file as it was. ' +
    `At most ${EDIT_PATCH_MAX_OPERATIONS} operations and ${EDIT_PATCH_MAX_CHARS} characters per patch, ${EDIT_PATCH_MAX_BYTES} bytes of old and new file content in all. ` +
    'Both forms keep each file\'s line endings (a CRLF file stays CRLF), BOM, mode and owner; a symlink inside the workspace edits its target; ' +
    'files are replaced in one step, never left half-written, and edits of one file are applied one after another. ' +
    `Answers with what happened to each file and unified diffs (cut after ${EDIT_MAX_DIFF_CHARS} characters in all); the structured answer lists the files. ` +
    `Errors: outside the workspace, not found, a folder, binary or not UTF-8, larger than ${EDIT_MAX_FILE_BYTES} bytes, ` +
    'old_text missing or ambiguous, a patch line that is not in the format, hunk lines not found (the error names the hunk and the lines it expected).',
  level: 'files',
  inputSchema,
  argumentHints: {
    dryRun: 'edit has no dry run; it changes the files and answers with the diffs.',
    dry_run: 'edit has no dry run; it changes the files and answers with the diffs.',
    edits: 'pass several changes as one patch (the patch argument), or call edit once per change with old_text and new_text.',
    oldText: 'the argument is old_text.',
    newText: 'the argument is new_text.',
    file_path: 'the argument is path.',
    input: 'the argument is patch.',
  },
  outputSchema: editOutputSchema,
  isTextTheAnswer: true,
  annotations: {readOnlyHint: false, destructiveHint: true, idempotentHint: false, openWorldHint: false},
  describeTarget: (input) => input.path ?? 'a patch',
  async run(input, context) {
    const isPatch = input.patch !== undefined
    try {
      const {outcomes} = await applyChanges(operationsOf(input), context)
      return isPatch ? patchAnswer(outcomes) : textFormAnswer(outcomes[0] as FileOutcome)
    } catch (error) {
      throw explainFsError(error, input.path ?? '.', 'write')
    }
  },
})
