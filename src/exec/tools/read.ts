import type {FileHandle} from 'node:fs/promises'
import {z} from 'zod'

import {BadInputError} from '../../errors.js'
import {escapeControls} from '../../text-escape.js'
import {openFile} from '../files/confined-open.js'
import {LineWindow, type WindowResult, formatLine} from '../files/line-window.js'
import {readFromEnd} from '../files/read-from-end.js'
import {
  BINARY_SNIFF_BYTES,
  READ_CHUNK_BYTES,
  READ_DEFAULT_LIMIT_LINES,
  READ_MAX_ANSWER_CHARS,
  READ_MAX_CLIPPED_SCAN_BYTES,
  READ_MAX_LIMIT_LINES,
  READ_MAX_LINE_CHARS,
  READ_TAIL_COUNT_MAX_BYTES,
} from '../limits.js'
import {textField, wholeNumberField} from './input-fields.js'
import {defineTool} from './tool.js'

const inputSchema = z.object({
  path: textField('path', 'the file to read, relative to the workspace')
    .describe('File to read, relative to the workspace (or absolute inside it).'),
  offset: wholeNumberField('offset', 'the first line to show, counting from 1 (or from the end: -1 is the last line)', -Number.MAX_SAFE_INTEGER, Number.MAX_SAFE_INTEGER)
    .refine((offset) => offset !== 0, {
      error: 'offset must not be 0: lines count from 1 (offset 1 is the first line), and from the end from -1 (offset -1 is the last line).',
    })
    .default(1)
    .describe('First line to show, 1-based; negative counts from the end (-20 = the last 20 lines). Default 1.'),
  limit: wholeNumberField('limit', 'how many lines to show; read a long file in several calls using offset', 1, READ_MAX_LIMIT_LINES, 'lines')
    .default(READ_DEFAULT_LIMIT_LINES)
    .describe(`How many lines to show, 1 to ${READ_MAX_LIMIT_LINES}. Default ${READ_DEFAULT_LIMIT_LINES}.`),
})

/** Whether the first `BINARY_SNIFF_BYTES` of `head` contain a NUL byte (git's test for binary). */
export function looksBinary(head: Uint8Array): boolean {
  return head.subarray(0, BINARY_SNIFF_BYTES).includes(0)
}

function binaryFileError(requested: string): BadInputError {
  return new BadInputError(
    `"${escapeControls(requested)}" looks like a binary file (it has a NUL byte in its first ${BINARY_SNIFF_BYTES} bytes); ` +
      'read shows text files only. Use list to see its size.',
  )
}

/**
 * Streams the open file `handle` from its start through a line window and stops reading as soon
 * as the window is complete, so only the bytes up to the last wanted line (plus one chunk) are read.
 * @throws BadInputError when the first chunk looks binary.
 */
async function readWindow(handle: FileHandle, requested: string, window: LineWindow, signal: AbortSignal): Promise<WindowResult> {
  const buffer = Buffer.allocUnsafe(READ_CHUNK_BYTES)
  let isFirstChunk = true
  for (;;) {
    signal.throwIfAborted()
    const {bytesRead} = await handle.read(buffer, 0, buffer.length, null)
    if (bytesRead === 0) break
    const chunk = buffer.subarray(0, bytesRead)
    if (isFirstChunk && looksBinary(chunk)) throw binaryFileError(requested)
    isFirstChunk = false
    if (!window.push(chunk)) break
  }
  return window.finish()
}

/**
 * The answer text for a window: numbered lines, then a note when more is to be had.
 * @param fromEndNote for a window read from the end whose lines were not counted: the note
 *   saying that its numbers count from the end.
 */
export function formatReadAnswer(relative: string, offset: number, result: WindowResult, fromEndNote?: string): string {
  const {lines} = result
  if (result.end === 'eof' && result.totalLines === 0) return `(empty file: "${relative}" has 0 lines)`
  const first = lines[0]?.number ?? offset
  const last = lines.at(-1)?.number ?? offset
  const body = lines.map(formatLine)
  if (result.end === 'limit' && lines.at(-1)?.cutIsLowerBound) {
    body.push(`[Stopped inside line ${last}, which is very long. Lines after it, if any, start at offset=${last + 1}.]`)
  } else if (result.end === 'limit') {
    body.push(`[More lines follow. Shown: lines ${first} to ${last}. Continue with offset=${last + 1}.]`)
  } else if (result.end === 'chars') {
    body.push(
      `[Answer capped at ${READ_MAX_ANSWER_CHARS} characters. Shown: lines ${first} to ${last}. ` +
        `Continue with offset=${last + 1}.]`,
    )
  }
  if (fromEndNote) body.push(fromEndNote)
  return body.join('\n')
}

