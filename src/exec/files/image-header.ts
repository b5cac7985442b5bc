/**
 * Recognises the image formats `read` answers with MCP image content (PNG, JPEG, GIF, WebP) by
 * their magic bytes, and reads their pixel size from their headers. Pure functions over bytes;
 * the layouts are those of the formats' specifications: PNG (ISO/IEC 15948, the IHDR chunk),
 * JPEG (ITU T.81, the SOFn segment), GIF (GIF89a, the logical screen descriptor) and WebP
 * (RFC 9649: the VP8, VP8L and VP8X chunks).
 */

/** An image format `read` returns as image content. */
export type ImageFormat = 'png' | 'jpeg' | 'gif' | 'webp'

/** The MIME type of each format, as MCP image content names it. */
export const IMAGE_MIME_TYPES: Record<ImageFormat, string> = {
  png: 'image/png',
  jpeg: 'image/jpeg',
  gif: 'image/gif',
  webp: 'image/webp',
}

/** The name a person knows each format by, for answers and errors. */
export const IMAGE_FORMAT_NAMES: Record<ImageFormat, string> = {png: 'PNG', jpeg: 'JPEG', gif: 'GIF', webp: 'WebP'}

/** Leading bytes that are enough to recognise every format of `imageFormatOf`. */
export const IMAGE_MAGIC_BYTES = 12

/** A recognised image's format and size in pixels. */
export interface ImageHeader {
  format: ImageFormat
  width: number
  height: number
}

const PNG_MAGIC = [0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]
const JPEG_MAGIC = [0xff, 0xd8, 0xff]

function startsWith(bytes: Uint8Array, magic: readonly number[], at = 0): boolean {
  return magic.every((byte, index) => bytes[at + index] === byte)
}

function ascii(bytes: Uint8Array, start: number, length: number): string {
  return String.fromCharCode(...bytes.subarray(start, start + length))
}

/**
 * The image format whose magic bytes `head` starts with, or undefined (a text file, another
 * binary format, or fewer bytes than the magic). Only the first IMAGE_MAGIC_BYTES matter. An SVG
 * is text and is not recognised here.
 */
export function imageFormatOf(head: Uint8Array): ImageFormat | undefined {
  if (startsWith(head, PNG_MAGIC)) return 'png'
  if (startsWith(head, JPEG_MAGIC)) return 'jpeg'
  const signature = ascii(head, 0, 6)
  if (signature === 'GIF87a' || signature === 'GIF89a') return 'gif'
  if (ascii(head, 0, 4) === 'RIFF' && ascii(head, 8, 4) === 'WEBP') return 'webp'
  return undefined
}

/** Why an image's header could not be read: the file ends inside it, or it is not laid out as the format says. */
export class ImageHeaderError extends Error {
  constructor(
    readonly format: ImageFormat,
    readonly reason: 'truncated' | 'malformed',
    detail: string,
  ) {
    super(detail)
    this.name = 'ImageHeaderError'
  }
}

/**
 * The format and pixel size of the image `bytes` (the whole file, or at least its header), or
 * undefined when its magic bytes are those of no supported format.
 * @throws ImageHeaderError when the magic bytes name a format but the header is cut short
 *   (`truncated`) or not as the format lays it out (`malformed`, including a width or height of 0)
 */
export function readImageHeader(bytes: Uint8Array): ImageHeader | undefined {
  const format = imageFormatOf(bytes)
  if (format === undefined) return undefined
  const size = SIZE_READERS[format](bytes)
  if (size.width === 0 || size.height === 0) {
    throw new ImageHeaderError(format, 'malformed', `its header gives a size of ${size.width}×${size.height} pixels`)
  }
  return {format, ...size}
}

type SizeReader = (bytes: Uint8Array) => {width: number; height: number}

function view(bytes: Uint8Array): DataView {
  return new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength)
}

function need(bytes: Uint8Array, end: number, format: ImageFormat, what: string): void {
  if (bytes.length < end) {
    throw new ImageHeaderError(format, 'truncated', `the file ends after ${bytes.length} bytes, inside its ${what}`)
  }
}

