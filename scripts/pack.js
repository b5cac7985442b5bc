// Writes the two npm packages (DESIGN §4.7) from a built dist/ into dist/pack/ (or the folder
// given with --out): agentorg-ak-<version>.tgz, the whole CLI (this package.json's `files`), and
// agentorg-exec-<version>.tgz, AgentExec alone (EXEC_FILES, its README from packages/exec/ and
// the package.json execPackageJson writes). Neither has a dependency or an install script.
// Run through `npm run pack`, which builds first.
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

/** What @agentorg/exec holds, as paths in this repository (README.md comes from packages/exec/). */
const EXEC_FILES = ['dist/agentexec.js', 'dist/agentexec-bundle.mjs', 'dist/exec.js', 'dist/exec.d.ts', 'dist/types', 'LICENSE', 'NOTICE']

for (const file of EXEC_FILES) {
  if (!existsSync(path.join(root, file))) throw new Error(`${file} is missing: run "npm run pack" (or "npm run build" first).`)
}
rmSync(out, {recursive: true, force: true})
mkdirSync(out, {recursive: true})

const stage = mkdtempSync(path.join(tmpdir(), 'agentorg-exec-'))
try {
  for (const file of EXEC_FILES) cpSync(path.join(root, file), path.join(stage, file), {recursive: true})
  cpSync(path.join(root, 'packages', 'exec', 'README.md'), path.join(stage, 'README.md'))
  writeFileSync(path.join(stage, 'package.json'), `${JSON.stringify(execPackageJson(), null, 2)}\n`)
  report(npmPack(stage))
} finally {
  rmSync(stage, {recursive: true, force: true})
}
report(npmPack(root))

/**
 * @agentorg/exec's package.json: the `agentexec` bin and the library entry over the same bundle,
 * with ak's version, licence and supported Node.js.
 */
function execPackageJson() {
  return {
    name: '@agentorg/exec',
    version: pjson.version,
    description: 'AgentExec: a terminal and files for an agent, confined to one workspace, as an MCP server or a library. One file, no dependencies.',
    license: pjson.license,
    type: 'module',
    bin: {agentexec: './dist/agentexec.js'},
    main: './dist/exec.js',
    types: './dist/exec.d.ts',
    exports: {'.': {types: './dist/exec.d.ts', import: './dist/exec.js'}, './package.json': './package.json'},
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
