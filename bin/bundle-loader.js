// Runs a one-file CommonJS bundle with a V8 code cache kept between starts. Plain JavaScript with
// Node's built-ins only; shared by bin/run.js and the `agentexec` launcher (bundled into
// dist/agentexec.js).
import {createHash} from 'node:crypto'
import {closeSync, constants, existsSync, fstatSync, fsyncSync, openSync, readdirSync, readFileSync, readSync, renameSync, rmSync, writeSync} from 'node:fs'
import {createRequire} from 'node:module'
import path from 'node:path'
import {fileURLToPath} from 'node:url'
import vm from 'node:vm'

/**
 * The first bytes of a cache file, naming its layout: this magic; the SHA-256 of the source it
 * was made from; the SHA-256 of V8's data; the bundle's path (2 bytes of length, then UTF-8);
 * then V8's data.
 */
const MAGIC = Buffer.from('akv8cc02')
const HASH_BYTES = 32
/** Where the bundle's path starts in a cache file. */
const PATH_OFFSET = MAGIC.length + 2 * HASH_BYTES + 2
/** Largest cache file read, in bytes: far above any bundle's (about 1 MiB for 0.7 MB of source). */
const MAX_CACHE_BYTES = 64 * 2 ** 20
/** How long a start runs before it writes a missing or stale cache, in ms (see loadBundle). */
export const SAVE_AFTER_MS = 2000

/**
 * Loads `file`, a CommonJS bundle that requires nothing but Node's built-ins, and returns its
 * `module.exports`, as `require(file)` would.
 *
 * With `cacheDir` (a private folder, see privateCacheDir) the code is compiled with the V8 code
 * cache kept there for this file. A cache V8 accepts skips compiling every function the start
 * that made it had compiled, not only the bundle's top level: Node's own compile cache stores a
 * module's code as compiled before it ran, so every function a start calls is compiled again at
 * each start. When the cache is missing, stale or rejected, a start that is still running
 * `saveAfterMs` after loading writes a new one from the code compiled by then (its start-up and
 * first requests). A shorter run writes none, so `--version`, a refused option or a start killed
 * at once never leave a cache that lacks the serving code.
 *
 * V8 checks a cache against its own version and flags and the source's length only, and does not
 * check its data in a release build (damaged data can crash the process). So each cache file also
 * holds the SHA-256 of the source it was made from and of its own data, and is used only when both
 * match. Cache files are opened without following links and used only when they are regular
 * files of this user that nobody else can write. A new one is written to a new file of mode 0600,
 * synced and renamed into place, so a start never reads half of one; writing it also removes
 * what earlier writes left: temporary files of processes that are gone, and caches of this
 * bundle's name whose bundle no longer exists. Any failure to read or write a cache leaves the
 * bundle running without one.
 * @param file the bundle's absolute path, or a file: URL
 * @param options.cacheDir the folder for the cache, or undefined to run without one
 * @param options.saveAfterMs how long a start runs before it writes a missing or stale cache, in ms
 * @throws whatever reading the bundle or running its top level throws
 */
export function loadBundle(file, {cacheDir, saveAfterMs = SAVE_AFTER_MS} = {}) {
  const filename = file instanceof URL ? fileURLToPath(file) : file
  const bytes = readFileSync(filename)
  return runBundle(bytes.toString('utf8'), filename, {cacheDir, saveAfterMs, sourceHash: cacheDir === undefined ? undefined : sha256(bytes)})
}

/**
 * The line of a launcher after which the bundle it carries begins (see embedBundle), followed by
 * the SHA-256, in hex, of what follows that line (the bundle as comment lines).
 */
export const EMBEDDED_BUNDLE_MARKER = '//@ak-embedded-bundle sha256='

/** Thrown when a launcher does not carry its bundle whole; its message is the one line to show. */
export class EmbeddedBundleError extends Error {}

/**
 * `launcher` followed by `bundle` (the source of a CommonJS bundle), for loadEmbeddedBundle: a
 * marker line with the bundle's SHA-256, then each line of the bundle behind `//`. As comments
 * the bundle costs the launcher's own parse next to nothing, and a file cut short anywhere in it
 * still parses, so that the launcher can say so in one line instead of Node printing a syntax
 * error. JavaScript ends a comment at CR, U+2028 and U+2029 too, so the bundle must hold none
 * (esbuild writes them escaped).
 * @throws Error when `bundle` holds such a line terminator, or `launcher` holds the marker already
 */
