/**
 * Escaping text that is shown in answers and log lines, so that nothing in it (a file name, a
 * path a client sent) can forge an extra line or reorder what is shown. The display form of file
 * names (src/exec/display-name.ts) builds on this module and also escapes backslashes.
 */

/**
 * Characters that can break or reorder a line: C0 controls, DEL, C1 controls, U+2028, U+2029, and
 * the bidirectional controls U+200E, U+200F, U+202A–U+202E, U+2066–U+2069.
 */
const CONTROLS = /[\u0000-\u001f\u007f-\u009f\u2028\u2029\u200e\u200f\u202a-\u202e\u2066-\u2069]/u
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
  return code < 0x80 ? `\\x${hex2(code)}` : `\\u${code.toString(16).padStart(4, '0')}`
}

/**
 * `text` with every character that could break or reorder a line written as an escape: `\n`,
 * `\r`, `\t`, `\xHH` for other C0 controls and DEL, `\uHHHH` for the others (see CONTROLS).
 * Backslashes are left as they are, so a path a client typed reads back as typed.
 */
export function escapeControls(text: string): string {
  return CONTROLS.test(text) ? text.replace(ALL_CONTROLS, escapeCharacter) : text
}
