import {constants, type Stats} from 'node:fs'
import {type FileHandle, access, open} from 'node:fs/promises'
import {z} from 'zod'

import {BadInputError, LimitReachedError} from '../../errors.js'
import {escapeControls} from '../../text-escape.js'
import {createFileExclusively, openCreatingFolders, removeStaleTemporaries, replaceFileAtomically} from '../files/atomic-write.js'
import {ConfinedFolder, FILE_OPEN_FLAGS} from '../files/confined-open.js'
import {unifiedDiff} from '../files/edit-diff.js'
import {explainFsError} from '../fs-errors.js'
import {ByteBudget, EDIT_BYTES_SERVICE, EDIT_LOCKS_SERVICE, PathLocks} from '../files/path-locks.js'
import {applyTextEdit, describeLines} from '../files/text-edit.js'
import {EDIT_MAX_BYTES_IN_FLIGHT, EDIT_MAX_DIFF_CHARS, EDIT_MAX_FILE_BYTES} from '../limits.js'
import {digestOf, modeAfterUmask, recordChange, workspaceRelative} from '../journal/record-change.js'
import {type AllowedProtectedPaths, assertWritableEntry, assertWritablePath} from '../protected-paths.js'
import {runtimeService} from '../runtime.js'
import {parentOf, type ResolvedPath, type Workspace} from '../workspace.js'
import {flagField, textField} from './input-fields.js'
import type {ToolContext} from '../context.js'
import type {ChangeLog} from '../journal/change-log.js'
import {type ToolAnswer, defineTool} from './tool.js'

/** A UTF-16 surrogate without its pair (in Unicode mode a pair is one code point, not surrogates). */
const LONE_SURROGATE = /\p{Surrogate}/u

const inputSchema = z.object({
  path: textField('path', 'the file to edit or create, relative to the workspace', {nonEmpty: true})
    .describe('File to edit or create, relative to the workspace (or absolute inside it).'),
  old_text: textField('old_text', 'the exact text to replace ("" to create a new file)')
    .describe('Exact text to replace, as it appears in the file. Empty to create a new file.'),
  new_text: textField('new_text', 'the text to put in place of old_text')
    .refine((text) => !text.includes('\u0000'), {
      error: 'new_text must not hold a NUL character (\\u0000): it would make the file binary, and read, search and edit refuse binary files. Send the text without it.',
    })
    .refine((text) => !LONE_SURROGATE.test(text), {
      error: 'new_text must not hold a lone surrogate (a \\ud800-\\udfff escape without its pair): it is not a character and has no UTF-8 form. Send whole characters.',
    })
    .describe('Text to put in place of old_text, literally (no $ patterns).'),
  replace_all: flagField('replace_all', 'true replaces every occurrence of old_text, false requires exactly one')
    .default(false)
    .describe('Replace every occurrence of old_text instead of requiring exactly one. Default false.'),
})

/** `edit`'s `outputSchema`: what was done to which file, and the diff. */
export const editOutputSchema = z.object({
  path: z.string().describe('The file, relative to the workspace.'),
  action: z.enum(['created', 'edited']).describe('"created" for a new file (empty old_text), "edited" for a replacement.'),
  occurrences: z.number().int().describe('Occurrences of old_text replaced (0 for a created file).'),
  lines: z
    .array(z.number().int())
    .describe('The line (in the file before the edit) where each replaced occurrence starts, for the first ones recorded; empty for a created file.'),
  bytes: z.number().int().describe('The size of the file written, in bytes.'),
  diff: z.string().describe(`The unified diff of the change, cut after ${EDIT_MAX_DIFF_CHARS} characters.`),
  hard_links: z.number().int().describe('Hard links the file had; above 1, this path now has its own copy and the other links keep the old content.'),
})

/** Write permission bits (owner, group, others) of a file mode. */
const WRITE_BITS = 0o222

const utf8 = new TextDecoder('utf-8', {fatal: true, ignoreBOM: true})

function plural(count: number, word: string): string {
  return `${count} ${word}${count === 1 ? '' : 's'}`
}

/** The file an edit replaces, open and checked, not yet read. */
interface EditableFile {
  handle: FileHandle
  info: Stats
}

