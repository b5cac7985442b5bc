/**
 * File names are bytes; answers are text. This module is the one mapping between them
 * (DESIGN §4.2): every name a tool shows passes through `displayName`, and every path a tool
 * receives passes through `parseDisplayPath`, so whatever a tool shows can be passed back.
 *
 * The display form is the name decoded as UTF-8, except:
 * - a byte that is not part of valid UTF-8 is written `\xHH` (two lowercase hex digits);
 * - a backslash is written `\\`;
 * - line feed, carriage return and tab are written `\n`, `\r`, `\t`; other C0 controls and DEL
 *   are written `\xHH`;
 * - other characters that can start a new line, reorder text on screen or hide in it (C1
 *   controls, Unicode format characters such as the bidirectional controls and zero-width
 *   characters, U+2028, U+2029) are written `\uHHHH`, or as their UTF-8 bytes `\xHH` above U+FFFF.
 * So no name can forge an extra line in an answer or a log line, and none can vanish.
 */
import {isUtf8} from 'node:buffer'

import {BadInputError} from '../errors.js'
import {escapeControls, hex2} from '../text-escape.js'

/** The display form of a name already decoded from valid UTF-8: backslashes doubled, controls escaped. */
function escapeName(text: string): string {
  return escapeControls(text.includes('\\') ? text.replaceAll('\\', '\\\\') : text)
}

/**
 * The display form of a file name or a relative path given as bytes (see the module comment).
 * A `/` in `bytes` stays a `/`.
 */
export function displayName(bytes: Uint8Array): string {
  if (isPlainAscii(bytes)) return Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString('latin1')
  if (isUtf8(bytes)) return escapeName(Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString('utf8'))
  let shown = ''
  let index = 0
  while (index < bytes.length) {
    const length = validSequenceLength(bytes, index)
    if (length === 0) {
      shown += `\\x${hex2(bytes[index] as number)}`
      index += 1
    } else {
      shown += escapeName(Buffer.from(bytes.subarray(index, index + length)).toString('utf8'))
      index += length
    }
  }
  return shown
}

/**
 * The display form of a name whose bytes are valid UTF-8, given as the decoded text (as
 * `readdir` gives names by default): the same as `displayName` of its bytes.
 */
export function displayText(text: string): string {
  return PLAIN_ASCII_TEXT.test(text) ? text : escapeName(text)
}

/** Printable ASCII without a backslash: a name shown as it is. */
const PLAIN_ASCII_TEXT = /^[\x20-\x5b\x5d-\x7e]*$/

/** Whether `bytes` are printable ASCII without a backslash: the common name, shown as it is. */
function isPlainAscii(bytes: Uint8Array): boolean {
  for (let index = 0; index < bytes.length; index++) {
    const byte = bytes[index] as number
    if (byte < 0x20 || byte >= 0x7f || byte === 0x5c) return false
  }
  return true
}

/**
 * The length (1–4) of the well-formed UTF-8 sequence starting at `index`, or 0 when the byte
 * there does not start one (RFC 3629: no overlong forms, no surrogates, nothing above U+10FFFF).
 */
function validSequenceLength(bytes: Uint8Array, index: number): number {
  const first = bytes[index] as number
  if (first < 0x80) return 1
  const continuation = (offset: number, low = 0x80, high = 0xbf) => {
    const byte = bytes[index + offset]
    return byte !== undefined && byte >= low && byte <= high
  }
  if (first >= 0xc2 && first <= 0xdf) return continuation(1) ? 2 : 0
  if (first >= 0xe0 && first <= 0xef) {
    const low = first === 0xe0 ? 0xa0 : 0x80
    const high = first === 0xed ? 0x9f : 0xbf
    return continuation(1, low, high) && continuation(2) ? 3 : 0
  }
  if (first >= 0xf0 && first <= 0xf4) {
    const low = first === 0xf0 ? 0x90 : 0x80
    const high = first === 0xf4 ? 0x8f : 0xbf
    return continuation(1, low, high) && continuation(2) && continuation(3) ? 4 : 0
  }
  return 0
}

function badEscape(path: string, detail: string): BadInputError {
  return new BadInputError(
    `The path "${escapeControls(path)}" has ${detail}. In paths a backslash starts an escape, as tools show names: ` +
      '\\xHH for one byte, \\uHHHH for a character, \\n, \\r, \\t, and \\\\ for a backslash itself. ' +
      'Separate folders with "/".',
  )
}

/**
 * The bytes of a path written in the display form (the inverse of `displayName`): escapes are
 * decoded, everything else is encoded as UTF-8.
 * @throws BadInputError for a backslash that starts no known escape, or a malformed one.
 */
export function parseDisplayPath(path: string): Buffer {
  if (!path.includes('\\')) return Buffer.from(path, 'utf8')
  const parts: Buffer[] = []
  let plain = ''
  for (let index = 0; index < path.length; index++) {
    const character = path[index] as string
    if (character !== '\\') {
      plain += character
      continue
    }
    const kind = path[index + 1]
    const simple = kind === '\\' ? '\\' : kind === 'n' ? '\n' : kind === 'r' ? '\r' : kind === 't' ? '\t' : undefined
    if (simple !== undefined) {
      plain += simple
      index += 1
      continue
    }
    const digits = kind === 'x' ? 2 : kind === 'u' ? 4 : 0
    const hex = path.slice(index + 2, index + 2 + digits)
    // The fragment is quoted with its controls escaped, as the path is: no raw line break in the message.
    if (digits === 0) {
      // The whole character after the backslash, not half of a surrogate pair.
      const after = kind === undefined ? '' : String.fromCodePoint(path.codePointAt(index + 1) as number)
      throw badEscape(path, kind === undefined ? 'a backslash at its end' : `"\\${escapeControls(after)}", which is not an escape`)
    }
    if (!new RegExp(`^[0-9a-fA-F]{${digits}}$`).test(hex)) {
      throw badEscape(path, `"\\${kind}${escapeControls(hex)}", which needs ${digits} hex digits`)
    }
    const value = Number.parseInt(hex, 16)
    if (kind === 'x') {
      parts.push(Buffer.from(plain, 'utf8'), Buffer.from([value]))
      plain = ''
    } else {
      if (value >= 0xd800 && value <= 0xdfff) throw badEscape(path, `"\\u${hex}", a surrogate, which is not a character`)
      plain += String.fromCodePoint(value)
    }
    index += 1 + digits
  }
  parts.push(Buffer.from(plain, 'utf8'))
  return Buffer.concat(parts)
}
