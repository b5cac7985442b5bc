import type {FileHandle} from 'node:fs/promises'
import {z} from 'zod'

import {BadInputError} from '../../errors.js'
import {escapeControls} from '../../text-escape.js'
import {type OpenedFile, openFile} from '../files/confined-open.js'
import {IMAGE_FORMAT_NAMES, IMAGE_MAGIC_BYTES, IMAGE_MIME_TYPES, type ImageFormat, imageFormatOf} from '../files/image-header.js'
import {readImageFile} from '../files/image-file.js'
import {LineWindow, type WindowResult, formatLine} from '../files/line-window.js'
import {readFromEnd} from '../files/read-from-end.js'
import {
  BINARY_SNIFF_BYTES,
  READ_CHUNK_BYTES,
  READ_DEFAULT_LIMIT_LINES,
  READ_MAX_ANSWER_CHARS,
  READ_MAX_CLIPPED_SCAN_BYTES,
  READ_MAX_IMAGE_BYTES,
  READ_MAX_IMAGE_SIDE_PX,
  READ_MAX_LIMIT_LINES,
  READ_MAX_LINE_CHARS,
  READ_TAIL_COUNT_MAX_BYTES,
} from '../limits.js'
import {textField, wholeNumberField} from './input-fields.js'
import {type ToolAnswer, defineTool} from './tool.js'

/** `read`'s offset when the call gives none: the first line. */
const READ_DEFAULT_OFFSET = 1

const inputSchema = z.object({
  path: textField('path', 'the file to read, relative to the workspace')
    .describe('File to read, relative to the workspace (or absolute inside it).'),
  // Optional rather than defaulted, so that read can tell an image read that names offset or limit.
  offset: wholeNumberField('offset', 'the first line to show, counting from 1 (or from the end: -1 is the last line)', -Number.MAX_SAFE_INTEGER, Number.MAX_SAFE_INTEGER)
    .refine((offset) => offset !== 0, {
      error: 'offset must not be 0: lines count from 1 (offset 1 is the first line), and from the end from -1 (offset -1 is the last line).',
    })
    .optional()
    .meta({default: READ_DEFAULT_OFFSET, not: {const: 0}})
    .describe('First line to show, 1-based; negative counts from the end (-20 = the last 20 lines); 0 is refused. Default 1. Not for images.'),
  limit: wholeNumberField('limit', 'how many lines to show; read a long file in several calls using offset', 1, READ_MAX_LIMIT_LINES, 'lines')
    .optional()
    .meta({default: READ_DEFAULT_LIMIT_LINES})
    .describe(`How many lines to show, 1 to ${READ_MAX_LIMIT_LINES}. Default ${READ_DEFAULT_LIMIT_LINES}. Not for images.`),
})

const clippedLineSchema = z.object({
  number: z.number().int().describe('The number of a line shown clipped.'),
  clipped_chars: z
    .number()
    .int()
    .describe('Characters (code points) clipped from the end of the line. A lower bound when the line goes on past the scan limit.'),
})

/** `read`'s `outputSchema`: a text window, or an image's description (its bytes are the image content). */
export const readOutputSchema = z.object({
  path: z.string().describe('The file, relative to the workspace (names escaped as list shows them).'),
  kind: z.enum(['text', 'image']).describe('"text" for numbered lines, "image" for an image returned as image content.'),
  lines: z
    .array(z.string())
    .optional()
    .describe('Text: the lines shown, in order, without their line breaks; the line at index i has the number first_line + i.'),
  clipped_lines: z
    .array(clippedLineSchema)
    .optional()
    .describe(`Text: the lines shown clipped (longer than ${READ_MAX_LINE_CHARS} characters), with how much of each was cut; empty when none was.`),
  first_line: z
    .number()
    .int()
    .nullable()
    .optional()
    .describe('Text: the number of the first line shown (from 1 at the start, or from -1 at the end when numbered_from_end); null when no line is shown.'),
  last_line: z.number().int().nullable().optional().describe('Text: the number of the last line shown; null for an empty file.'),
  total_lines: z.number().int().nullable().optional().describe('Text: lines in the file, when the read reached its end; else null.'),
  next_offset: z.number().int().nullable().optional().describe('Text: the offset that continues the read; null when the file ended.'),
  stopped_by: z
    .enum(['end_of_file', 'limit', 'answer_size'])
    .optional()
    .describe(`Text: why the answer stopped: the file ended, limit lines were shown, or the answer reached ${READ_MAX_ANSWER_CHARS} characters.`),
  numbered_from_end: z.boolean().optional().describe('Text: true when lines are numbered from the end (-1 is the last line).'),
  format: z.enum(['png', 'jpeg', 'gif', 'webp']).optional().describe('Image: its format, from its magic bytes.'),
  mime_type: z.string().optional().describe('Image: the MIME type of the image content.'),
  width: z.number().int().optional().describe('Image: width in pixels.'),
  height: z.number().int().optional().describe('Image: height in pixels.'),
  bytes: z.number().int().optional().describe('Image: the file size in bytes.'),
})

