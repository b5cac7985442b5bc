import {constants} from 'node:fs'
import {access, readFile, stat} from 'node:fs/promises'
import {z} from 'zod'

import {AkError, BadInputError, LimitReachedError} from '../../errors.js'
import {createFileExclusively, replaceFileAtomically} from '../files/atomic-write.js'
import {unifiedDiff} from '../files/edit-diff.js'
import {ByteBudget, EDIT_BYTES_SERVICE, EDIT_LOCKS_SERVICE, PathLocks} from '../files/path-locks.js'
import {applyTextEdit, describeLines} from '../files/text-edit.js'
import {EDIT_MAX_BYTES_IN_FLIGHT, EDIT_MAX_DIFF_CHARS, EDIT_MAX_FILE_BYTES} from '../limits.js'
import {runtimeService} from '../runtime.js'
import type {ResolvedPath} from '../workspace.js'
import {flagField, textField} from './input-fields.js'
import {type ToolAnswer, type ToolContext, defineTool} from './tool.js'

const inputSchema = z.object({
  path: textField('path', 'the file to edit or create, relative to the workspace', {nonEmpty: true})
    .describe('File to edit or create, relative to the workspace (or absolute inside it).'),
  old_text: textField('old_text', 'the exact text to replace ("" to create a new file)')
    .describe('Exact text to replace, as it appears in the file. Empty to create a new file.'),
  new_text: textField('new_text', 'the text to put in place of old_text')
    .describe('Text to put in place of old_text, literally (no $ patterns).'),
  replace_all: flagField('replace_all', 'true replaces every occurrence of old_text, false requires exactly one')
    .default(false)
    .describe('Replace every occurrence of old_text instead of requiring exactly one. Default false.'),
})

/** Write permission bits (owner, group, others) of a file mode. */
const WRITE_BITS = 0o222

const utf8 = new TextDecoder('utf-8', {fatal: true, ignoreBOM: true})

function plural(count: number, word: string): string {
  return `${count} ${word}${count === 1 ? '' : 's'}`
}

/**
 * The text of the file at `real` for editing.
 * @throws BadInputError when it is not a regular file or not UTF-8 text
 * @throws LimitReachedError when it is larger than EDIT_MAX_FILE_BYTES
 */
async function readEditableText(real: string, requested: string) {
  const info = await stat(real)
  if (info.isDirectory()) throw new BadInputError(`"${requested}" is a folder, not a file. edit changes text files.`)
  if (!info.isFile()) throw new BadInputError(`"${requested}" is not a regular file (a device, pipe or socket).`)
  if (info.size > EDIT_MAX_FILE_BYTES) {
    throw new LimitReachedError(
      `"${requested}" has ${info.size} bytes; edit changes files of at most ${EDIT_MAX_FILE_BYTES} bytes. ` +
        'Edit it with other means, or split it.',
    )
  }
  // The file is replaced by rename, which its own permissions would not stop: honour them here.
  const isWritable = (info.mode & WRITE_BITS) !== 0 && (await access(real, constants.W_OK).then(() => true, () => false))
  if (!isWritable) {
    throw new BadInputError(`"${requested}" is read-only. Change its permissions first if it is meant to be edited.`)
  }
  const bytes = await readFile(real)
  if (bytes.includes(0)) throw new BadInputError(`"${requested}" looks like a binary file (it has a NUL byte); edit changes text files only.`)
  let text: string
  try {
    text = utf8.decode(bytes)
  } catch {
    throw new BadInputError(`"${requested}" is not valid UTF-8 text; edit changes UTF-8 text files only.`)
  }
  return {info, text}
}

function encodeWithinLimit(text: string, requested: string): Buffer {
  const data = Buffer.from(text, 'utf8')
  if (data.length > EDIT_MAX_FILE_BYTES) {
    throw new LimitReachedError(
      `The edited "${requested}" would have ${data.length} bytes; edit writes files of at most ${EDIT_MAX_FILE_BYTES} bytes.`,
    )
  }
  return data
}

/**
 * Rethrows a file system error of an edit as a message the model can act on; the errors of
 * src/errors.ts and unknown ones pass through.
 */
function explainWriteError(error: unknown, requested: string): never {
  if (error instanceof AkError) throw error
  switch ((error as NodeJS.ErrnoException).code) {
    case 'EACCES':
    case 'EPERM':
      throw new BadInputError(`No permission to write "${requested}" or its folder. The file was not changed.`)
    case 'EROFS':
      throw new BadInputError(`"${requested}" is on a read-only file system. The file was not changed.`)
    case 'ENOSPC':
    case 'EDQUOT':
      throw new LimitReachedError(`No space left on the disk to write "${requested}". The file was not changed.`)
    case 'ENOTDIR':
    case 'EEXIST':
      throw new BadInputError(`A part of the path "${requested}" is a file, not a folder, so nothing can be created there.`)
    default:
      throw error
  }
}

