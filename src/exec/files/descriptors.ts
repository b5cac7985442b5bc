/**
 * What an open descriptor tells about its object on Linux (DESIGN §4.2): `/proc/self/fd/N` names
 * where the object really is now, and `/proc/self/fd/N/name` reaches an entry of the very folder
 * open at N, whatever happened to the folder's path since it was opened. Elsewhere (macOS) there
 * is no such name, and CAN_VERIFY_DESCRIPTORS is false.
 */
import {existsSync, constants as fsConstants, readlinkSync} from 'node:fs'

/** Where an open descriptor's object can be named: `/proc/self/fd` on Linux, nowhere elsewhere. */
const PROC_FDS = '/proc/self/fd'

/** Whether this system lets a descriptor name its object (Linux with /proc mounted). */
export const CAN_VERIFY_DESCRIPTORS = process.platform === 'linux' && existsSync(PROC_FDS)

/**
 * Linux's O_PATH (the same value on every architecture Node runs on): a folder opened only to be
 * named and reached through, which needs no read permission on it, as a path walk does not.
 */
const O_PATH = 0o10_000_000

/** Flags for holding a folder on the way of a path walk (Linux): never through a last-name link. */
export const FOLDER_PATH_FLAGS = O_PATH | fsConstants.O_DIRECTORY | fsConstants.O_NOFOLLOW

/** The `/proc/self/fd/N` path of an open descriptor (Linux). */
export function descriptorPath(fd: number): string {
  return `${PROC_FDS}/${fd}`
}

/** The path `/proc/self/fd/N/name` (bytes) of the entry `name` of the folder open at `fd` (Linux). */
export function descriptorEntry(fd: number, name: Uint8Array): Buffer {
  return Buffer.concat([Buffer.from(`${PROC_FDS}/${fd}/`), name])
}

/**
 * Where the object open at `fd` really is now, whatever happened to its path since it was opened:
 * the target of its `/proc/self/fd` link. Linux only (CAN_VERIFY_DESCRIPTORS).
 */
export function descriptorTarget(fd: number): Buffer {
  return readlinkSync(descriptorPath(fd), {encoding: 'buffer'})
}
