import {randomBytes} from 'node:crypto'

/** Letters and digits a model copies without confusion (no 0/o, 1/l). */
const ALPHABET = 'abcdefghijkmnpqrstuvwxyz23456789'
/** Characters in a session id: a letter then 19 × 5 bits, about 99.6 random bits (DESIGN §4.5 asks for at least 96). */
export const SESSION_ID_CHARS = 20

/**
 * A new random, unguessable command session id: SESSION_ID_CHARS characters of ALPHABET. It
 * always starts with a letter, so no client mistakes it for a number.
 */
export function newSessionId(): string {
  const bytes = randomBytes(SESSION_ID_CHARS)
  let id = ALPHABET[bytes[0]! % 24]! // a letter: the first 24 characters of ALPHABET
  for (let index = 1; index < SESSION_ID_CHARS; index++) id += ALPHABET[bytes[index]! % ALPHABET.length]!
  return id
}

/** A random tag for COMMAND_TAG_VARIABLE (96 bits, hex). */
export function newProcessTag(): string {
  return randomBytes(12).toString('hex')
}
