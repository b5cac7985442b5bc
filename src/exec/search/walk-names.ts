/**
 * Names and paths as the search walk keeps them, shared by the walk on the server's thread
 * (walk.ts) and the walk tasks of the search workers (walk-task.ts): how a folder's entries are
 * listed and ordered, and how names are joined without ever changing their bytes.
 */
import {isUtf8} from 'node:buffer'
import type {Dirent} from 'node:fs'

import {displayName, displayText} from '../display-name.js'

/** Folder names never searched, at any depth, whatever the ignore files say. */
export const ALWAYS_SKIPPED_FOLDERS: ReadonlySet<string> = new Set(['.git', 'node_modules'])

/**
 * A name or path as the walk keeps it: text when it is the exact decoding of its bytes (valid
 * UTF-8, the common case, cheaper to list, join and send to a worker), else the bytes.
 */
export type NameOrBytes = string | Buffer

/** One entry of a folder listing: its name (see `NameOrBytes`), its display form, and its name as ignore rules see it (see `ruleText`). */
export interface ListedEntry {
  dirent: Dirent<string> | Dirent<Buffer>
  name: NameOrBytes
  shown: string
  ruled: string
}

/**
 * The entries of a folder listed with names as text, sorted by name (bytes); undefined when a name
 * did not decode (it holds U+FFFD, the mark of bytes that are not UTF-8, or the character itself),
 * so the folder must be listed again as bytes (`entriesOfBytes`) and no name is changed by decoding.
 */
export function entriesOfText(dirents: Array<Dirent<string>>): ListedEntry[] | undefined {
  if (dirents.some((dirent) => dirent.name.includes('\uFFFD'))) return undefined
  const entries = dirents.map((dirent): ListedEntry => ({dirent, name: dirent.name, shown: displayText(dirent.name), ruled: dirent.name}))
  return sortTextEntries(entries)
}

/** The entries of a folder listed with names as bytes, sorted by name (bytes). */
export function entriesOfBytes(dirents: Array<Dirent<Buffer>>): ListedEntry[] {
  return dirents
    .map((dirent): ListedEntry => ({dirent, name: asText(dirent.name), shown: displayName(dirent.name), ruled: ruleText(dirent.name)}))
    .sort((a, b) => Buffer.compare(asBytes(a.name), asBytes(b.name)))
}

/** `path` with a final `/` (`/` itself stays as it is). */
export function withSlash(path: Buffer): Buffer {
  return path.at(-1) === 0x2f ? path : Buffer.concat([path, Buffer.from('/')])
}

/**
 * A name or path as ignore rules are matched against it: its bytes decoded as UTF-8, so a name
 * with a tab, a backslash or a line break meets the patterns as git sees it, not in its escaped
 * display form; a byte that is not UTF-8 becomes U+FFFD, one character, which `?` and `*` match
 * as git's do the byte.
 */
export function ruleText(bytes: Buffer): string {
  return bytes.toString('utf8')
}

/** `bytes` as text when they are valid UTF-8 (and so decode exactly), else the bytes. */
export function asText(bytes: Buffer): NameOrBytes {
  return isUtf8(bytes) ? bytes.toString('utf8') : bytes
}

/** The bytes of a name or path (a Uint8Array that crossed to another thread included). */
export function asBytes(value: NameOrBytes | Uint8Array): Buffer {
  if (typeof value === 'string') return Buffer.from(value)
  return Buffer.isBuffer(value) ? value : Buffer.from(value.buffer, value.byteOffset, value.byteLength)
}

/** `prefix` and `name` (and `suffix`) joined: text when every part is text, else bytes. */
export function join(prefix: NameOrBytes, name: NameOrBytes, suffix = ''): NameOrBytes {
  if (typeof prefix === 'string' && typeof name === 'string') return prefix + name + suffix
  return Buffer.concat([asBytes(prefix), asBytes(name), Buffer.from(suffix)])
}

/**
 * `entries` (names as text) sorted by the bytes of their names, as git and ripgrep order them.
 * For names below U+D800 the order of UTF-16 units is that of UTF-8 bytes; only names with
 * characters from U+D800 up are compared by their bytes.
 */
function sortTextEntries(entries: ListedEntry[]): ListedEntry[] {
  const name = (entry: ListedEntry) => entry.name as string
  if (entries.some((entry) => HIGH_UNITS.test(name(entry)))) return entries.sort((a, b) => Buffer.compare(asBytes(a.name), asBytes(b.name)))
  return entries.sort((a, b) => (name(a) < name(b) ? -1 : name(a) > name(b) ? 1 : 0))
}

/** UTF-16 units whose order differs from that of the UTF-8 bytes they stand for. */
const HIGH_UNITS = /[\uD800-\uFFFF]/
