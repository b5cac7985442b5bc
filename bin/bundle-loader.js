// Runs a one-file CommonJS bundle with a V8 code cache kept between starts. Plain JavaScript with
// Node's built-ins only; shared by bin/run.js and the `agentexec` launcher (bundled into
// dist/agentexec.js).
import {createHash} from 'node:crypto'
import {closeSync, constants, fstatSync, openSync, readFileSync, readSync, renameSync, rmSync, writeSync} from 'node:fs'
import {createRequire} from 'node:module'
import path from 'node:path'
import {fileURLToPath} from 'node:url'
import vm from 'node:vm'

/** The first bytes of a cache file, naming its layout: this magic, the source's SHA-256, V8's data. */
const MAGIC = Buffer.from('akv8cc01')
const SOURCE_HASH_BYTES = 32
const HEADER_BYTES = MAGIC.length + SOURCE_HASH_BYTES
/** Largest cache file read, in bytes: far above any bundle's (about 1 MiB for 0.7 MB of source). */
const MAX_CACHE_BYTES = 64 * 2 ** 20
/** How long after loading the cache is written when it was missing or stale, in ms (see loadBundle). */
export const SAVE_AFTER_MS = 2000

/**
 * Loads `file`, a CommonJS bundle that requires nothing but Node's built-ins, and returns its
 * `module.exports`, as `require(file)` would.
 *
 * With `cacheDir` (a private folder, see privateCacheDir) the code is compiled with the V8 code
 * cache kept there for this file. A cache V8 accepts skips compiling every function the last
 * start compiled, not only the bundle's top level: Node's own compile cache stores a module's
 * code as compiled before it ran, so every function a start calls is compiled again at each
 * start. When the cache is missing, stale or rejected, a new one is made from the code compiled
 * by then, `saveAfterMs` after loading (the functions a start and its first requests run), or as
 * the process exits if that comes first.
 *
 * V8 checks a cache against its own version and flags and the source's length only, so a bundle
 * changed at the same length would run its old code: each cache file also holds the SHA-256 of
 * the source it was made from, and is used only for that source. Cache files are opened without
 * following links and used only when they are regular files of this user that nobody else can
 * write; one is written to a new file of mode 0600 and renamed into place, so a start never reads
 * half of one. Any failure to read or write a cache leaves the bundle running without one.
 * @param file the bundle's absolute path, or a file: URL
 * @param options.cacheDir the folder for the cache, or undefined to run without one
 * @param options.saveAfterMs when to write a missing or stale cache, in ms after loading
 * @throws whatever reading the bundle or running its top level throws
 */
export function loadBundle(file, {cacheDir, saveAfterMs = SAVE_AFTER_MS} = {}) {
  const filename = file instanceof URL ? fileURLToPath(file) : file
  const bytes = readFileSync(filename)
  const cacheFile = cacheDir === undefined ? undefined : cacheFileFor(cacheDir, filename)
  const sourceHash = cacheFile === undefined ? undefined : createHash('sha256').update(bytes).digest()
  const cachedData = cacheFile === undefined ? undefined : readCache(cacheFile, sourceHash)
  const wrapped = `(function (exports, require, module, __filename, __dirname) {${bytes.toString('utf8')}\n})`
  const script = new vm.Script(wrapped, {
    filename,
    cachedData,
    importModuleDynamically: vm.constants.USE_MAIN_CONTEXT_DEFAULT_LOADER,
  })
  const module = {exports: {}}
  script.runInThisContext().call(module.exports, module.exports, createRequire(filename), module, filename, path.dirname(filename))
  if (cacheFile !== undefined && (cachedData === undefined || script.cachedDataRejected)) {
    let saved = false
    const save = () => {
      if (saved) return
      saved = true
      process.off('exit', save)
      writeCache(cacheFile, sourceHash, script.createCachedData())
    }
    setTimeout(save, saveAfterMs).unref()
    process.once('exit', save)
  }
  return module.exports
}

/**
 * The cache file for `filename` in `cacheDir`: the bundle's name and a hash of its full path,
 * so two installs of one bundle keep a cache each instead of replacing each other's at every start.
 */
export function cacheFileFor(cacheDir, filename) {
  const where = createHash('sha256').update(path.resolve(filename)).digest('hex').slice(0, 16)
  return path.join(cacheDir, `${path.basename(filename)}.${where}.v8cache`)
}

/** V8's data from `cacheFile` when it is a private regular file made from the source hashed `sourceHash`, else undefined. */
function readCache(cacheFile, sourceHash) {
  let fd
  try {
    fd = openSync(cacheFile, constants.O_RDONLY | constants.O_NOFOLLOW | constants.O_NONBLOCK)
    const stat = fstatSync(fd)
    if (!stat.isFile() || stat.uid !== process.geteuid?.() || (stat.mode & 0o022) !== 0) return undefined
    if (stat.size <= HEADER_BYTES || stat.size > MAX_CACHE_BYTES) return undefined
    const data = Buffer.allocUnsafe(stat.size)
    let read = 0
    while (read < data.length) {
      const n = readSync(fd, data, read, data.length - read, read)
      if (n === 0) return undefined
      read += n
    }
    if (!data.subarray(0, MAGIC.length).equals(MAGIC)) return undefined
    if (!data.subarray(MAGIC.length, HEADER_BYTES).equals(sourceHash)) return undefined
    return data.subarray(HEADER_BYTES)
  } catch {
    return undefined
  } finally {
    if (fd !== undefined) closeSync(fd)
  }
}

/** Writes a cache file through a new private file renamed into place. Never throws. */
function writeCache(cacheFile, sourceHash, data) {
  const temporary = `${cacheFile}.${process.pid}.${Date.now().toString(36)}.tmp`
  let fd
  try {
    fd = openSync(temporary, constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL | constants.O_NOFOLLOW, 0o600)
    for (const part of [MAGIC, sourceHash, data]) {
      let written = 0
      while (written < part.length) written += writeSync(fd, part, written, part.length - written)
    }
    closeSync(fd)
    fd = undefined
    renameSync(temporary, cacheFile)
  } catch {
    try {
      if (fd !== undefined) closeSync(fd)
      rmSync(temporary, {force: true})
    } catch {
      // Nothing more to do: the next start runs without a cache and tries again.
    }
  }
}
