/**
 * Counting UTF-8 output without decoding it. A command that floods its output has most of it
 * dropped (see OutputBuffer); counting what is dropped on the bytes costs a fraction of decoding
 * it to strings first, and leaves no garbage behind.
 */
import {isAscii} from 'node:buffer'

/** Line breaks after which the counter stops calling indexOf (one native call per line) and scans words instead. */
const DENSE_LINES_THRESHOLD = 64

/**
 * What the bytes decode to, counted as `bytes.toString('utf8')` would give for well-formed UTF-8:
 * `codePoints`, one per character, and `units`, UTF-16 code units (two for a character outside
 * the Basic Multilingual Plane, a 4-byte sequence). A malformed sequence may count differently
 * from its U+FFFD replacements.
 */
export function countUtf8(bytes: Uint8Array): {units: number; codePoints: number} {
  if (isAscii(bytes)) return {units: bytes.length, codePoints: bytes.length}
  let codePoints = 0
  let astral = 0
  for (let index = 0; index < bytes.length; index++) {
    const byte = bytes[index]!
    if ((byte & 0xc0) === 0x80) continue
    codePoints++
    if (byte >= 0xf0) astral++
  }
  return {units: codePoints + astral, codePoints}
}

/** How many `\n` bytes (10) `bytes` holds; in UTF-8 that byte is never part of another character. */
export function countLineBreakBytes(bytes: Uint8Array): number {
  // Sparse line breaks: memchr through indexOf. Dense ones (`yes` prints one every 2 bytes):
  // one indexOf call per line costs far more than scanning 4 bytes at a time.
  let count = 0
  let index = bytes.indexOf(10)
  while (index !== -1) {
    count++
    if (count === DENSE_LINES_THRESHOLD) return count + countByteInWords(bytes, index + 1)
    index = bytes.indexOf(10, index + 1)
  }
  return count
}

/** `\n` bytes from `start` on, four at a time (a SWAR count of the bytes equal to 10 in each 32-bit word). */
function countByteInWords(bytes: Uint8Array, start: number): number {
  let count = 0
  let index = start
  const aligned = Math.min(bytes.length, index + ((4 - ((bytes.byteOffset + index) & 3)) & 3))
  for (; index < aligned; index++) if (bytes[index] === 10) count++
  const words = (bytes.length - index) >>> 2
  const view = new Uint32Array(bytes.buffer, bytes.byteOffset + index, words)
  for (let word = 0; word < words; word++) {
    const value = view[word]! ^ 0x0a0a0a0a // bytes equal to 10 become 0
    // High bit of each byte set exactly where the byte is 0 (no carries across bytes).
    const zeros = ~(((value & 0x7f7f7f7f) + 0x7f7f7f7f) | value | 0x7f7f7f7f) >>> 7
    count += Math.imul(zeros, 0x01010101) >>> 24
  }
  for (index += words * 4; index < bytes.length; index++) if (bytes[index] === 10) count++
  return count
}

/**
 * The length of the longest prefix of `bytes` that does not end inside a UTF-8 sequence: the
 * bytes of a character split at the end (its lead byte and fewer continuation bytes than it
 * announces) are left out, to be completed by the next chunk.
 */
export function completeUtf8Length(bytes: Uint8Array): number {
  const end = bytes.length
  for (let back = 1; back <= Math.min(3, end); back++) {
    const byte = bytes[end - back]!
    if ((byte & 0xc0) === 0x80) continue // a continuation byte: look further back for the lead
    const needed = byte >= 0xf0 ? 4 : byte >= 0xe0 ? 3 : byte >= 0xc0 ? 2 : 1
    return needed > back ? end - back : end
  }
  return end
}

/** How many continuation bytes (`0b10xxxxxx`) `bytes` starts with, at most 3: the rest of a character cut at its front. */
export function leadingContinuationBytes(bytes: Uint8Array): number {
  let count = 0
  while (count < 3 && count < bytes.length && (bytes[count]! & 0xc0) === 0x80) count++
  return count
}
