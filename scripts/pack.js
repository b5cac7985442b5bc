// Writes the two npm packages (DESIGN §4.7) from a built dist/ into dist/pack/ (or the folder
// given with --out): agentorg-ak-<version>.tgz, the whole CLI (this package.json's `files`, with
// the package.json akPackageJson writes), and agentorg-exec-<version>.tgz, AgentExec alone
// (EXEC_FILES, its README from packages/exec/ and the package.json execPackageJson writes).
// Neither has a dependency or an install script: everything they run is bundled. Run through
// `npm run pack`, which builds first.
import {execFileSync} from 'node:child_process'
import {cpSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync} from 'node:fs'
import {tmpdir} from 'node:os'
import path from 'node:path'
import {parseArgs} from 'node:util'
import {fileURLToPath} from 'node:url'

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..')
const pjson = JSON.parse(readFileSync(path.join(root, 'package.json'), 'utf8'))
const {values} = parseArgs({options: {out: {type: 'string', default: path.join(root, 'dist', 'pack')}}})
const out = path.resolve(values.out)

/**
 * What @agentorg/exec holds, as paths in this repository. Each package's README.md comes from
 * packages/<name>/: the clone's README speaks of working from a clone.
 */
const EXEC_FILES = ['dist/agentexec.js', 'dist/agentexec-bundle.cjs', 'dist/exec.js', 'dist/exec.cjs', 'dist/exec.d.ts', 'dist/types', 'LICENSE', 'NOTICE']

for (const file of EXEC_FILES) {
  if (!existsSync(path.join(root, file))) throw new Error(`${file} is missing: run "npm run pack" (or "npm run build" first).`)
}
rmSync(out, {recursive: true, force: true})
mkdirSync(out, {recursive: true})

packStaged(EXEC_FILES, {'packages/exec/README.md': 'README.md'}, execPackageJson())
packStaged(
  pjson.files.filter((file) => file !== 'README.md'),
  {'packages/ak/README.md': 'README.md'},
  akPackageJson(),
)

/**
 * Copies `files` (paths in this repository) and `renamed` (repository path → package path) into
 * a scratch folder with `manifest` as its package.json, and packs it into `out`.
 */
function packStaged(files, renamed, manifest) {
  const stage = mkdtempSync(path.join(tmpdir(), 'agentorg-pack-'))
  try {
    for (const file of files) cpSync(path.join(root, file), path.join(stage, file), {recursive: true})
    for (const [from, to] of Object.entries(renamed)) cpSync(path.join(root, from), path.join(stage, to))
    writeFileSync(path.join(stage, 'package.json'), `${JSON.stringify(manifest, null, 2)}\n`)
    report(npmPack(stage))
  } finally {
    rmSync(stage, {recursive: true, force: true})
  }
}

/**
 * @agentorg/ak's package.json: this one without what only a clone uses. Its dependencies are
 * all in dist/ak.mjs and dist/agentexec-bundle.cjs; they stay dependencies here because oclif
 * loads the plugins a clone runs from dist/ (help, autocomplete) only when package.json lists
 * them as dependencies. No scripts: an installed package builds nothing.
 */
function akPackageJson() {
  const {dependencies, devDependencies, scripts, allowScripts, ...published} = pjson
  return published
}

/**
 * @agentorg/exec's package.json: the `agentexec` bin and the library entry over the same bundle,
 * with ak's version, licence and supported Node.js.
 */
function execPackageJson() {
  return {
    name: '@agentorg/exec',
    version: pjson.version,
    description:
      'AgentExec: a terminal and files for an agent, confined to one workspace, as an MCP server (one file, dist/agentexec.js) or a library. No dependencies.',
    license: pjson.license,
    type: 'module',
    bin: {agentexec: './dist/agentexec.js'},
    main: './dist/exec.js',
    types: './dist/exec.d.ts',
    exports: {'.': {types: './dist/exec.d.ts', import: './dist/exec.js', require: './dist/exec.cjs'}, './package.json': './package.json'},
    files: [...EXEC_FILES.filter((file) => file.startsWith('dist/')), 'LICENSE', 'NOTICE', 'README.md'],
    engines: pjson.engines,
    keywords: ['mcp', 'model-context-protocol', 'agent', 'terminal', 'codex'],
  }
}

/** Runs `npm pack` in `dir` without its scripts (dist/ is built already); returns the tarball's name. */
function npmPack(dir) {
  // Through npm run, npm_execpath is the npm that runs this script.
  const npm = process.env.npm_execpath ? [process.execPath, process.env.npm_execpath] : ['npm']
  const output = execFileSync(npm[0], [...npm.slice(1), 'pack', '--ignore-scripts', '--json', '--pack-destination', out], {cwd: dir, encoding: 'utf8'})
  return JSON.parse(output)[0].filename
}

function report(filename) {
  const file = path.join(out, filename)
  process.stdout.write(`${path.relative(process.cwd(), file) || file}\n`)
}
