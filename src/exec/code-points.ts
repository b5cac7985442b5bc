/**
 * Counting text in characters as people and `read` count them: Unicode code points, so an emoji
 * outside the Basic Multilingual Plane is one character, not the two UTF-16 units JavaScript's
 * `length` counts. Offsets in and out are UTF-16 offsets into the string; a surrogate pair is
 * never split.
 */

function isLowSurrogate(code: number): boolean {
  return code >= 0xdc00 && code <= 0xdfff
}

/** Code points of `text` from `start` to `end` (UTF-16 offsets, `end` exclusive). */
export function codePointCount(text: string, start = 0, end = text.length): number {
  let count = 0
  for (let index = start; index < end; index++) if (!isLowSurrogate(text.charCodeAt(index))) count++
  return count
}

/** The UTF-16 offset where the first `count` code points of `text` end (the whole length when it has fewer). */
export function offsetAfterCodePoints(text: string, count: number): number {
  let index = 0
  for (let seen = 0; seen < count && index < text.length; seen++) {
    // A step of 2 only onto a low surrogate that is there, so `index` never passes the end.
    index += isLowSurrogate(text.charCodeAt(index + 1)) ? 2 : 1
  }
  return index
}

/** The UTF-16 offset where the last `count` code points of `text` start (0 when it has fewer). */
export function offsetBeforeLastCodePoints(text: string, count: number): number {
  let index = text.length
  for (let seen = 0; seen < count && index > 0; seen++) {
    index -= index >= 2 && isLowSurrogate(text.charCodeAt(index - 1)) ? 2 : 1
  }
  return index
}