export function embedBundle(launcher, bundle) {
  if (/[\r\u2028\u2029]/.test(bundle)) throw new Error('the bundle holds a CR, U+2028 or U+2029 line terminator, which would end its comment line')
  if (launcher.includes(`\n${EMBEDDED_BUNDLE_MARKER}`)) throw new Error('the launcher holds the embedded-bundle marker already')
  const body = `//${bundle.replaceAll('\n', '\n//')}`
  return `${launcher.endsWith('\n') ? launcher : `${launcher}\n`}${EMBEDDED_BUNDLE_MARKER}${sha256(body).toString('hex')}\n${body}`
}

/**
 * Loads the bundle that `file`, a launcher made by embedBundle, carries after its own code, as
 * loadBundle loads a bundle file (the same V8 code cache, named after the launcher).
 * @param file the launcher's absolute path, or a file: URL (its `import.meta.url`)
 * @throws EmbeddedBundleError when the bundle is missing or does not match its SHA-256 (the file
 *   was cut short or changed)
 * @throws whatever running the bundle's top level throws
 */
export function loadEmbeddedBundle(file, {cacheDir, saveAfterMs = SAVE_AFTER_MS} = {}) {
  const filename = file instanceof URL ? fileURLToPath(file) : file
  // Bytes, not text: hashing them is several times quicker than hashing the decoded string.
  const bytes = readFileSync(filename)
  const name = path.basename(filename)
  const reinstall = 'Install it again (npm install -g @agentorg/exec), or copy the whole file.'
  const marker = bytes.indexOf(`\n${EMBEDDED_BUNDLE_MARKER}`)
  const headerEnd = marker === -1 ? -1 : bytes.indexOf(0x0a, marker + 1)
  if (headerEnd === -1) throw new EmbeddedBundleError(`${name} is incomplete: the server it should carry after its launcher is missing. ${reinstall}`)
  const expected = bytes.toString('latin1', marker + 1 + EMBEDDED_BUNDLE_MARKER.length, headerEnd)
  const body = bytes.subarray(headerEnd + 1)
  // Also the cache's source hash: the body changes exactly when the bundle does.
  const sourceHash = sha256(body)
  if (sourceHash.toString('hex') !== expected) {
    throw new EmbeddedBundleError(`${name} is damaged: the server it carries does not match its checksum (the file was cut short or changed). ${reinstall}`)
  }
  return runBundle(body.toString('utf8', 2).replaceAll('\n//', '\n'), filename, {cacheDir, saveAfterMs, sourceHash})
}

/** Compiles and runs `source`, a CommonJS bundle, as `filename`, with the V8 code cache of loadBundle. */
function runBundle(source, filename, {cacheDir, saveAfterMs, sourceHash}) {
  const cacheFile = cacheDir === undefined ? undefined : cacheFileFor(cacheDir, filename)
  const cachedData = cacheFile === undefined ? undefined : readCache(cacheFile, sourceHash)
  const wrapped = `(function (exports, require, module, __filename, __dirname) {${source}\n})`
  const script = new vm.Script(wrapped, {
    filename,
    cachedData,
    importModuleDynamically: vm.constants.USE_MAIN_CONTEXT_DEFAULT_LOADER,
  })
  const module = {exports: {}}
  script.runInThisContext().call(module.exports, module.exports, createRequire(filename), module, filename, path.dirname(filename))
  if (cacheFile !== undefined && (cachedData === undefined || script.cachedDataRejected)) {
    setTimeout(() => writeCache(cacheFile, filename, sourceHash, script.createCachedData()), saveAfterMs).unref()
  }
  return module.exports
}

/**
 * The cache file for `filename` in `cacheDir`: the bundle's name and a hash of its full path,
 * so two installs of one bundle keep a cache each instead of replacing each other's at every start.
 */
export function cacheFileFor(cacheDir, filename) {
  const where = sha256(path.resolve(filename)).toString('hex').slice(0, 16)
  return path.join(cacheDir, `${path.basename(filename)}.${where}.v8cache`)
}

/** The SHA-256 of `data` (bytes, or a string as UTF-8), 32 bytes. */
function sha256(data) {
  return createHash('sha256').update(data).digest()
}

