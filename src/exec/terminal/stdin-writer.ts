/**
 * Writing to a command's stdin with a bound on what the server holds for it (DESIGN §4.5).
 *
 * Node's writable streams accept every write and buffer what the pipe cannot take yet, so 40
 * calls of 8 MiB into a command that never reads its input once held 320 MiB in the server. Here
 * a write hands the pipe at most `maxPendingBytes` beyond what the command has taken, waits for
 * the pipe to drain while the call may still wait, and reports how many characters it handed
 * over, so the caller can send the rest later.
 */
import type {Writable} from 'node:stream'

import {codePointCount} from '../code-points.js'

const encoder = new TextEncoder()

/** Bytes of the longest UTF-8 character: a write waits unless at least this much room is left. */
const MAX_UTF8_CHARACTER_BYTES = 4

function isHighSurrogate(code: number): boolean {
  return code >= 0xd800 && code <= 0xdbff
}

/**
 * The longest piece of `text` from UTF-16 offset `start` whose UTF-8 form fits in `maxBytes`,
 * cut only between characters (never inside a surrogate pair or a UTF-8 sequence), encoded.
 * `end` is the UTF-16 offset where the piece ends (`start` when not even one character fits).
 * Pure.
 */
export function utf8Piece(text: string, start: number, maxBytes: number): {end: number; bytes: Buffer} {
  // A UTF-16 unit takes at least one byte, so no more than maxBytes units can fit.
  let end = Math.min(text.length, start + maxBytes)
  if (end < text.length && end > start && isHighSurrogate(text.charCodeAt(end - 1))) end--
  const bytes = Buffer.allocUnsafe(Math.min(maxBytes, (end - start) * 3))
  // encodeInto writes whole characters only and says how many UTF-16 units it consumed.
  const {read, written} = encoder.encodeInto(text.slice(start, end), bytes)
  return {end: start + read, bytes: bytes.subarray(0, written)}
}

/** Settles true when `stdin` drained, false when it closed or errored first or `signal` aborted. */
function drained(stdin: Writable, signal: AbortSignal): Promise<boolean> {
  return new Promise((resolve) => {
    const settle = (value: boolean) => {
      stdin.off('drain', onDrain)
      stdin.off('close', onClose)
      stdin.off('error', onClose)
      signal.removeEventListener('abort', onClose)
      resolve(value)
    }
    const onDrain = () => settle(true)
    const onClose = () => settle(false)
    if (signal.aborted) return resolve(false)
    stdin.on('drain', onDrain)
    stdin.on('close', onClose)
    stdin.on('error', onClose)
    signal.addEventListener('abort', onClose)
  })
}

/** Settles once `stdin` handed everything written so far to the pipe, or closed, or `signal` aborted. */
function flushed(stdin: Writable, signal: AbortSignal): Promise<unknown> {
  if (stdin.writableLength === 0 || !stdin.writable || stdin.destroyed) return Promise.resolve()
  // An empty write's callback runs after every write before it.
  return Promise.race([new Promise<void>((resolve) => stdin.write('', () => resolve())), drained(stdin, signal)])
}

/**
 * Writes `text` to `stdin`, never letting the bytes `stdin` buffers (those the pipe has not taken
 * yet) pass `maxPendingBytes`: when they would, it waits for the pipe to drain, until `until`
 * settles. Resolves with how many characters (code points) of `text`, from its start, were
 * handed to the stream: all of them, or fewer when `until` settled first or the stream closed.
 * Characters are never split. When all were handed over, it also waits (again until `until`)
 * for the pipe to take them, so that a signal sent next reaches a command that has its input.
 */
export async function writeWithinBound(
  stdin: Writable,
  text: string,
  options: {maxPendingBytes: number; until: Promise<unknown>},
): Promise<number> {
  const stop = new AbortController()
  const abort = () => stop.abort()
  void options.until.then(abort, abort)
  try {
    let offset = 0
    while (offset < text.length && !stop.signal.aborted && stdin.writable && !stdin.destroyed) {
      const room = options.maxPendingBytes - stdin.writableLength
      if (room < MAX_UTF8_CHARACTER_BYTES) {
        // The buffer is past the stream's high-water mark, so 'drain' comes once it is empty.
        if (!(await drained(stdin, stop.signal))) break
        continue
      }
      const piece = utf8Piece(text, offset, room)
      if (piece.end === offset) break // cannot happen with room >= 4; guards the loop
      stdin.write(piece.bytes)
      offset = piece.end
    }
    if (offset === text.length) await flushed(stdin, stop.signal)
    return codePointCount(text, 0, offset)
  } finally {
    stop.abort()
  }
}
