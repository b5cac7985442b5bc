/**
 * The nested repositories a git index holds (gitlinks, mode 160000): git status in a repository
 * goes into each of them and reads its config, wherever it lies in the work tree. The sandbox's
 * check after a command (terminal/sandbox-leftovers.ts) reads them so that a repository a command
 * made and added to the index is found even where its walk does not go (`node_modules`, past its
 * folder limit).
 *
 * Reads git's index format (Documentation/gitformat-index.txt): the `DIRC` header (version 2, 3
 * or 4, entry count), then per entry 40 bytes of stat data (its mode at offset 24), the object id
 * (20 bytes, or 32 in a sha256 repository), 16 bits of flags (bit 14: 16 more bits follow, in
 * version 3 and later), and the path: NUL-terminated and padded to a multiple of 8 bytes in
 * versions 2 and 3, prefix-compressed against the previous path in version 4.
 */

/**
 * How the files of a split index (`git update-index --split-index`, core.splitIndex) begin: the
 * shared index `sharedindex.<object id>` in the git folder holds most entries, in the same format.
 */
export const SHARED_INDEX_PREFIX = 'sharedindex.'

/** Longest index read for its gitlinks, in bytes (an index holds about 100 bytes per file). */
export const GIT_INDEX_MAX_BYTES = 64 * 1024 * 1024

const SIGNATURE = 0x44495243 // "DIRC"
const GITLINK_TYPE = 0o160000
const TYPE_MASK = 0o170000
const STAT_BYTES = 40
const EXTENDED_FLAG = 0x4000

/**
 * The paths (relative to the work tree, as bytes) of the gitlinks in `index`, the content of a
 * git index; `oidBytes` is 20 (sha1) or 32 (sha256). An index this reader does not know, or a
 * truncated one, gives what was read up to there. Pure.
 */
export function gitlinksOf(index: Uint8Array, oidBytes: 20 | 32): Buffer[] {
  const data = Buffer.from(index.buffer, index.byteOffset, index.byteLength)
  if (data.length < 12 || data.readUInt32BE(0) !== SIGNATURE) return []
  const version = data.readUInt32BE(4)
  if (version < 2 || version > 4) return []
  const count = data.readUInt32BE(8)
  const links: Buffer[] = []
  let offset = 12
  let previous: Buffer = Buffer.alloc(0)
  for (let entry = 0; entry < count; entry++) {
    const start = offset
    const flagsAt = start + STAT_BYTES + oidBytes
    if (flagsAt + 2 > data.length) break
    const mode = data.readUInt32BE(start + 24)
    const flags = data.readUInt16BE(flagsAt)
    let pathAt = flagsAt + 2
    if (version >= 3 && (flags & EXTENDED_FLAG) !== 0) pathAt += 2
    let name: Buffer
    if (version === 4) {
      // A varint (git's offset encoding) of bytes to drop from the previous path, then the rest, NUL-terminated.
      let at = pathAt
      if (at >= data.length) break
      let byte = data[at++] as number
      let drop = byte & 0x7f
      while (byte & 0x80) {
        if (at >= data.length) return links
        byte = data[at++] as number
        drop = ((drop + 1) << 7) | (byte & 0x7f)
      }
      const end = data.indexOf(0, at)
      if (end < 0 || drop > previous.length) break
      name = Buffer.concat([previous.subarray(0, previous.length - drop), data.subarray(at, end)])
      offset = end + 1
    } else {
      const end = data.indexOf(0, pathAt)
      if (end < 0) break
      name = data.subarray(pathAt, end)
      // The entry is padded with 1 to 8 NULs to a multiple of 8 bytes.
      offset = start + ((end - start + 8) & ~7)
    }
    previous = name
    if ((mode & TYPE_MASK) === GITLINK_TYPE) links.push(Buffer.from(name))
  }
  return links
}
