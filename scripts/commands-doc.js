// Writes docs/commands.md, the command reference, from the built commands with `oclif readme`
// (every command's --help, as oclif CLIs publish it). With --check it writes nothing and exits 1
// when docs/commands.md differs from what the commands say. Run after `npm run build`.
import {execFileSync} from 'node:child_process'
import {copyFileSync, mkdtempSync, readFileSync, rmSync} from 'node:fs'
import {tmpdir} from 'node:os'
import path from 'node:path'
import {fileURLToPath} from 'node:url'

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..')
const doc = path.join(root, 'docs', 'commands.md')
/** Width the help text is wrapped at; fixed so the file does not depend on the terminal. */
const COLUMNS = 120

/** Replaces the part of `file` between `<!-- commands -->` and `<!-- commandsstop -->`. */
function generate(file) {
  execFileSync(
    process.execPath,
    [path.join(root, 'node_modules', 'oclif', 'bin', 'run.js'), 'readme', '--readme-path', file, '--no-source-links', '--no-aliases'],
    {cwd: root, env: {...process.env, COLUMNS: String(COLUMNS)}, stdio: ['ignore', 'ignore', 'inherit']},
  )
}

if (process.argv.includes('--check')) {
  const scratch = mkdtempSync(path.join(tmpdir(), 'ak-commands-doc-'))
  try {
    const copy = path.join(scratch, 'commands.md')
    copyFileSync(doc, copy)
    generate(copy)
    if (readFileSync(copy, 'utf8') !== readFileSync(doc, 'utf8')) {
      console.error('docs/commands.md is out of date with the commands: run `npm run docs:commands` and commit the result.')
      process.exitCode = 1
    }
  } finally {
    rmSync(scratch, {recursive: true, force: true})
  }
} else {
  generate(doc)
}
