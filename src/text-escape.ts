/**
 * Escaping text that is shown in answers and log lines, so that nothing in it (a file name, a
 * path a client sent) can forge an extra line or reorder what is shown. The display form of file
 * names (src/exec/display-name.ts) builds on this module and also escapes backslashes.
 */

/**
 * Characters that can break or reorder a line, or hide in it: controls (Unicode category Cc: C0,
 * DEL, C1), format characters (Cf: the bidirectional controls, zero-width characters, the soft
 * hyphen, U+FEFF, tag characters) and the line and paragraph separators U+2028 and U+2029.
 */
const CONTROLS = /[\p{Cc}\p{Cf}\p{Zl}\p{Zp}]/u
const ALL_CONTROLS = new RegExp(CONTROLS.source, 'gu')

const SHORT_ESCAPES: Readonly<Record<string, string>> = {'\n': '\\n', '\r': '\\r', '\t': '\\t'}

/** `value` (0–255) as two lowercase hex digits. */
export function hex2(value: number): string {
  return value.toString(16).padStart(2, '0')
}

function escapeCharacter(character: string): string {
  const short = SHORT_ESCAPES[character]
  if (short) return short
  const code = character.codePointAt(0) as number
  if (code < 0x80) return `\\x${hex2(code)}`
  if (code <= 0xffff) return `\\u${code.toString(16).padStart(4, '0')}`
  // Above U+FFFF (tag characters): its UTF-8 bytes, which the display form reads back as they are.
  return [...Buffer.from(character)].map((byte) => `\\x${hex2(byte)}`).join('')
}

/**
 * `text` with every character that could break, reorder or hide in a line written as an escape:
 * `\n`, `\r`, `\t`, `\xHH` for other C0 controls and DEL, `\uHHHH` for the others up to U+FFFF,
 * and the UTF-8 bytes as `\xHH` above it (see CONTROLS).
 * Backslashes are left as they are, so a path a client typed reads back as typed.
 */
export function escapeControls(text: string): string {
  return CONTROLS.test(text) ? text.replace(ALL_CONTROLS, escapeCharacter) : text
}
