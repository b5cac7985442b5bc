/**
 * Image files made by the tests, byte by byte, in each format `read` returns as image content.
 * The PNG and GIF are complete, decodable images; the JPEG and WebP carry real headers (the size
 * is where a decoder reads it) around placeholder data, which is all `read` looks at: it returns
 * the file's bytes unchanged.
 */
import {crc32, deflateSync} from 'node:zlib'

function u32be(value: number): Buffer {
  const bytes = Buffer.alloc(4)
  bytes.writeUInt32BE(value)
  return bytes
}

function pngChunk(type: string, data: Buffer): Buffer {
  const typed = Buffer.concat([Buffer.from(type, 'latin1'), data])
  return Buffer.concat([u32be(data.length), typed, u32be(crc32(typed))])
}

/**
 * A width × height RGB PNG (a red-green gradient). `paddingBytes` adds a tEXt chunk of that many
 * bytes, to make a file of a chosen size.
 */
export function makePng(width: number, height: number, paddingBytes = 0): Buffer {
  const header = Buffer.alloc(13)
  header.writeUInt32BE(width, 0)
  header.writeUInt32BE(height, 4)
  header.set([8, 2, 0, 0, 0], 8) // 8 bits, RGB, deflate, no filter method variant, no interlace
  const rows: Buffer[] = []
  for (let y = 0; y < height; y++) {
    const row = Buffer.alloc(1 + width * 3)
    for (let x = 0; x < width; x++) row.set([(x * 255) / Math.max(1, width - 1), (y * 255) / Math.max(1, height - 1), 64], 1 + x * 3)
    rows.push(row)
  }
  const chunks = [pngChunk('IHDR', header)]
  if (paddingBytes > 0) chunks.push(pngChunk('tEXt', Buffer.concat([Buffer.from('Comment\0'), Buffer.alloc(paddingBytes, 0x61)])))
  chunks.push(pngChunk('IDAT', deflateSync(Buffer.concat(rows))), pngChunk('IEND', Buffer.alloc(0)))
  return Buffer.concat([Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]), ...chunks])
}

/** A width × height GIF89a of one colour (a global colour table of two, one image, LZW data for one pixel code run). */
export function makeGif(width: number, height: number): Buffer {
  const screen = Buffer.alloc(7)
  screen.writeUInt16LE(width, 0)
  screen.writeUInt16LE(height, 2)
  screen.set([0x80, 0, 0], 4) // a global colour table of 2 entries
  const descriptor = Buffer.alloc(10)
  descriptor[0] = 0x2c
  descriptor.writeUInt16LE(width, 5)
  descriptor.writeUInt16LE(height, 7)
  return Buffer.concat([
    Buffer.from('GIF89a', 'latin1'),
    screen,
    Buffer.from([0x20, 0x60, 0xa0, 0xff, 0xff, 0xff]),
    descriptor,
    Buffer.from([0x02, 0x02, 0x44, 0x01, 0x00]), // LZW minimum code size 2, one sub-block
    Buffer.from([0x3b]),
  ])
}

/**
 * A JPEG whose frame header (SOF0) gives width × height, after a JFIF APP0 segment and an EXIF-like
 * APP1 segment of `app1Bytes` (so the size is found past other segments), with fill bytes before the frame.
 */
export function makeJpeg(width: number, height: number, app1Bytes = 32): Buffer {
  const segment = (marker: number, data: Buffer) => Buffer.concat([Buffer.from([0xff, marker]), u16be(data.length + 2), data])
  const frame = Buffer.concat([Buffer.from([8]), u16be(height), u16be(width), Buffer.from([1, 1, 0x11, 0])])
  return Buffer.concat([
    Buffer.from([0xff, 0xd8]),
    segment(0xe0, Buffer.from('JFIF\0\x01\x01\0\0\x01\0\x01\0\0', 'latin1')),
    segment(0xe1, Buffer.concat([Buffer.from('Exif\0\0', 'latin1'), Buffer.alloc(app1Bytes, 0x55)])),
    Buffer.from([0xff]), // a fill byte
    segment(0xc0, frame),
    segment(0xda, Buffer.from([1, 1, 0, 0, 0x3f, 0])),
    Buffer.from([0x12, 0x34, 0x56, 0xff, 0xd9]),
  ])
}

function u16be(value: number): Buffer {
  const bytes = Buffer.alloc(2)
  bytes.writeUInt16BE(value)
  return bytes
}

function riff(chunk: string, data: Buffer): Buffer {
  const padded = data.length % 2 === 1 ? Buffer.concat([data, Buffer.alloc(1)]) : data
  const size = Buffer.alloc(4)
  size.writeUInt32LE(data.length)
  const body = Buffer.concat([Buffer.from('WEBP', 'latin1'), Buffer.from(chunk, 'latin1'), size, padded])
  const total = Buffer.alloc(4)
  total.writeUInt32LE(body.length)
  return Buffer.concat([Buffer.from('RIFF', 'latin1'), total, body])
}

/** A WebP of width × height in the form `kind`: lossless (VP8L), lossy (VP8) or extended (VP8X). */
export function makeWebp(width: number, height: number, kind: 'VP8L' | 'VP8 ' | 'VP8X' = 'VP8L'): Buffer {
  if (kind === 'VP8L') {
    const bits = Buffer.alloc(4)
    bits.writeUInt32LE(((width - 1) | ((height - 1) << 14)) >>> 0)
    return riff('VP8L', Buffer.concat([Buffer.from([0x2f]), bits, Buffer.from([0x00, 0x88, 0x88, 0x08])]))
  }
  if (kind === 'VP8 ') {
    const frame = Buffer.alloc(10)
    frame.set([0x50, 0x01, 0x00, 0x9d, 0x01, 0x2a]) // frame tag, start code
    frame.writeUInt16LE(width, 6)
    frame.writeUInt16LE(height, 8)
    return riff('VP8 ', Buffer.concat([frame, Buffer.alloc(8, 0x11)]))
  }
  const header = Buffer.alloc(10)
  header.writeUIntLE(width - 1, 4, 3)
  header.writeUIntLE(height - 1, 7, 3)
  return riff('VP8X', header)
}