/** PNG: the IHDR chunk comes first, right after the signature; width and height are big-endian. */
function pngSize(bytes: Uint8Array): {width: number; height: number} {
  need(bytes, 24, 'png', 'IHDR header')
  if (ascii(bytes, 12, 4) !== 'IHDR') throw new ImageHeaderError('png', 'malformed', 'its first chunk is not IHDR')
  const data = view(bytes)
  return {width: data.getUint32(16), height: data.getUint32(20)}
}

/** GIF: the logical screen descriptor follows the six-byte signature; little-endian. */
function gifSize(bytes: Uint8Array): {width: number; height: number} {
  need(bytes, 10, 'gif', 'logical screen descriptor')
  const data = view(bytes)
  return {width: data.getUint16(6, true), height: data.getUint16(8, true)}
}

/**
 * JPEG: walks the segments after SOI to the first start-of-frame (SOF0–SOF15 but DHT, JPG and
 * DAC), whose height and width are big-endian. Fill bytes (0xff runs) between segments are allowed.
 */
function jpegSize(bytes: Uint8Array): {width: number; height: number} {
  const data = view(bytes)
  let at = 2
  for (;;) {
    need(bytes, at + 2, 'jpeg', 'segments before the frame header')
    if (bytes[at] !== 0xff) throw new ImageHeaderError('jpeg', 'malformed', `a segment at byte ${at} does not start with 0xff`)
    const marker = bytes[at + 1] as number
    if (marker === 0xff) {
      at += 1
      continue
    }
    if (marker === 0xd9 || marker === 0xda) {
      throw new ImageHeaderError('jpeg', 'malformed', 'its image data starts before any frame header gives its size')
    }
    if (marker === 0x01 || (marker >= 0xd0 && marker <= 0xd7)) {
      at += 2 // markers without a length
      continue
    }
    need(bytes, at + 4, 'jpeg', 'segments before the frame header')
    const length = data.getUint16(at + 2)
    if (length < 2) throw new ImageHeaderError('jpeg', 'malformed', `a segment at byte ${at} has length ${length}`)
    const isFrame = marker >= 0xc0 && marker <= 0xcf && marker !== 0xc4 && marker !== 0xc8 && marker !== 0xcc
    if (isFrame) {
      need(bytes, at + 9, 'jpeg', 'frame header')
      return {width: data.getUint16(at + 7), height: data.getUint16(at + 5)}
    }
    at += 2 + length
  }
}

/** WebP (RFC 9649): the first chunk after the RIFF header is VP8 (lossy), VP8L (lossless) or VP8X (extended). */
function webpSize(bytes: Uint8Array): {width: number; height: number} {
  need(bytes, 20, 'webp', 'first chunk header')
  const chunk = ascii(bytes, 12, 4)
  const data = view(bytes)
  if (chunk === 'VP8 ') {
    need(bytes, 30, 'webp', 'VP8 frame header')
    if (!startsWith(bytes, [0x9d, 0x01, 0x2a], 23)) throw new ImageHeaderError('webp', 'malformed', 'its VP8 frame has no start code')
    return {width: data.getUint16(26, true) & 0x3fff, height: data.getUint16(28, true) & 0x3fff}
  }
  if (chunk === 'VP8L') {
    need(bytes, 25, 'webp', 'VP8L header')
    if (bytes[20] !== 0x2f) throw new ImageHeaderError('webp', 'malformed', 'its VP8L chunk has no signature byte')
    const bits = data.getUint32(21, true)
    return {width: (bits & 0x3fff) + 1, height: ((bits >>> 14) & 0x3fff) + 1}
  }
  if (chunk === 'VP8X') {
    need(bytes, 30, 'webp', 'VP8X header')
    const uint24 = (at: number) => (bytes[at] as number) | ((bytes[at + 1] as number) << 8) | ((bytes[at + 2] as number) << 16)
    return {width: uint24(24) + 1, height: uint24(27) + 1}
  }
  throw new ImageHeaderError('webp', 'malformed', `its first chunk is "${chunk.replace(/[^\x20-\x7e]/g, '?')}", not VP8, VP8L or VP8X`)
}

const SIZE_READERS: Record<ImageFormat, SizeReader> = {png: pngSize, jpeg: jpegSize, gif: gifSize, webp: webpSize}