/**
 * Opens the regular file `name` of the verified `folder` for editing (never through a symlink or
 * into a FIFO) and checks that it may be edited.
 * @throws BadInputError when it is not a regular file or is read-only
 * @throws LimitReachedError when it is larger than EDIT_MAX_FILE_BYTES
 */
async function openEditableFile(folder: ConfinedFolder, name: Buffer, requested: string): Promise<EditableFile> {
  const shown = escapeControls(requested)
  const handle = await open(folder.entry(name), FILE_OPEN_FLAGS)
  try {
    const info = await handle.stat()
    if (info.isDirectory()) throw new BadInputError(`"${shown}" is a folder, not a file. edit changes text files.`)
    if (!info.isFile()) throw new BadInputError(`"${shown}" is not a regular file (a device, pipe or socket); edit changes regular text files only. Pass the path of a file.`)
    if (info.size > EDIT_MAX_FILE_BYTES) {
      throw new LimitReachedError(
        `"${shown}" has ${info.size} bytes; edit changes files of at most ${EDIT_MAX_FILE_BYTES} bytes. ` +
          'Edit it with other means, or split it.',
      )
    }
    // The file is replaced by rename, which its own permissions would not stop: honour them here.
    const isWritable =
      (info.mode & WRITE_BITS) !== 0 && (await access(folder.entry(name), constants.W_OK).then(() => true, () => false))
    if (!isWritable) {
      throw new BadInputError(`"${shown}" is read-only. Change its permissions first if it is meant to be edited.`)
    }
    return {handle, info}
  } catch (error) {
    await handle.close()
    throw error
  }
}

/**
 * The text of an open editable file.
 * @throws BadInputError when it is binary or not UTF-8 text
 */
