import type {FileHandle} from 'node:fs/promises'

import {BadInputError, LimitReachedError} from '../../errors.js'
import {escapeControls} from '../../text-escape.js'
import {READ_MAX_IMAGE_BYTES, READ_MAX_IMAGE_SIDE_PX} from '../limits.js'
import type {OpenedFile} from './confined-open.js'
import {IMAGE_FORMAT_NAMES, type ImageFormat, type ImageHeader, ImageHeaderError, readImageHeader} from './image-header.js'

/**
 * Reads the whole of the open image file `file` (already opened and verified by `openFile`;
 * `format` from its magic bytes) for `read` to return as image content, after checking it against
 * the limits every host accepts for one image.
 * @returns its header (format and pixel size) and its bytes
 * @throws LimitReachedError when it is larger than READ_MAX_IMAGE_BYTES, or wider or taller than
 *   READ_MAX_IMAGE_SIDE_PX; the message shows how to make a smaller copy at the terminal level
 * @throws BadInputError when its header is cut short or malformed
 */
export async function readImageFile(file: OpenedFile, format: ImageFormat, requested: string): Promise<{header: ImageHeader; data: Buffer}> {
  const shown = escapeControls(requested)
  const name = IMAGE_FORMAT_NAMES[format]
  const size = file.info.size
  if (size > READ_MAX_IMAGE_BYTES) {
    throw new LimitReachedError(
      `"${shown}" is a ${name} image of ${size} bytes; read returns images of at most ${READ_MAX_IMAGE_BYTES} bytes ` +
        `(5 MiB once base64-encoded, the most Claude's API accepts for one image). ` +
        `Make a smaller copy at the terminal level and read that, e.g. with exec_command: ${shrinkCommand(requested)}`,
    )
  }
  const data = await readWholeFile(file.handle, size)
  let header: ImageHeader | undefined
  try {
    header = readImageHeader(data)
  } catch (error) {
    if (!(error instanceof ImageHeaderError)) throw error
    const what = error.reason === 'truncated' ? 'its header is cut short' : 'its header is damaged'
    throw new BadInputError(
      `"${shown}" starts like a ${name} image, but ${what} (${error.message}), so it cannot be shown as an image. ` +
        'Check the file (it may still be being written, or be damaged); list shows its size.',
    )
  }
  if (header?.format !== format) throw new BadInputError(`"${shown}" changed while it was being read. Read it again.`)
  if (header.width > READ_MAX_IMAGE_SIDE_PX || header.height > READ_MAX_IMAGE_SIDE_PX) {
    throw new LimitReachedError(
      `"${shown}" is a ${name} image of ${header.width}×${header.height} pixels; read returns images of at most ` +
        `${READ_MAX_IMAGE_SIDE_PX} pixels on each side (the most Claude's API accepts). ` +
        `Make a smaller copy at the terminal level and read that, e.g. with exec_command: ${shrinkCommand(requested)}`,
    )
  }
  return {header, data}
}

/** An ImageMagick command line that writes a smaller copy of `requested` beside it, quoted for a POSIX shell. */
function shrinkCommand(requested: string): string {
  const dot = requested.lastIndexOf('.')
  const slash = requested.lastIndexOf('/')
  const small = dot > slash + 1 ? `${requested.slice(0, dot)}-small${requested.slice(dot)}` : `${requested}-small.png`
  const quote = (text: string) => `'${escapeControls(text).replaceAll("'", "'\\''")}'`
  return `convert ${quote(requested)} -resize '1600x1600>' ${quote(small)}`
}

/** The first `size` bytes of the open file (its size when opened: a file that grew meanwhile is cut there). */
async function readWholeFile(handle: FileHandle, size: number): Promise<Buffer> {
  const data = Buffer.alloc(size)
  let filled = 0
  while (filled < size) {
    const {bytesRead} = await handle.read(data, filled, size - filled, filled)
    if (bytesRead === 0) break
    filled += bytesRead
  }
  return data.subarray(0, filled)
}
