import {expect} from 'chai'

import {IMAGE_FORMAT_NAMES, IMAGE_MIME_TYPES, ImageHeaderError, imageFormatOf, readImageHeader} from '../../../../src/exec/files/image-header.js'
import {makeGif, makeJpeg, makePng, makeWebp} from '../../../helpers/images.js'

function headerError(bytes: Uint8Array): ImageHeaderError {
  try {
    readImageHeader(bytes)
  } catch (error) {
    expect(error).to.be.instanceOf(ImageHeaderError)
    return error as ImageHeaderError
  }
  throw new Error('readImageHeader did not throw')
}

describe('image headers', () => {
  it('names each format and its MIME type as MCP image content does', () => {
    expect(IMAGE_MIME_TYPES).to.deep.equal({png: 'image/png', jpeg: 'image/jpeg', gif: 'image/gif', webp: 'image/webp'})
    expect(IMAGE_FORMAT_NAMES).to.deep.equal({png: 'PNG', jpeg: 'JPEG', gif: 'GIF', webp: 'WebP'})
  })

  it('reads the format and pixel size of a PNG, a GIF, a JPEG and each kind of WebP', () => {
    expect(readImageHeader(makePng(640, 3))).to.deep.equal({format: 'png', width: 640, height: 3})
    expect(readImageHeader(makeGif(17, 301))).to.deep.equal({format: 'gif', width: 17, height: 301})
    expect(readImageHeader(makeJpeg(1920, 1080))).to.deep.equal({format: 'jpeg', width: 1920, height: 1080})
    expect(readImageHeader(makeWebp(16383, 1, 'VP8L'))).to.deep.equal({format: 'webp', width: 16383, height: 1})
    expect(readImageHeader(makeWebp(1, 16384, 'VP8L'))).to.deep.equal({format: 'webp', width: 1, height: 16384})
    expect(readImageHeader(makeWebp(300, 200, 'VP8 '))).to.deep.equal({format: 'webp', width: 300, height: 200})
    expect(readImageHeader(makeWebp(70_000, 2, 'VP8X'))).to.deep.equal({format: 'webp', width: 70_000, height: 2})
  })

  it('finds a JPEG frame header past large APP segments and fill bytes', () => {
    expect(readImageHeader(makeJpeg(5, 7, 60_000))).to.deep.equal({format: 'jpeg', width: 5, height: 7})
  })

  it('recognises formats by their magic bytes, never text, SVG, other binaries or too few bytes', () => {
    expect(imageFormatOf(Buffer.from('<svg xmlns="http://www.w3.org/2000/svg"/>'))).to.equal(undefined)
    expect(imageFormatOf(Buffer.from('GIF89'))).to.equal(undefined)
    expect(imageFormatOf(Buffer.from('\x7fELF\x02\x01\x01\0\0\0\0\0', 'latin1'))).to.equal(undefined)
    expect(imageFormatOf(Buffer.from('RIFF\0\0\0\0WAVE', 'latin1'))).to.equal(undefined)
    expect(imageFormatOf(Buffer.from('RIFX\0\0\0\0WEBP', 'latin1'))).to.equal(undefined)
    expect(imageFormatOf(Buffer.from('RIFF\0\0\0\0WEB', 'latin1'))).to.equal(undefined)
    expect(imageFormatOf(Buffer.from('RIFF\0\0\0\0WEBP', 'latin1'))).to.equal('webp')
    expect(imageFormatOf(Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a]))).to.equal(undefined)
    expect(imageFormatOf(Buffer.alloc(0))).to.equal(undefined)
    expect(readImageHeader(Buffer.from('plain text'))).to.equal(undefined)
    expect(imageFormatOf(Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]))).to.equal('png')
    expect(imageFormatOf(Buffer.from('GIF87a', 'latin1'))).to.equal('gif')
    expect(imageFormatOf(Buffer.from([0xff, 0xd8, 0xff]))).to.equal('jpeg')
  })

  it('reports a header cut short as truncated, naming where the file ends, for every format', () => {
    const truncated = (bytes: Uint8Array, format: string, message: string) =>
      expect(headerError(bytes), message).to.deep.include({name: 'ImageHeaderError', format, reason: 'truncated', message})
    truncated(makePng(4, 4).subarray(0, 20), 'png', 'the file ends after 20 bytes, inside its IHDR header')
    truncated(makePng(4, 4).subarray(0, 8), 'png', 'the file ends after 8 bytes, inside its IHDR header')
    truncated(makeGif(4, 4).subarray(0, 9), 'gif', 'the file ends after 9 bytes, inside its logical screen descriptor')
    const jpeg = makeJpeg(4, 4)
    const frameAt = jpeg.indexOf(Buffer.from([0xff, 0xc0]))
    truncated(jpeg.subarray(0, frameAt + 6), 'jpeg', `the file ends after ${frameAt + 6} bytes, inside its frame header`)
    truncated(jpeg.subarray(0, 3), 'jpeg', 'the file ends after 3 bytes, inside its segments before the frame header')
    // Right after a whole segment, and right after a segment's marker (before its length).
    truncated(jpeg.subarray(0, 20), 'jpeg', 'the file ends after 20 bytes, inside its segments before the frame header')
    truncated(jpeg.subarray(0, 22), 'jpeg', 'the file ends after 22 bytes, inside its segments before the frame header')
    truncated(makeWebp(4, 4).subarray(0, 19), 'webp', 'the file ends after 19 bytes, inside its first chunk header')
    truncated(makeWebp(4, 4).subarray(0, 22), 'webp', 'the file ends after 22 bytes, inside its VP8L header')
    truncated(makeWebp(4, 4, 'VP8 ').subarray(0, 29), 'webp', 'the file ends after 29 bytes, inside its VP8 frame header')
    truncated(makeWebp(4, 4, 'VP8X').subarray(0, 29), 'webp', 'the file ends after 29 bytes, inside its VP8X header')
  })

  it('reports a header laid out against its format, or a size of zero, as malformed', () => {
    const png = makePng(4, 4)
    png.write('IDAT', 12, 'latin1')
    expect(headerError(png)).to.include({format: 'png', reason: 'malformed', message: 'its first chunk is not IHDR'})
    expect(headerError(makePng(0, 4))).to.include({reason: 'malformed', message: 'its header gives a size of 0×4 pixels'})
    expect(headerError(makeGif(4, 0))).to.include({reason: 'malformed'})
    expect(headerError(Buffer.from([0xff, 0xd8, 0xff, 0xe0, 0, 4, 0, 0, 0, 1]))).to.include({
      format: 'jpeg',
      reason: 'malformed',
      message: 'a segment at byte 8 does not start with 0xff',
    })
    for (const end of [0xda, 0xd9]) {
      expect(headerError(Buffer.from([0xff, 0xd8, 0xff, end, 0, 2]))).to.include({
        format: 'jpeg',
        reason: 'malformed',
        message: 'its image data starts before any frame header gives its size',
      })
    }
    expect(headerError(Buffer.from([0xff, 0xd8, 0xff, 0xe0, 0, 1]))).to.include({format: 'jpeg', reason: 'malformed', message: 'a segment at byte 2 has length 1'})
    const vp8 = makeWebp(4, 4, 'VP8 ')
    vp8[23] = 0
    expect(headerError(vp8)).to.include({format: 'webp', reason: 'malformed', message: 'its VP8 frame has no start code'})
    const vp8l = makeWebp(4, 4, 'VP8L')
    vp8l[20] = 0
    expect(headerError(vp8l)).to.include({format: 'webp', reason: 'malformed', message: 'its VP8L chunk has no signature byte'})
    const other = makeWebp(4, 4)
    other.write('AL\nH', 12, 'latin1')
    expect(headerError(other)).to.include({format: 'webp', reason: 'malformed', message: 'its first chunk is "AL?H", not VP8, VP8L or VP8X'})
  })

  it('skips JPEG markers that carry no length (RSTn, TEM) on the way to the frame', () => {
    const jpeg = makeJpeg(9, 8)
    const withMarkers = Buffer.concat([jpeg.subarray(0, 2), Buffer.from([0xff, 0xd0, 0xff, 0xd7, 0xff, 0x01]), jpeg.subarray(2)])
    expect(readImageHeader(withMarkers)).to.deep.equal({format: 'jpeg', width: 9, height: 8})
  })

  it('skips JPEG segments that are no frame header (DHT, JPG, DAC, an empty one, a low marker) and reads any SOFn', () => {
    const segment = (marker: number, data: number[]) => Buffer.from([0xff, marker, 0, data.length + 2, ...data])
    const frame = (marker: number) => segment(marker, [8, 0, 7, 0, 9, 1, 1, 0x11, 0])
    for (const sof of [0xc0, 0xc2, 0xcf]) {
      const jpeg = Buffer.concat([
        Buffer.from([0xff, 0xd8]),
        segment(0xc4, [1, 2, 3, 4, 5, 6, 7]),
        segment(0xc8, [1, 2, 3, 4, 5, 6, 7]),
        segment(0xcc, [1, 2, 3, 4, 5, 6, 7]),
        segment(0xbf, [1, 2, 3, 4, 5, 6, 7]),
        segment(0xfe, []),
        frame(sof),
      ])
      expect(readImageHeader(jpeg), sof.toString(16)).to.deep.equal({format: 'jpeg', width: 9, height: 7})
    }
  })
})