type ReadStructured = z.infer<typeof readOutputSchema>

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

/** The file's first chunk, read once: for its magic bytes, its binary test and its first lines. */
interface FirstChunk {
  /** The bytes read from position 0 (fewer than a chunk at the end of the file). */
  bytes: Buffer
  /** The buffer they were read into, `READ_CHUNK_BYTES` long, free for the next reads. */
  buffer: Buffer
}

async function readFirstChunk(handle: FileHandle): Promise<FirstChunk> {
  const buffer = Buffer.allocUnsafe(READ_CHUNK_BYTES)
  const {bytesRead} = await handle.read(buffer, 0, buffer.length, 0)
  return {bytes: buffer.subarray(0, bytesRead), buffer}
}

/**
 * Streams the open file `handle` from its start (its first chunk already read) through a line
 * window and stops reading as soon as the window is complete, so only the bytes up to the last
 * wanted line (plus one chunk) are read.
 * @throws BadInputError when the first chunk looks binary.
 */
async function readWindow(handle: FileHandle, requested: string, window: LineWindow, first: FirstChunk, signal: AbortSignal): Promise<WindowResult> {
  if (looksBinary(first.bytes)) throw binaryFileError(requested)
  let position = first.bytes.length
  let chunk = first.bytes
  while (chunk.length > 0 && window.push(chunk)) {
    signal.throwIfAborted()
    const {bytesRead} = await handle.read(first.buffer, 0, first.buffer.length, position)
    position += bytesRead
    chunk = first.buffer.subarray(0, bytesRead)
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
 * The structured form of a text answer (`read`'s outputSchema): the same window as
 * `formatReadAnswer` shows, as fields. Pure.
 */
export function structuredReadAnswer(relative: string, result: WindowResult, isNumberedFromEnd = false): ReadStructured {
  const {lines} = result
  const last = lines.at(-1)?.number
  const stoppedBy = result.end === 'eof' ? 'end_of_file' : result.end === 'limit' ? 'limit' : 'answer_size'
  return {
    path: relative,
    kind: 'text',
    lines: lines.map((line) => line.text),
    clipped_lines: lines.filter((line) => line.cutChars > 0).map((line) => ({number: line.number, clipped_chars: line.cutChars})),
    first_line: lines[0]?.number ?? null,
    last_line: last ?? null,
    total_lines: result.end === 'eof' && !isNumberedFromEnd ? (result.totalLines ?? null) : null,
    next_offset: result.end === 'eof' || last === undefined ? null : last + 1,
    stopped_by: stoppedBy,
    numbered_from_end: isNumberedFromEnd,
  }
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
  head: Buffer,
  signal: AbortSignal,
): Promise<ToolAnswer> {
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
  return {text: formatReadAnswer(relative, input.offset, window, note), structured: structuredReadAnswer(relative, window, !isCounted)}
}

/**
 * Answers a read of the image file `file` (`format`, from its magic bytes): the whole file as MCP
 * image content, with one line of text and the structured description.
 * @throws BadInputError when the call named offset or limit; as `readImageFile` otherwise.
 */
async function readImage(file: OpenedFile, format: ImageFormat, requested: string, given: {offset?: number; limit?: number}): Promise<ToolAnswer> {
  if (given.offset !== undefined || given.limit !== undefined) {
    throw new BadInputError(
      `"${escapeControls(requested)}" is a ${IMAGE_FORMAT_NAMES[format]} image; read returns an image whole, so offset and limit ` +
        '(which count lines of text) do not apply. Call read again with path alone.',
    )
  }
  const {header, data} = await readImageFile(file, format, requested)
  const mimeType = IMAGE_MIME_TYPES[format]
  return {
    text: `${file.path.relative}: ${IMAGE_FORMAT_NAMES[format]} image, ${header.width}×${header.height} pixels, ${data.length} bytes.`,
    images: [{data: data.toString('base64'), mimeType}],
    structured: {
      path: file.path.relative,
      kind: 'image',
      format,
      mime_type: mimeType,
      width: header.width,
      height: header.height,
      bytes: data.length,
    } satisfies ReadStructured,
  }
}

/** The `read` tool: a text file as numbered lines, a window at a time, or an image whole (DESIGN §4.3). */
export const readTool = defineTool({
  name: 'read',
  title: 'Read a text file or an image',
  description:
    'Reads a text file of the workspace as numbered lines ("cat -n" style: line number, tab, text). ' +
    `offset is the first line (1-based, default ${READ_DEFAULT_OFFSET}); limit the number of lines (default ${READ_DEFAULT_LIMIT_LINES}, ` +
    `at most ${READ_MAX_LIMIT_LINES}). When more lines follow, a last line says so and gives the offset to continue with. ` +
    'A negative offset counts from the end (-20: the last 20 lines; read backwards, without scanning a large file); ' +
    `lines are then numbered from the start when the lines before them take at most ${READ_TAIL_COUNT_MAX_BYTES / (1024 * 1024)} MiB, ` +
    'otherwise from the end (-1 is the last line), as a note then says. ' +
    `Lines longer than ${READ_MAX_LINE_CHARS} characters (Unicode code points) are clipped with a marker saying how many characters were cut; ` +
    `an answer holds at most ${READ_MAX_ANSWER_CHARS} characters and then says where to continue. ` +
    'Line breaks (LF or CRLF) and a UTF-8 BOM are not shown. ' +
    'A PNG, JPEG, GIF or WebP file (recognised by its first bytes, not its name) is answered as an image: the whole file ' +
    'as MCP image content, after one line giving its path, format, size in pixels and bytes; offset and limit do not apply to it. ' +
    `Images up to ${READ_MAX_IMAGE_BYTES} bytes and ${READ_MAX_IMAGE_SIDE_PX} pixels a side (what Claude accepts for one image); ` +
    'shrink a larger one first at the terminal level. An SVG is text. ' +
    'The structured answer holds the same lines (or the image\'s format and size) as fields. ' +
    'Errors: the path is outside the workspace or does not exist, is a folder (use list), is not a regular file, ' +
    'looks binary (a NUL byte near the start) and is no image, is an image too large or with a damaged header, ' +
    'or offset is past the end of the file.',
  level: 'read',
  inputSchema,
  argumentHints: {
    tail: 'for the last lines, pass a negative offset: offset -20 reads the last 20 lines.',
    head: 'for the first lines, pass limit: limit 20 reads the first 20 lines.',
    file_path: 'the argument is path.',
  },
  outputSchema: readOutputSchema,
  isTextTheAnswer: true,
  annotations: {readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false},
  describeTarget: (input) => input.path,
  async run(input, {workspace, signal}) {
    const file = await openFile(workspace, input.path)
    const window = {offset: input.offset ?? READ_DEFAULT_OFFSET, limit: input.limit ?? READ_DEFAULT_LIMIT_LINES}
    try {
      const first = await readFirstChunk(file.handle)
      const format = imageFormatOf(first.bytes.subarray(0, IMAGE_MAGIC_BYTES))
      if (format !== undefined) return await readImage(file, format, input.path, input)
      if (window.offset < 0) return await readLastLines(file.handle, file.info.size, input.path, file.path.relative, window, first.bytes, signal)
      return await readFirstLines(file, input.path, window, first, signal)
    } finally {
      // Not awaited: the answer need not wait a round trip to the thread pool for the close.
      file.handle.close().catch(() => undefined)
    }
  },
})

/**
 * Reads the window from line `offset` of the open file, streaming from its start.
 * @throws BadInputError when the file looks binary, or `offset` is past its end.
 */
async function readFirstLines(file: OpenedFile, requested: string, input: {offset: number; limit: number}, first: FirstChunk, signal: AbortSignal): Promise<ToolAnswer> {
  const window = new LineWindow({
    offset: input.offset,
    limit: input.limit,
    maxLineChars: READ_MAX_LINE_CHARS,
    maxAnswerChars: READ_MAX_ANSWER_CHARS,
    maxClippedScanBytes: READ_MAX_CLIPPED_SCAN_BYTES,
  })
  const result = await readWindow(file.handle, requested, window, first, signal)
  if (result.end === 'eof' && result.lines.length === 0 && result.totalLines !== 0) {
    const total = result.totalLines ?? 0
    throw new BadInputError(
      `offset ${input.offset} is past the end of "${escapeControls(requested)}", which has ${total} ${total === 1 ? 'line' : 'lines'}. ` +
        `Use an offset from 1 to ${total}.`,
    )
  }
  return {text: formatReadAnswer(file.path.relative, input.offset, result), structured: structuredReadAnswer(file.path.relative, result)}
}