/**
 * The whole of `file` when it is a private regular file of this user of at most MAX_CACHE_BYTES,
 * opened without following a link; else undefined. Never throws.
 */
function readPrivateFile(file) {
  let fd
  try {
    fd = openSync(file, constants.O_RDONLY | constants.O_NOFOLLOW | constants.O_NONBLOCK)
    const stat = fstatSync(fd)
    if (!stat.isFile() || stat.uid !== process.geteuid?.() || (stat.mode & 0o022) !== 0) return undefined
    if (stat.size > MAX_CACHE_BYTES) return undefined
    const data = Buffer.allocUnsafe(stat.size)
    let read = 0
    while (read < data.length) {
      const n = readSync(fd, data, read, data.length - read, read)
      if (n === 0) return undefined
      read += n
    }
    return data
  } catch {
    return undefined
  } finally {
    if (fd !== undefined) closeSync(fd)
  }
}

/** The bundle path a cache file names, or undefined when it is not a cache file of this layout. */
function bundlePathOf(data) {
  if (data.length < PATH_OFFSET || !data.subarray(0, MAGIC.length).equals(MAGIC)) return undefined
  const end = PATH_OFFSET + data.readUInt16LE(PATH_OFFSET - 2)
  return end <= data.length ? data.toString('utf8', PATH_OFFSET, end) : undefined
}

/** V8's data from `cacheFile` when it is a private cache file made from the source hashed `sourceHash`, whole; else undefined. */
function readCache(cacheFile, sourceHash) {
  const data = readPrivateFile(cacheFile)
  const bundlePath = data === undefined ? undefined : bundlePathOf(data)
  if (bundlePath === undefined) return undefined
  if (!data.subarray(MAGIC.length, MAGIC.length + HASH_BYTES).equals(sourceHash)) return undefined
  const v8Data = data.subarray(PATH_OFFSET + Buffer.byteLength(bundlePath))
  if (v8Data.length === 0 || !sha256(v8Data).equals(data.subarray(MAGIC.length + HASH_BYTES, MAGIC.length + 2 * HASH_BYTES))) return undefined
  return v8Data
}

/** Writes a cache file through a new private file, synced and renamed into place, then tidies the folder. Never throws. */
function writeCache(cacheFile, bundlePath, sourceHash, data) {
  const temporary = `${cacheFile}.${process.pid}.${Date.now().toString(36)}.tmp`
  const pathBytes = Buffer.from(bundlePath)
  if (pathBytes.length > 0xffff) return
  const pathLength = Buffer.alloc(2)
  pathLength.writeUInt16LE(pathBytes.length)
  let fd
  try {
    fd = openSync(temporary, constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL | constants.O_NOFOLLOW, 0o600)
    for (const part of [MAGIC, sourceHash, sha256(data), pathLength, pathBytes, data]) {
      let written = 0
      while (written < part.length) written += writeSync(fd, part, written, part.length - written)
    }
    fsyncSync(fd)
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
    return
  }
  removeLeftovers(path.dirname(cacheFile), path.basename(bundlePath), cacheFile)
}

/**
 * Removes, from the cache folder, what earlier writes left of caches of bundles named
 * `bundleName`: temporary files of processes no longer running (a start killed while writing),
 * and cache files whose bundle no longer exists (an install removed or moved). Never throws.
 */
function removeLeftovers(cacheDir, bundleName, current) {
  try {
    for (const name of readdirSync(cacheDir)) {
      if (!name.startsWith(`${bundleName}.`)) continue
      const file = path.join(cacheDir, name)
      const temporary = /\.v8cache\.(\d+)\.[0-9a-z]+\.tmp$/.exec(name)
      if (temporary && !isRunning(Number(temporary[1]))) rmSync(file, {force: true})
      else if (name.endsWith('.v8cache') && file !== current) {
        const bundlePath = bundlePathOf(readPrivateFile(file) ?? Buffer.alloc(0))
        if (bundlePath === undefined || !existsSync(bundlePath)) rmSync(file, {force: true})
      }
    }
  } catch {
    // Leftovers stay until the next write.
  }
}

/** Whether a process with this id runs (one of another user's counts as running). */
function isRunning(pid) {
  try {
    process.kill(pid, 0)
    return true
  } catch (error) {
    return error?.code === 'EPERM'
  }
}