/** The `edit` tool: literal text replacement, or creation of a new file (DESIGN §4.3). */
export const editTool = defineTool({
  name: 'edit',
  title: 'Edit or create a text file',
  description:
    'Replaces old_text with new_text in a UTF-8 text file of the workspace, literally ($& or $1 in new_text stay as typed). ' +
    'old_text must occur exactly once unless replace_all is true; otherwise the error says how many times and on which lines ' +
    '(each line once, with its count). When old_text is missing only because whitespace differs (indentation, tabs, trailing ' +
    'spaces, line breaks), the error names the lines where it would match; such a near match is never applied. ' +
    'Line breaks in old_text match LF and CRLF alike, and those of new_text take the line ending of the file ' +
    '(a CRLF file stays CRLF); a BOM, the file mode and the owner are kept; a symlink inside the workspace edits its target. ' +
    'An empty old_text creates a new file (and missing parent folders) and fails if the path already exists. ' +
    'The file is replaced in one step, never left half-written; edits of one file are applied one after another. Answers with a unified diff ' +
    `(cut after ${EDIT_MAX_DIFF_CHARS} characters). ` +
    `Errors: outside the workspace, not found, a folder, binary or not UTF-8, larger than ${EDIT_MAX_FILE_BYTES} bytes, ` +
    'old_text missing or ambiguous.',
  level: 'files',
  inputSchema,
  argumentHints: {
    dryRun: 'edit has no dry run; it changes the file and answers with the diff.',
    dry_run: 'edit has no dry run; it changes the file and answers with the diff.',
    edits: 'edit makes one change per call: pass old_text and new_text, and call it again for the next change.',
    oldText: 'the argument is old_text.',
    newText: 'the argument is new_text.',
    file_path: 'the argument is path.',
  },
  annotations: {readOnlyHint: false, destructiveHint: true, idempotentHint: false, openWorldHint: false},
  describeTarget: (input) => input.path,
  async run(input, context) {
    try {
      return await runEdit(input, context)
    } catch (error) {
      explainWriteError(error, input.path)
    }
  },
})

/**
 * Creates or edits the file, as the tool's description says, holding the runtime's lock of its
 * real path from reading it to replacing it, so concurrent edits of one file all apply. An edit
 * also takes its file's size from the runtime's budget of EDIT_MAX_BYTES_IN_FLIGHT, so parallel
 * edits of large files run one after another instead of together.
 */
async function runEdit(input: z.infer<typeof inputSchema>, {runtime, workspace}: ToolContext): Promise<ToolAnswer> {
  const locks = runtimeService(runtime, EDIT_LOCKS_SERVICE, () => new PathLocks())
  const target = await workspace.resolve(input.path, {mustExist: input.old_text !== ''})
  if (input.old_text === '') return locks.hold(target.real, () => createFile(input, target))
  const budget = runtimeService(runtime, EDIT_BYTES_SERVICE, () => new ByteBudget(EDIT_MAX_BYTES_IN_FLIGHT))
  return locks.hold(target.real, async () => {
    // Larger files than the limit are refused by readEditableText, after taking only the limit.
    const bytes = Math.min((await stat(target.real)).size, EDIT_MAX_FILE_BYTES)
    return budget.hold(bytes, () => editFile(input, target))
  })
}

type Input = z.infer<typeof inputSchema>

/** Creates a new file with `new_text`; fails if anything exists at the path. */
async function createFile(input: Input, target: ResolvedPath): Promise<ToolAnswer> {
  if (target.namesFolder && !target.exists) {
    throw new BadInputError(`"${input.path}" ends in "/", so it names a folder; edit creates files only. Drop the "/".`)
  }
  if (target.exists) {
    throw new BadInputError(
      `"${input.path}" already exists. To change it, pass the text to replace as old_text; an empty old_text only creates new files.`,
    )
  }
  const data = encodeWithinLimit(input.new_text, input.path)
  await createFileExclusively(target.real, data, input.path)
  const diff = unifiedDiff(target.relative, undefined, input.new_text, [], EDIT_MAX_DIFF_CHARS)
  return {text: `Created ${target.relative} (${plural(data.length, 'byte')}).\n${diff}`}
}

/** Replaces `old_text` in the existing file `file`. */
async function editFile(input: Input, file: ResolvedPath): Promise<ToolAnswer> {
  const {info, text} = await readEditableText(file.real, input.path)
  const result = applyTextEdit(text, {oldText: input.old_text, newText: input.new_text, replaceAll: input.replace_all})
  await replaceFileAtomically(file.real, encodeWithinLimit(result.text, input.path), info)
  const summary = [
    `Edited ${file.relative}: replaced ${plural(result.count, 'occurrence')} ` +
      `(${describeLines(result.lines, result.count)}).`,
  ]
  if (info.nlink > 1) {
    summary.push(
      `Note: the file had ${info.nlink} hard links; this path now has its own copy and the other links keep the old content.`,
    )
  }
  const diff = unifiedDiff(file.relative, text, result.text, result.spans, EDIT_MAX_DIFF_CHARS, {
    isComplete: result.spans.length === result.count,
  })
  return {text: `${summary.join('\n')}\n${diff}`}
}