async function readEditableText(file: EditableFile, requested: string): Promise<{bytes: Buffer; text: string}> {
  const shown = escapeControls(requested)
  const bytes = await file.handle.readFile()
  if (bytes.includes(0)) {
    throw new BadInputError(
      `"${shown}" looks like a binary file (it has a NUL byte); edit changes text files only. ` +
        'If it is text with a stray NUL, remove the NUL with another tool (for example exec_command at the terminal level).',
    )
  }
  try {
    return {bytes, text: utf8.decode(bytes)}
  } catch {
    throw new BadInputError(
      `"${shown}" is not valid UTF-8 text; edit changes UTF-8 text files only. ` +
        'Convert it to UTF-8 first (for example iconv -f latin1 -t utf-8 through exec_command at the terminal level).',
    )
  }
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
    `(cut after ${EDIT_MAX_DIFF_CHARS} characters); the structured answer gives the path, what was done, the occurrences, their lines and the diff. ` +
    `Errors: outside the workspace, not found, a folder, binary or not UTF-8, larger than ${EDIT_MAX_FILE_BYTES} bytes, ` +
    'old_text missing or ambiguous, a protected path (git\'s config and hooks, agent and editor settings such as .codex/ or ' +
    '.vscode/: the error says which rule protects it).',
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
  outputSchema: editOutputSchema,
  isTextTheAnswer: true,
  annotations: {readOnlyHint: false, destructiveHint: true, idempotentHint: false, openWorldHint: false},
  describeTarget: (input) => input.path,
  async run(input, context) {
    try {
      return await runEdit(input, context)
    } catch (error) {
      throw explainFsError(error, input.path, 'write')
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
  const allowed = runtime.allowedProtected
  assertWritablePath(target, allowed, input.old_text === '' ? 'create' : 'change', input.path)
  const lockKey = target.real.toString('latin1')
  if (input.old_text === '') return locks.hold(lockKey, () => createFile(workspace, runtime.changeLog, input, target, allowed))
  const budget = runtimeService(runtime, EDIT_BYTES_SERVICE, () => new ByteBudget(EDIT_MAX_BYTES_IN_FLIGHT))
  return locks.hold(lockKey, async () => {
    const {folder, name} = await openParentFolder(workspace, target, input.path)
    try {
      assertWritableEntry(workspace, folder, name, allowed, 'change', input.path)
      const file = await openEditableFile(folder, name, input.path)
      try {
        // Larger files than the limit were refused above.
        return await budget.hold(file.info.size, () => editFile(input, runtime.changeLog, workspace, target, folder, name, file))
      } finally {
        await file.handle.close()
      }
    } finally {
      await folder.close()
    }
  })
}

type Input = z.infer<typeof inputSchema>

/**
 * The verified folder holding `target` (its deepest existing folder, for a path that does not
 * exist yet), and `target`'s name in it, with leftovers of killed servers cleared.
 */
async function openParentFolder(workspace: Workspace, target: ResolvedPath, requested: string): Promise<{folder: ConfinedFolder; name: Buffer}> {
  const name = target.real.subarray(target.real.lastIndexOf(0x2f) + 1)
  const folder = await ConfinedFolder.open(workspace, parentOf(target.real), requested, 'write')
  await removeStaleTemporaries(folder)
  return {folder, name}
}

/** Creates a new file with `new_text`; fails if anything exists at the path. */
async function createFile(workspace: Workspace, changeLog: ChangeLog, input: Input, target: ResolvedPath, allowed: AllowedProtectedPaths): Promise<ToolAnswer> {
  const shown = escapeControls(input.path)
  if (target.namesFolder && !target.exists) {
    throw new BadInputError(`"${shown}" ends in "/", so it names a folder; edit creates files only. Drop the "/".`)
  }
  if (target.exists) {
    throw new BadInputError(
      `"${shown}" already exists. To change it, pass the text to replace as old_text; an empty old_text only creates new files.`,
    )
  }
  const data = encodeWithinLimit(input.new_text, input.path)
  // `missing` ends with the file's own name; the names before it are folders to create.
  const existing = target.missing.reduce((real) => parentOf(real), target.real)
  const folders = target.missing.slice(0, -1)
  const folder = await openCreatingFolders(workspace, await ConfinedFolder.open(workspace, existing, input.path, 'write'), folders, input.path)
  try {
    await removeStaleTemporaries(folder)
    assertWritableEntry(workspace, folder, target.missing.at(-1) as Buffer, allowed, 'create', input.path)
    const created = {path: workspaceRelative(workspace.rootBytes, target.real), operation: 'added', before: null, after: digestOf(data, modeAfterUmask(0o666))} as const
    await recordChange(changeLog, 'edit', [created], () => createFileExclusively(folder, target.missing.at(-1) as Buffer, data, shown))
  } finally {
    await folder.close()
  }
  const diff = unifiedDiff(target.relative, undefined, input.new_text, [], EDIT_MAX_DIFF_CHARS)
  return {
    text: `Created ${target.relative} (${plural(data.length, 'byte')}).\n${diff}`,
    structured: {path: target.relative, action: 'created', occurrences: 0, lines: [], bytes: data.length, diff, hard_links: 1} satisfies EditStructured,
  }
}

/** Replaces `old_text` in the open file `file`, the entry `name` of `folder`. */
async function editFile(
  input: Input,
  changeLog: ChangeLog,
  workspace: Workspace,
  target: ResolvedPath,
  folder: ConfinedFolder,
  name: Buffer,
  file: EditableFile,
): Promise<ToolAnswer> {
  const {info} = file
  const {bytes, text} = await readEditableText(file, input.path)
  const result = applyTextEdit(text, {oldText: input.old_text, newText: input.new_text, replaceAll: input.replace_all})
  const data = encodeWithinLimit(result.text, input.path)
  const mode = info.mode & 0o7777
  const updated = {path: workspaceRelative(workspace.rootBytes, target.real), operation: 'updated', before: {content: bytes, mode}, after: digestOf(data, mode)} as const
  await recordChange(changeLog, 'edit', [updated], () => replaceFileAtomically(folder, name, data, info))
  const summary = [
    `Edited ${target.relative}: replaced ${plural(result.count, 'occurrence')} ` +
      `(${describeLines(result.lines, result.count)}).`,
  ]
  if (info.nlink > 1) {
    summary.push(
      `Note: the file had ${info.nlink} hard links; this path now has its own copy and the other links keep the old content.`,
    )
  }
  const diff = unifiedDiff(target.relative, text, result.text, result.spans, EDIT_MAX_DIFF_CHARS, {
    isComplete: result.spans.length === result.count,
  })
  return {
    text: `${summary.join('\n')}\n${diff}`,
    structured: {
      path: target.relative,
      action: 'edited',
      occurrences: result.count,
      lines: result.lines,
      bytes: data.length,
      diff,
      hard_links: info.nlink,
    } satisfies EditStructured,
  }
}

type EditStructured = z.infer<typeof editOutputSchema>