/**
 * Reads the lines from `-offset` lines before the end of the open file `handle` (`size` bytes),
 * backwards in bounded memory (see `readFromEnd`), and formats the answer.
 * @throws BadInputError when the file looks binary.
 */
async function readLastLines(
  handle: FileHandle,
  size: number,
  requested: string,
  relative: string,
  input: {offset: number; limit: number},
  signal: AbortSignal,
): Promise<string> {
  const head = Buffer.alloc(Math.min(size, BINARY_SNIFF_BYTES))
  await handle.read(head, 0, head.length, 0)
  if (looksBinary(head)) throw binaryFileError(requested)
  const {window, isCounted} = await readFromEnd(handle, size, {
    linesFromEnd: -input.offset,
    limit: input.limit,
    maxLineChars: READ_MAX_LINE_CHARS,
    maxAnswerChars: READ_MAX_ANSWER_CHARS,
    maxClippedScanBytes: READ_MAX_CLIPPED_SCAN_BYTES,
    chunkBytes: READ_CHUNK_BYTES,
    maxCountBytes: READ_TAIL_COUNT_MAX_BYTES,
    signal,
  })
  const note = isCounted
    ? undefined
    : `[Lines are numbered from the end (-1 is the last line): the lines before them were not counted, to spare reading ` +
      `all ${size} bytes of the file. Pass a shown number as offset to read from that line.]`
  return formatReadAnswer(relative, input.offset, window, note)
}

/** The `read` tool: a text file as numbered lines, a window at a time (DESIGN §4.3). */
export const readTool = defineTool({
  name: 'read',
  title: 'Read a text file',
  description:
    'Reads a text file of the workspace as numbered lines ("cat -n" style: line number, tab, text). ' +
    `offset is the first line (1-based, default 1); limit the number of lines (default ${READ_DEFAULT_LIMIT_LINES}, ` +
    `at most ${READ_MAX_LIMIT_LINES}). When more lines follow, a last line says so and gives the offset to continue with. ` +
    'A negative offset counts from the end (-20: the last 20 lines; read backwards, without scanning a large file); ' +
    `lines are then numbered from the start when the lines before them take at most ${READ_TAIL_COUNT_MAX_BYTES / (1024 * 1024)} MiB, ` +
    'otherwise from the end (-1 is the last line), as a note then says. ' +
    `Lines longer than ${READ_MAX_LINE_CHARS} characters (Unicode code points) are clipped with a marker saying how many characters were cut; ` +
    `an answer holds at most ${READ_MAX_ANSWER_CHARS} characters and then says where to continue. ` +
    'Line breaks (LF or CRLF) and a UTF-8 BOM are not shown. ' +
    'Errors: the path is outside the workspace or does not exist, is a folder (use list), is not a regular file, ' +
    'looks binary (a NUL byte near the start), or offset is past the end of the file.',
  level: 'read',
  inputSchema,
  argumentHints: {
    tail: 'for the last lines, pass a negative offset: offset -20 reads the last 20 lines.',
    head: 'for the first lines, pass limit: limit 20 reads the first 20 lines.',
    file_path: 'the argument is path.',
  },
  annotations: {readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false},
  describeTarget: (input) => input.path,
  async run(input, {workspace, signal}) {
    const file = await openFile(workspace, input.path)
    if (input.offset < 0) {
      try {
        return {text: await readLastLines(file.handle, file.info.size, input.path, file.path.relative, input, signal)}
      } finally {
        await file.handle.close()
      }
    }
    const window = new LineWindow({
      offset: input.offset,
      limit: input.limit,
      maxLineChars: READ_MAX_LINE_CHARS,
      maxAnswerChars: READ_MAX_ANSWER_CHARS,
      maxClippedScanBytes: READ_MAX_CLIPPED_SCAN_BYTES,
    })
    let result: WindowResult
    try {
      result = await readWindow(file.handle, input.path, window, signal)
    } finally {
      await file.handle.close()
    }
    if (result.end === 'eof' && result.lines.length === 0 && result.totalLines !== 0) {
      const total = result.totalLines ?? 0
      throw new BadInputError(
        `offset ${input.offset} is past the end of "${escapeControls(input.path)}", which has ${total} ${total === 1 ? 'line' : 'lines'}. ` +
          `Use an offset from 1 to ${total}.`,
      )
    }
    return {text: formatReadAnswer(file.path.relative, input.offset, result)}
  },
})
